"""The one serve loop: requests served in order by one engine instance (a `Simulator`).

`serve` is what every command drives an engine with: `replay` (a log, through its tallies),
`compare` (`serve_prompts`: texts given on the command line, each measured also by its shared
prefix with what was served before it and where it diverged), `transcript` (each turn's prompt
and the reply it generated) and `check`'s history measurement (`reuse_after`: one request
served after another). The cached tokens of each request are the simulator's, so the commands
give the same numbers on the same requests (tests/engines/test_agreement.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

from prefixlint.engines.base import Outcome, Simulator
from prefixlint.engines.profiles import EngineProfile
from prefixlint.engines.request import Request
from prefixlint.match.prefix import PrefixCache

if TYPE_CHECKING:
    from prefixlint.tokenize import Tokenizer


def serve(requests: Iterable[Request], simulator: Simulator) -> Iterator[tuple[Request, Outcome]]:
    """Each request served to completion in the order given, with its outcome."""
    for request in requests:
        yield request, simulator.serve(request)


def unlimited(profile: EngineProfile) -> Simulator:
    """The engine of `profile` with unlimited memory, no expiry: what compare, transcript and
    check measure against."""
    from prefixlint.engines.simulators import make_simulator

    return make_simulator(profile, ttl=0)


def reuse_after(first: Sequence[int], second: Sequence[int], profile: EngineProfile) -> int:
    """Prompt tokens of `second` served from cache when it follows `first` on a fresh engine."""
    results = serve([Request(1, "", first), Request(2, "", second)], unlimited(profile))
    return [outcome.cached_tokens for _, outcome in results][1]


class ReuseMemo:
    """`reuse_after` once per pair of token sequences: one check asks for the same two requests
    several times (a value's measurement, the file's with every value different, the fixed text's).
    Mostly it asks with the same two lists (a render's ids, kept by the measurer): those are found
    by identity, without hashing their tokens (the memo keeps them, so no other list takes their
    ids; the lists are never changed once encoded)."""

    def __init__(self) -> None:
        self._known: dict[tuple, int] = {}
        self._same: dict[tuple, tuple[Sequence[int], Sequence[int], int]] = {}

    def __call__(self, first: Sequence[int], second: Sequence[int], profile: EngineProfile) -> int:
        seen = self._same.get((id(first), id(second), profile))
        if seen is not None and seen[0] is first and seen[1] is second:
            return seen[2]
        key = (tuple(first), tuple(second), profile)
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = reuse_after(first, second, profile)
        self._same[(id(first), id(second), profile)] = (first, second, found)
        return found


@dataclass(frozen=True)
class Prompt:
    """A request as `compare` is given it: where it came from, its text and its token ids."""

    source: str  # a file name, `-`, or `--text #N`
    text: str
    ids: Sequence[int]


@dataclass(frozen=True)
class Divergence:
    """Where a request stops matching the cache."""

    token_index: int
    char_offset: int
    #: The cached request it is compared with (index into the served list).
    other_index: int
    other_char_offset: int
    #: The two tokens at `token_index`, as text; `other_token` is None where the cached
    #: request simply ended there (this request extends it). A token that is only part of a
    #: character's bytes (an emoji split in two) is shown as the character(s) it falls in.
    token: str | None
    other_token: str | None


@dataclass(frozen=True)
class Served:
    prompt: Prompt
    shared_prefix_tokens: int
    #: The prompt tokens the engine serves from its cache (the simulator's count).
    reusable_tokens: int
    divergence: Divergence | None

    @property
    def tokens(self) -> int:
        return len(self.prompt.ids)

    def ratio(self, count: int) -> float:
        return count / self.tokens if self.tokens else 0.0


def _shown(tokenizer: Tokenizer, prompt: Prompt, index: int, start: int) -> str:
    piece = tokenizer.token_text(prompt.ids[index])
    if "\ufffd" not in piece or "\ufffd" in prompt.text:
        return piece
    end = tokenizer.char_offset(prompt.text, prompt.ids, index + 1)
    return prompt.text[start:max(end, start + 1)]


def serve_prompts(prompts: Sequence[Prompt], tokenizer: Tokenizer, profile: EngineProfile) -> list[Served]:
    """`compare`: each prompt served after the ones before it (prompts only, nothing generated)."""
    cache = PrefixCache()  # the exact shared prefix with any earlier prompt, and which one
    requests = (Request(number, prompt.source, list(prompt.ids)) for number, prompt in enumerate(prompts, 1))
    results: list[Served] = []
    for prompt, (_, outcome) in zip(prompts, serve(requests, unlimited(profile))):
        found = cache.match_and_insert(list(prompt.ids))
        shared = found.length
        divergence = None
        if found.other is not None and shared < len(prompt.ids):
            other = prompts[found.other]
            char_offset = tokenizer.char_offset(prompt.text, prompt.ids, shared)
            other_char_offset = tokenizer.char_offset(other.text, other.ids, shared)
            divergence = Divergence(
                token_index=shared,
                char_offset=char_offset,
                other_index=found.other,
                other_char_offset=other_char_offset,
                token=_shown(tokenizer, prompt, shared, char_offset),
                other_token=_shown(tokenizer, other, shared, other_char_offset) if shared < len(other.ids) else None,
            )
        results.append(Served(prompt, shared, outcome.cached_tokens, divergence))
    return results
