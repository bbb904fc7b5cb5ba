"""Routing policies: which replica serves a request, as real LLM routers decide it.

Each policy follows the router it is named after (read from their code; the differences are
listed in docs/replay.md, "Replicas behind a router"):

- `round-robin`, `random` (seeded): the baseline policies of every router.
- `session`: consistent hashing of a session key onto a ring of virtual nodes (160 per
  replica, sgl-router's `consistent_hash` default; vLLM production-stack's session router
  hashes the session id onto a ring the same way).
- `prefix-aware`: sgl-router's `cache_aware` policy (`policies/cache_aware.rs`): when the
  loads are imbalanced (max - min > `balance_abs_threshold` and max > min x
  `balance_rel_threshold`) the least loaded replica; else the replica with the longest
  cached prefix if its match rate is above `cache_threshold`, else the replica whose tree is
  smallest. Defaults as sgl-router ships them: 0.3, 64, 1.5.
- `kv-cost`: NVIDIA Dynamo's KV router (`kv_router` scheduler / selector): the lowest
  `overlap_score_weight x prefill blocks + decode blocks`, where prefill blocks are the
  tokens the replica would still have to prefill (this request's uncached tokens and the
  prefills in flight) over the block size, and decode blocks the blocks of its requests in
  flight plus this request's new blocks. Temperature 0: ties broken at random (seeded).
"""

from __future__ import annotations

import bisect
import hashlib
import random
from dataclasses import dataclass, field
from typing import Callable, Protocol, Sequence

#: sgl-router's cache-aware defaults (sgl-router / sgl-model-gateway CLI and config).
CACHE_THRESHOLD = 0.3
BALANCE_ABS_THRESHOLD = 64
BALANCE_REL_THRESHOLD = 1.5
#: Dynamo's default `--kv-overlap-score-weight`.
OVERLAP_SCORE_WEIGHT = 1.0
#: Virtual nodes per replica on the consistent-hash ring (sgl-router's default).
VIRTUAL_NODES = 160


class ReplicaState(Protocol):
    """What a policy may read of a replica at the moment a request arrives."""

    #: Requests in flight (routed and not finished).
    load: int
    #: KV blocks of the requests in flight.
    active_blocks: int
    #: Prompt tokens of the requests in flight still being prefilled.
    pending_prefill: int
    #: Tokens routed to the replica and not found in its cache (the size of the router's
    #: approximate tree of what the replica holds).
    inserted_tokens: int


@dataclass
class Arrival:
    """A request as the router sees it."""

    prompt_tokens: int
    block_size: int
    #: The session key (user, session id, chat id, or the first block's content).
    session: str
    #: Tokens of the prompt each replica has cached, computed on demand.
    cached: Callable[[int], int]


class Policy(Protocol):
    name: str

    def choose(self, request: Arrival, replicas: Sequence[ReplicaState]) -> int: ...


def _least(values: Sequence[float]) -> int:
    """The index of the smallest value; the first one on a tie (Rust's `min_by_key`)."""
    return min(range(len(values)), key=values.__getitem__)


@dataclass
class RoundRobin:
    name: str = "round-robin"
    _next: int = 0

    def choose(self, request: Arrival, replicas: Sequence[ReplicaState]) -> int:
        chosen = self._next % len(replicas)
        self._next += 1
        return chosen


@dataclass
class Random:
    seed: int = 0
    name: str = "random"

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def choose(self, request: Arrival, replicas: Sequence[ReplicaState]) -> int:
        return self._rng.randrange(len(replicas))


def stable_hash(text: str) -> int:
    """A hash that is the same in every process and run (Python's `hash` of text is not)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "big")


@dataclass
class Session:
    replicas: int
    name: str = "session"
    _ring: list[tuple[int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._ring = sorted((stable_hash(f"replica-{r}#{v}"), r)
                            for r in range(self.replicas) for v in range(VIRTUAL_NODES))
        self._points = [point for point, _ in self._ring]

    def choose(self, request: Arrival, replicas: Sequence[ReplicaState]) -> int:
        at = bisect.bisect_right(self._points, stable_hash(request.session)) % len(self._ring)
        return self._ring[at][1]


@dataclass
class PrefixAware:
    cache_threshold: float = CACHE_THRESHOLD
    balance_abs_threshold: int = BALANCE_ABS_THRESHOLD
    balance_rel_threshold: float = BALANCE_REL_THRESHOLD
    name: str = "prefix-aware"

    def choose(self, request: Arrival, replicas: Sequence[ReplicaState]) -> int:
        loads = [r.load for r in replicas]
        most, least = max(loads), min(loads)
        if most - least > self.balance_abs_threshold and most > least * self.balance_rel_threshold:
            return _least(loads)
        cached = [request.cached(i) for i in range(len(replicas))]
        best = max(cached)
        if request.prompt_tokens and best / request.prompt_tokens > self.cache_threshold:
            matched = [i for i, c in enumerate(cached) if c == best]
            return min(matched, key=lambda i: (loads[i], i))
        return _least([r.inserted_tokens for r in replicas])


@dataclass
class KvCost:
    seed: int = 0
    overlap_score_weight: float = OVERLAP_SCORE_WEIGHT
    name: str = "kv-cost"

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def logit(self, request: Arrival, replica: ReplicaState, index: int) -> float:
        size = request.block_size
        overlap = request.cached(index) // size
        prefill_tokens = max(request.prompt_tokens - overlap * size, 0) + replica.pending_prefill
        new_blocks = -(-request.prompt_tokens // size) - overlap
        return self.overlap_score_weight * prefill_tokens / size + new_blocks + replica.active_blocks

    def choose(self, request: Arrival, replicas: Sequence[ReplicaState]) -> int:
        logits = [self.logit(request, r, i) for i, r in enumerate(replicas)]
        best = min(logits)
        return self._rng.choice([i for i, value in enumerate(logits) if value == best])


POLICIES = ("round-robin", "random", "session", "prefix-aware", "kv-cost")
#: The default speed model: a request's prefill and decode rates (tokens per second).
PREFILL_TPS = 10_000.0
DECODE_TPS = 50.0


@dataclass(frozen=True)
class Speed:
    """How fast a replica prefills and decodes, for logs without per-request durations."""

    prefill_tps: float = PREFILL_TPS
    decode_tps: float = DECODE_TPS


def make_policy(name: str, replicas: int, seed: int = 0) -> Policy:
    makers: dict[str, Callable[[], Policy]] = {
        "round-robin": RoundRobin,
        "random": lambda: Random(seed),
        "session": lambda: Session(replicas),
        "prefix-aware": PrefixAware,
        "kv-cost": lambda: KvCost(seed),
    }
    return makers[name]()
