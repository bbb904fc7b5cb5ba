"""Replay a request log through a prefix cache and tally the reuse: overall, per group, per place.

A *place* is where requests stop matching what was cached: the same tokens before it (the
same parent block chain, or the same shared prefix) and the same token position. Places are
ranked by the prompt tokens they cost: everything a request computed again from there on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Hashable

from prefixlint.engines.base import Miss, Outcome, Simulator
from prefixlint.engines.request import Request

#: Tokens each side of a divergence kept as a sample.
CONTEXT_TOKENS = 8
SAMPLE_TOKENS = 12


KINDS = ("diverged", "evicted", "expired", "new")


@dataclass
class Tally:
    requests: int = 0
    prompt_tokens: int = 0
    cached_tokens: int = 0

    @property
    def hit_rate(self) -> float:
        return self.cached_tokens / self.prompt_tokens if self.prompt_tokens else 0.0

    def add(self, prompt_tokens: int, cached_tokens: int) -> None:
        self.requests += 1
        self.prompt_tokens += prompt_tokens
        self.cached_tokens += cached_tokens


@dataclass
class Place:
    position: int
    requests: int
    tokens_lost: int
    #: The first request that diverged here: its line, the tokens before the divergence,
    #: its own tokens from there, and the cached side's.
    line: int
    before: tuple[int, ...]
    this_side: tuple[int, ...]
    other_side: tuple[int, ...]


@dataclass
class ReplayStats:
    total: Tally = field(default_factory=Tally)
    groups: dict[str, Tally] = field(default_factory=dict)
    places: dict[Hashable, Place] = field(default_factory=dict)
    #: Prompt tokens computed again, by why reuse stopped: diverged, evicted, new.
    lost_by_kind: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    requests_by_kind: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    generated_tokens: int = 0
    over_capacity_lines: list[int] = field(default_factory=list)
    reported_cached_tokens: int = 0
    reported_prompt_tokens: int = 0
    reported_requests: int = 0

    def top_places(self, count: int = 10) -> list[Place]:
        return sorted(self.places.values(), key=lambda p: (-p.tokens_lost, -p.requests, p.line))[:count]


class Replay:
    """Feed requests in the order served; read `stats` at the end."""

    def __init__(self, cache: Simulator) -> None:
        self.cache = cache
        self.stats = ReplayStats()

    @property
    def evicted_blocks(self) -> int:  # a Replay is a Simulator too (the serve loop's)
        return self.cache.evicted_blocks

    def serve(self, request: Request) -> Outcome:
        outcome = self.cache.serve(request)
        stats = self.stats
        prompt_tokens = request.prompt_tokens
        stats.total.add(prompt_tokens, outcome.cached_tokens)
        group = stats.groups.get(request.group)
        if group is None:
            group = stats.groups[request.group] = Tally()
        group.add(prompt_tokens, outcome.cached_tokens)
        stats.generated_tokens += request.generated_tokens
        if outcome.over_capacity:
            stats.over_capacity_lines.append(request.line)
        if request.reported_cached_tokens is not None:
            stats.reported_requests += 1
            stats.reported_cached_tokens += request.reported_cached_tokens
            stats.reported_prompt_tokens += prompt_tokens
        if outcome.miss is not None:
            self._count_miss(request, prompt_tokens - outcome.cached_tokens, outcome.miss)
        return outcome

    def _count_miss(self, request: Request, lost: int, miss: Miss) -> None:
        stats = self.stats
        stats.lost_by_kind[miss.kind] += lost
        stats.requests_by_kind[miss.kind] += 1
        if miss.kind != "diverged":
            return
        key = (miss.key, miss.position)
        place = stats.places.get(key)
        if place is None:
            at, prompt = miss.position, request.prompt
            stats.places[key] = Place(
                at, 1, lost, request.line, tuple(prompt[max(0, at - CONTEXT_TOKENS):at]),
                tuple(prompt[at:at + SAMPLE_TOKENS]), miss.other_tokens[:SAMPLE_TOKENS],
            )
        else:
            place.requests += 1
            place.tokens_lost += lost
