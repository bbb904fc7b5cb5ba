"""Serve requests in order to one prefix cache and measure each: shared, reusable, divergence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from prefixlint.match.prefix import PrefixCache
from prefixlint.match.profiles import EngineProfile
from prefixlint.tokenize import Tokenizer


@dataclass(frozen=True)
class Request:
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
    request: Request
    shared_prefix_tokens: int
    reusable_tokens: int
    divergence: Divergence | None

    @property
    def tokens(self) -> int:
        return len(self.request.ids)

    def ratio(self, count: int) -> float:
        return count / self.tokens if self.tokens else 0.0


def _shown(tokenizer: Tokenizer, request: Request, index: int, start: int) -> str:
    piece = tokenizer.token_text(request.ids[index])
    if "\ufffd" not in piece or "\ufffd" in request.text:
        return piece
    end = tokenizer.char_offset(request.text, request.ids, index + 1)
    return request.text[start:max(end, start + 1)]


def serve(requests: Sequence[Request], tokenizer: Tokenizer, profile: EngineProfile) -> list[Served]:
    cache = PrefixCache()
    results: list[Served] = []
    for request in requests:
        found = cache.match_and_insert(request.ids)
        shared = found.length
        divergence = None
        if found.other is not None and shared < len(request.ids):
            other = requests[found.other]
            char_offset = tokenizer.char_offset(request.text, request.ids, shared)
            other_char_offset = tokenizer.char_offset(other.text, other.ids, shared)
            divergence = Divergence(
                token_index=shared,
                char_offset=char_offset,
                other_index=found.other,
                other_char_offset=other_char_offset,
                token=_shown(tokenizer, request, shared, char_offset),
                other_token=_shown(tokenizer, other, shared, other_char_offset) if shared < len(other.ids) else None,
            )
        results.append(
            Served(request, shared, profile.reusable_tokens(shared, len(request.ids)), divergence)
        )
    return results
