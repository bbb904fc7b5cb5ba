"""N replicas behind a router: each replica its own prefix cache, load known at each arrival.

`Cluster` stands where one cache stands in a replay (`serve(prompt, generated, salt)`): the
policy picks a replica for each request, which serves it to completion in its own cache.

Load needs time. When the log has timestamps, a request arrives at its timestamp and stays
in flight for its duration: the log's own (`duration`, `duration_ms`, `end_timestamp` on
the wrapper line) or `uncached prompt tokens / prefill_tps + generated tokens / decode_tps`;
its prompt is being prefilled for the first part. At each arrival the requests that have
finished leave their replica. A log without timestamps is served one request at a time:
nothing finishes, so the load of a replica is everything routed to it so far.
"""

from __future__ import annotations

import heapq
from array import array
from dataclasses import dataclass, field
from typing import Sequence

from prefixlint.match.blockpool import Outcome, VllmPrefixCache, _cached_prefix
from prefixlint.match.replay import Tally
from prefixlint.replay.routing import Arrival, Policy

#: The default speed model: a request's prefill and decode rates (tokens per second).
PREFILL_TPS = 10_000.0
DECODE_TPS = 50.0


@dataclass(frozen=True)
class RouteInfo:
    """What the router needs of a request besides its tokens."""

    #: user, metadata.session_id or a trace's chat_id; None: the first block decides.
    session: str | None = None
    #: Arrival, seconds since any fixed origin; None: the log has no clock.
    arrival: float | None = None
    #: How long the request was in flight, from the log; None: from the speed model.
    duration: float | None = None


@dataclass(frozen=True)
class Speed:
    prefill_tps: float = PREFILL_TPS
    decode_tps: float = DECODE_TPS


@dataclass
class Replica:
    cache: object
    tally: Tally = field(default_factory=Tally)
    load: int = 0
    active_blocks: int = 0
    pending_prefill: int = 0
    inserted_tokens: int = 0
    #: (end, blocks) and (prefill end, tokens) of the requests in flight.
    _running: list = field(default_factory=list)
    _prefilling: list = field(default_factory=list)

    def advance(self, now: float) -> None:
        running, prefilling = self._running, self._prefilling
        while running and running[0][0] <= now:
            self.active_blocks -= heapq.heappop(running)[1]
            self.load -= 1
        while prefilling and prefilling[0][0] <= now:
            self.pending_prefill -= heapq.heappop(prefilling)[1]

    def cached_tokens(self, prompt: Sequence[int], hashes: list[int], salt: str | None) -> int:
        """Tokens of the prompt this replica holds (all its full blocks looked up)."""
        cache = self.cache
        if isinstance(cache, VllmPrefixCache):
            table = cache._cached if cache._cached is not None else cache._map
            return _cached_prefix(hashes, len(hashes), table) * cache.block_size
        trees = cache._trees.get(salt)  # ProfilePrefixCache: an unlimited radix tree per salt
        return trees[0].longest_match(prompt).length if trees else 0


def session_key(info: RouteInfo, prompt: Sequence[int], block_size: int, salt: str | None) -> str:
    if info.session is not None:
        return info.session
    first = array("q", prompt[:block_size]).tobytes().hex()
    return f"{salt or ''}:{first}"


class Cluster:
    """Replicas behind one policy; `route(info)` before each `serve`."""

    def __init__(self, caches: list, policy: Policy, block_size: int, speed: Speed = Speed()) -> None:
        self.replicas = [Replica(cache) for cache in caches]
        self.policy = policy
        self.block_size = block_size
        self.speed = speed
        #: None until the first request: then True when the log has timestamps.
        self.timed: bool | None = None
        self._now = 0.0
        self._info = RouteInfo()

    @property
    def evicted_blocks(self) -> int:
        return sum(r.cache.evicted_blocks for r in self.replicas)

    def route(self, info: RouteInfo) -> None:
        self._info = info

    def _hashes(self, prompt: Sequence[int], salt: str | None) -> list[int]:
        cache = self.replicas[0].cache
        return cache._hashes(list(prompt), salt) if isinstance(cache, VllmPrefixCache) else []

    def serve(self, prompt: Sequence[int], generated: Sequence[int] = (), salt: str | None = None) -> Outcome:
        info = self._info
        if self.timed is None:
            self.timed = info.arrival is not None
        if self.timed:
            self._now = max(self._now, info.arrival) if info.arrival is not None else self._now
            for replica in self.replicas:
                replica.advance(self._now)
        replicas = self.replicas
        hashes: list[int] | None = None
        cached: dict[int, int] = {}

        def lookup(index: int) -> int:
            nonlocal hashes
            if index not in cached:
                if hashes is None:
                    hashes = self._hashes(prompt, salt)
                cached[index] = replicas[index].cached_tokens(prompt, hashes, salt)
            return cached[index]

        size = self.block_size
        arrival = Arrival(len(prompt), size, session_key(info, prompt, size, salt), lookup)
        chosen = replicas[self.policy.choose(arrival, replicas) if len(replicas) > 1 else 0]
        outcome = chosen.cache.serve(prompt, generated, salt)
        self._start(chosen, len(prompt), len(generated), outcome.cached_tokens)
        return outcome

    def _start(self, replica: Replica, prompt: int, generated: int, cached: int) -> None:
        replica.tally.add(prompt, cached)
        new = prompt - cached
        blocks = -(-(prompt + generated) // self.block_size)
        replica.inserted_tokens += new + generated
        replica.load += 1
        replica.active_blocks += blocks
        if not self.timed:  # one at a time: nothing finishes, prefill is over before the next
            return
        prefill = new / self.speed.prefill_tps
        duration = self._info.duration
        if duration is None:
            duration = prefill + generated / self.speed.decode_tps
        heapq.heappush(replica._running, (self._now + duration, blocks))
        heapq.heappush(replica._prefilling, (self._now + min(prefill, duration), new))
        replica.pending_prefill += new
