"""Compare two renders of one template: which placeholders changed, and the "fixed" request.

`changed_placeholders` pairs the substitutions of two renders (same placeholder, same order)
and returns the placeholders whose rendered value differs. `move_to_end` builds the fixed
variant the rules suggest: the line (or sentence) holding each moved placeholder is cut from
where it is and appended, in order, to the end of the last user message (of the prompt, for a
single-prompt file), so the stable text ahead of it becomes a shared prefix.

How a value moves is decided ONCE per placeholder, from the template as written
(`placements`), and the same decision is applied to every render and to the file itself
(`prefixlint.fix`): a value with at most MAX_CARRIED_CHARS of text after it on its line moves
with its line ("line", a safe fix); otherwise the sentence holding it moves on its own
("sentence", an unsafe fix: the line is split).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from prefixlint.load.template import SLOT_ROLE
from prefixlint.match.clause import clause, lead_of
from prefixlint.match.prefix import shared_prefix
from prefixlint.match.units import LINE, SENTENCE, SENTENCE_END, UNSAFE_MARK, block_region, is_block
from prefixlint.render.spans import RenderedMessage

#: When more than this many characters follow the value on its line (a one-line prompt, a
#: paragraph), the line is not moved whole: the sentence holding the value is.
MAX_CARRIED_CHARS = 48
#: The role of the message a fix adds after the conversation when there is no user message.
NEW_ROLE = "system"
#: What joins a clause to its sentence, dropped when the clause becomes a sentence of its own.
_CONNECTOR = re.compile(r"^[ \t]*,?[ \t]*(?:(?:and|but|where|with|on|at|as of|since|until|for)\b[ \t]*)?",
                        re.IGNORECASE)


def first_difference(a: str, b: str) -> int:
    """Index of the first character where `a` and `b` differ (len of the shorter if one is a prefix)."""
    return shared_prefix(a, b)


def changed_placeholders(a: Sequence[RenderedMessage], b: Sequence[RenderedMessage]) -> set[int]:
    changed: set[int] = set()
    for ma, mb in zip(a, b):
        if ma.text == mb.text:
            continue
        if [s.placeholder for s in ma.spans] == [s.placeholder for s in mb.spans]:
            for sa, sb in zip(ma.spans, mb.spans):
                if ma.text[sa.start : sa.end] != mb.text[sb.start : sb.end]:
                    changed.add(sa.placeholder)
            continue
        # Different loops or branches: every placeholder in the region that differs.
        start = first_difference(ma.text, mb.text)
        tail = first_difference(ma.text[::-1], mb.text[::-1])
        for message, end in ((ma, len(ma.text) - tail), (mb, len(mb.text) - tail)):
            changed.update(s.placeholder for s in message.spans if s.end >= start and s.start <= max(end, start))
    return changed


def placement(text: str, start: int, end: int) -> str:
    """LINE or SENTENCE for the value at text[start:end] (the template as written): its line
    when little follows it there, or when its sentence is the whole line."""
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if len(text[end:line_end].strip()) <= MAX_CARRIED_CHARS:
        return LINE
    cut_start, cut_end = region(text, start, end, SENTENCE)
    whole = not text[text.rfind("\n", 0, start) + 1 : cut_start].strip() and not text[cut_end:line_end].strip()
    return LINE if whole else SENTENCE


def region(text: str, start: int, end: int, mode: str) -> tuple[int, int]:
    """The [start, end) of `text` that moves with the value at text[start:end]."""
    line_start = text.rfind("\n", 0, start) + 1
    newline = text.find("\n", end)
    line_end = len(text) if newline < 0 else newline
    if mode == LINE:
        return line_start, (len(text) if newline < 0 else newline + 1)
    before = [m.end() for m in SENTENCE_END.finditer(text, line_start, start)]
    cut_start = before[-1] if before else line_start
    after = SENTENCE_END.search(text, end, line_end)
    cut_end = after.end() if after else line_end
    if cut_end == line_end:  # the sentence ends its line: the spaces before it go with it
        while cut_start > line_start and text[cut_start - 1] in " \t":
            cut_start -= 1
    return cut_start, cut_end


@dataclass(frozen=True)
class Plan:
    """What `move_to_end` does: the regions cut from each message, the pieces appended (in
    order) to the target message, and that message's index."""

    cuts: tuple[tuple[tuple[int, int], ...], ...]
    pieces: tuple[str, ...]
    target: int
    #: For each piece: (message, start, end) of its text before the newline appended to it.
    origins: tuple[tuple[int, int, int], ...] = ()
    #: For each piece: the text written before and after it ("Today is ", "."), or ("", "").
    wraps: tuple[tuple[str, str], ...] = ()


def target_message(messages: Sequence[RenderedMessage]) -> int:
    """The last user message; with none and the conversation last, a new system message after
    it (index len(messages), `NEW_ROLE`); else the last message."""
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if users:
        return users[-1]
    return len(messages) if messages and messages[-1].role == SLOT_ROLE else len(messages) - 1


def plan_moves(messages: Sequence[RenderedMessage], moves: Mapping[int, str] | set[int] | frozenset[int],
               in_place: bool = False) -> Plan:
    """The regions to cut and the pieces to append; `moves` maps a placeholder to LINE or
    SENTENCE (a set: decided from the first span of each placeholder in `messages`). With
    `in_place` (prompts in program source), pieces all cut from one message that still has
    stable text after them go to the end of that message (`in_place_target`)."""
    if not isinstance(moves, Mapping):
        moves = decide(messages, moves)
    cuts, pieces, origins, wraps = [], [], [], []
    for number, message in enumerate(messages):
        text = message.text
        regions: list[list[Any]] = []  # [start, end, piece end, the value's wrap or None]
        for span in message.spans:
            mode = moves.get(span.placeholder)
            if mode is None:
                continue
            wrap = _value_cut(text, span, mode)
            start, end = wrap[3:] if wrap else unit_region(text, message.spans, span, mode)
            if regions and start <= regions[-1][1]:  # one region: its text moves as written
                regions[-1][1] = regions[-1][2] = max(regions[-1][1], end)
                regions[-1][3] = None
            else:
                regions.append([start, end, end, wrap])
        if regions and regions[0][0] == 0 and text[: regions[0][1]].endswith("\n"):
            # the message's opening lines: the blank lines after them go too (no blank opening)
            limit = regions[1][0] if len(regions) > 1 else len(text)
            regions[0][1] = _past_blank_lines(text, regions[0][1], limit)
        for k, region_ in enumerate(regions):  # lines between blank lines: one blank line stays
            start, end = region_[0], region_[1]
            if start >= 2 and text[start - 2 : start] == "\n\n" and text[start:end].endswith("\n"):
                limit = regions[k + 1][0] if k + 1 < len(regions) else len(text)
                after = _past_blank_lines(text, end, limit)
                if after < limit:
                    region_[1] = after
        kept = []
        for start, end, piece_end, wrap in regions:
            if wrap:  # the value alone, as a short sentence of its own
                pieces.append(f"{wrap[0]}{text[wrap[1]:wrap[2]]}.\n")
                origins.append((number, wrap[1], wrap[2]))
                wraps.append((wrap[0], "."))
                kept.append((start, end))
                continue
            piece_start = start
            if not text[start:piece_end].endswith("\n"):  # a sentence, or a last line: without its blanks
                while piece_start < piece_end and text[piece_start] in " \t":
                    piece_start += 1
                while piece_end > piece_start and text[piece_end - 1] in " \t":
                    piece_end -= 1
                if end == len(text) and start > 0 and text[start - 1] == "\n":
                    start -= 1  # the last line of its message: the newline before it goes too
            piece = text[piece_start:piece_end]
            pieces.append(piece if piece.endswith("\n") else piece + "\n")
            origins.append((number, piece_start, piece_end))
            wraps.append(("", ""))
            kept.append((start, end))
        cuts.append(tuple(kept))
    target = in_place_target(messages, cuts, origins) if in_place else None
    return Plan(tuple(cuts), tuple(pieces), target_message(messages) if target is None else target,
                tuple(origins), tuple(wraps))


def unit_region(text: str, spans, span, mode: str) -> tuple[int, int]:
    """The [start, end) of `text` that moves with `span` in `mode` (`prefixlint.match.units`)."""
    if is_block(mode):
        return block_region(text, spans, span.start, span.end)
    return region(text, span.start, span.end, LINE if mode.rstrip(UNSAFE_MARK) == LINE else SENTENCE)


def _value_cut(text: str, span, mode: str):
    """(lead-in + " ", value start, value end, cut start, cut end) for a value moved as its own
    sentence; None for a line or sentence move (or when its sentence cannot be shortened). The
    clause's own words lead the moved sentence (`today's date is` -> `Today's date is {d}.`);
    only a bare preposition (` on {d}`) is replaced by the value class's lead-in."""
    lead = lead_of(mode)
    if lead is None:
        return None
    sentence = region(text, span.start, span.end, SENTENCE)
    cut = clause(text, span.start, span.end, *sentence)
    if not cut:
        return None
    own = _CONNECTOR.sub("", text[cut[0] : span.start].lstrip(" \t(")).strip()
    if own:
        lead = own[0].upper() + own[1:]
    return (lead + " ", span.start, span.end, *cut)


def in_place_target(messages: Sequence[RenderedMessage], cuts, origins) -> int | None:
    """The message every piece comes from, when text other than blanks follows its last cut
    and no conversation follows the message (its end would still be ahead of the history)."""
    numbers = {number for number, _, _ in origins}
    if len(numbers) != 1:
        return None
    (number,) = numbers
    if any(m.role == SLOT_ROLE for m in messages[number + 1 :]):
        return None
    last = max(end for _, end in cuts[number])
    return number if messages[number].text[last:].strip() else None


def _past_blank_lines(text: str, at: int, limit: int) -> int:
    while True:
        newline = text.find("\n", at, limit)
        if newline < 0 or text[at:newline].strip():
            return at
        at = newline + 1


def decide(messages: Sequence[RenderedMessage], placeholders: set[int] | frozenset[int]) -> dict[int, str]:
    modes: dict[int, str] = {}
    for message in messages:
        for span in message.spans:
            if span.placeholder in placeholders and span.placeholder not in modes:
                modes[span.placeholder] = placement(message.text, span.start, span.end)
    return modes


def apply_plan(texts: Sequence[str], plan: Plan) -> list[str]:
    out = []
    for text, cuts in zip(texts, plan.cuts):
        kept, last = [], 0
        for start, end in cuts:
            kept.append(text[last:start])
            last = end
        kept.append(text[last:])
        out.append("".join(kept))
    if plan.pieces and plan.target == len(out):  # a new message after the conversation
        out.append(append_pieces("", plan.pieces, False))
    elif plan.pieces:
        out[plan.target] = append_pieces(out[plan.target], plan.pieces, texts[plan.target].endswith("\n"))
    return out


def append_pieces(body: str, pieces: Sequence[str], ends_with_newline: bool) -> str:
    if body and not body.endswith("\n"):
        body += "\n"
    combined = body + "".join(pieces)
    return combined if ends_with_newline else combined.rstrip("\n")


def move_to_end(messages: Sequence[RenderedMessage], moves: Mapping[int, str] | set[int] | frozenset[int],
                in_place: bool = False) -> list[str]:
    """Message texts with the line (or sentence) of every moved placeholder at the target's end."""
    return apply_plan([m.text for m in messages], plan_moves(messages, moves, in_place))
