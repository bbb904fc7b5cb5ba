"""The causes of each request's miss, from the history of a replay.

Every prompt served (with its generated tokens) is kept and indexed by its chain of 16-token
blocks. A request's cached side is the earlier sequence that shares its longest run of leading
blocks (what an engine reuses), else the latest request of its group, else the latest one.
Then:

- nothing earlier, or nothing alike (little equal text anywhere past the shared prefix): `cold`;
- the whole prompt shared: `full-hit`; the cached side shared to its very end: `new-content`;
- the engine's own reason when the cached blocks are gone (`evicted`, `expired`);
- otherwise the first differing token, named from the texts around it (`prefixlint.explain.kinds`),
  and every later place where the two still differ, aligned past the first (`align`).
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Sequence

from prefixlint.explain.align import Text, regions
from prefixlint.explain.causes import Cause, shown
from prefixlint.explain.kinds import Context, Sides, kinds
from prefixlint.match.prefix import shared_prefix

BLOCK = 16
#: The latest requests tried as the cached side (besides the engine's match and the group's).
RECENT = 8
#: Texts of earlier sequences kept decoded.
TEXTS_KEPT = 64
#: Equal text (characters) past the shared prefix that makes two prompts alike.
ALIKE_CHARS = 100
#: Tokens of history kept (4 bytes each); the oldest sequences are forgotten past it, so memory
#: does not grow with the log (an engine's cache forgets them long before).
HISTORY_TOKENS = 20_000_000


@dataclass(frozen=True)
class Entry:
    ids: array
    prompt_tokens: int
    context: Context


class Explainer:
    """Feed requests in the order served (`explain`); each is then part of the history."""

    def __init__(self, token_text: Callable[[int], str], block: int = BLOCK) -> None:
        def safe(token: int) -> str:
            # A token-id log may hold ids the named tokenizer has no text for (another model's
            # vocabulary, special ids): shown by number, never an internal error.
            try:
                return token_text(token)
            except (KeyError, ValueError, IndexError, OverflowError, TypeError):
                return f"<token {token}>"

        self._token_text = safe
        self._pieces: dict[int, str] = {}
        self.block = block
        self.entries: dict[int, Entry] = {}
        self._next = 0
        self._kept_tokens = 0
        self._by_hash: dict[int, int] = {}
        self._by_group: dict[str, int] = {}
        self._texts: OrderedDict[int, Text] = OrderedDict()

    def piece(self, token: int) -> str:
        text = self._pieces.get(token)
        if text is None:
            text = self._pieces[token] = self._token_text(token)
        return text

    def decoded(self, ids: Sequence[int]) -> Text:
        """`ids` as text, each token's text looked up once per replay."""
        known = self._pieces
        for token in set(ids).difference(known):
            known[token] = self._token_text(token)
        return Text(ids, known.__getitem__)

    def _text(self, index: int) -> Text:
        text = self._texts.get(index)
        if text is None:
            text = self._texts[index] = self.decoded(self.entries[index].ids)
            if len(self._texts) > TEXTS_KEPT:
                self._texts.popitem(last=False)
        else:
            self._texts.move_to_end(index)
        return text

    def _hashes(self, ids: Sequence[int]) -> list[int]:
        hashes, parent, size = [], 0, self.block
        for at in range(0, len(ids) - size + 1, size):
            parent = hash((parent, tuple(ids[at: at + size])))
            hashes.append(parent)
        return hashes

    def _candidates(self, prompt: Sequence[int], group: str) -> list[int]:
        """The engine's match (longest run of shared blocks), the latest of the group, the latest
        few: the cached side is chosen among them."""
        best = None
        for value in self._hashes(prompt):
            found = self._by_hash.get(value)
            if found is None or found not in self.entries:
                break
            best = found
        candidates = [best] if best is not None else []
        candidates += [self._by_group[group]] if group in self._by_group else []
        candidates += range(self._next - 1, max(-1, self._next - 1 - RECENT), -1)
        return [index for index in dict.fromkeys(candidates) if index in self.entries]

    def explain(self, prompt: Sequence[int], generated: Sequence[int] = (), context: Context | None = None,
                group: str = "", miss: str | None = None, cached_tokens: int = 0) -> list[Cause]:
        context = context or Context()
        try:
            causes = self._explain(prompt, context, group)
            if miss in ("evicted", "expired"):  # the engine had it and lost it; later places still count
                return [Cause(miss, cached_tokens, ""),
                        *(c for c in causes if c.cause not in ("full-hit", "new-content", "cold"))]
            return causes
        finally:
            self._remember(prompt, generated, context, group)

    def _explain(self, prompt: Sequence[int], context: Context, group: str) -> list[Cause]:
        """Against the most alike of the candidates that share about as much as the best one (a
        block): the reuse stops where the engine's does, and past it the places are counted
        against the request that would match once they are fixed (the same tenant's last one,
        not another tenant's whose clock happens to share more digits)."""
        candidates = self._candidates(prompt, group)
        if not candidates:
            return [Cause("cold", 0, shown(self._decoded(prompt, 0, 12)))]
        mine = list(prompt)
        shared = {index: shared_prefix(mine, list(self.entries[index].ids)) for index in candidates}
        top = max(candidates, key=lambda index: (shared[index], index))
        entry = self.entries[top]
        if shared[top] >= len(prompt) - 1 or shared[top] >= len(entry.ids) or len(candidates) == 1:
            return self._against(prompt, context, top, shared[top])[0]
        close = [index for index in candidates if shared[index] >= shared[top] - self.block]
        if len(close) > 1:
            lines = set(self.decoded(prompt).text.splitlines())
            def likeness(index: int) -> tuple[int, int]:
                return len(lines.intersection(self._text(index).text.splitlines())), shared[index]
            close.sort(key=likeness, reverse=True)
        causes, alike = self._against(prompt, context, close[0], shared[close[0]])
        if causes[0].cause == "cold" and close[0] != top:
            causes = self._against(prompt, context, top, shared[top])[0]
        return causes

    def _decoded(self, ids: Sequence[int], start: int, count: int) -> str:
        return "".join(self.piece(i) for i in ids[start: start + count])

    def _against(self, prompt: Sequence[int], context: Context, index: int, shared: int) -> tuple[list[Cause], int]:
        """The causes against the earlier sequence `index`, and how alike the two are."""
        entry = self.entries[index]
        if shared >= len(prompt) - 1:
            return [Cause("full-hit", shared, "")], 1 << 40
        if shared >= len(entry.ids):
            return [Cause("new-content", shared, shown(self._decoded(prompt, shared, 12)))], shared + (1 << 30)
        mine, theirs = self.decoded(prompt), self._text(index)
        at = mine.char_of(shared)
        common = shared_prefix(mine.text, theirs.text)
        sides = Sides(mine.text, theirs.text, context, entry.context, theirs.char_of(entry.prompt_tokens)
                      if entry.prompt_tokens < len(entry.ids) else None)
        first = None
        if common > at and common >= mine.char_of(shared + 1) and common >= theirs.char_of(shared + 1):
            first = Cause("retokenized", shared, shown(self._decoded(prompt, shared, 4)))
        aligned = regions(mine.text, theirs.text, min(common, len(mine.text)))
        found = kinds(aligned.regions, sides)
        alike = common + aligned.equal_lines
        if first is None and alike < len(mine.text) // 2 and aligned.equal_lines < ALIKE_CHARS \
                and (not found or found[0][1] not in ("tool-order", "whitespace")):
            return [Cause("cold", shared, shown(mine.text[at: at + 60]))], alike
        causes = [first] if first is not None else []
        for region, cause, start, text in found:
            token = mine.token_at(start)
            causes.append(Cause(cause, mine.token_at(region.start) if causes else shared, shown(text), token))
        if not causes:
            causes = [Cause("other", shared, shown(mine.text[at: at + 60]))]
        first = causes[0]
        causes[0] = Cause(first.cause, shared, first.text, first.place if first.place is not None else shared)
        later = [c for c in causes[1:] if c.cause != "new-content"]
        return [causes[0], *later], alike

    def _remember(self, prompt: Sequence[int], generated: Sequence[int], context: Context, group: str) -> None:
        index = self._next
        self._next += 1
        ids = array("i", prompt)
        ids.extend(generated)
        self.entries[index] = Entry(ids, len(prompt), context)
        self._kept_tokens += len(ids)
        while self._kept_tokens > HISTORY_TOKENS and len(self.entries) > 1:
            oldest = next(iter(self.entries))
            self._kept_tokens -= len(self.entries.pop(oldest).ids)
            self._texts.pop(oldest, None)
        for value in self._hashes(ids):
            self._by_hash[value] = index
        self._by_group[group] = index
