"""N replicas behind a router: each replica its own simulator, load known at each arrival.

`Cluster` stands where one simulator stands in a replay (`serve(request) -> Outcome`): the
policy picks a replica for each request, whose simulator serves it to completion.

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
from typing import Any

from prefixlint.engines.base import Outcome
from prefixlint.engines.blockpool import _cached_prefix
from prefixlint.engines.request import Request
from prefixlint.replay.routing import Arrival, Policy, Speed
from prefixlint.replay.tally import Tally

DEFAULT_SPEED = Speed()


def radix_match(cache, tokens, salt) -> int:
    """The tokens of `tokens` a radix cache (prefixlint.engines.radix) holds, without touching
    its LRU order or dropping expired entries (a router only looks)."""
    node, depth = cache.root, 0
    while depth < len(tokens):
        child = node.children.get((salt, tokens[depth]) if node is cache.root else tokens[depth])
        if child is None or cache._expired(child):
            return depth
        run, limit = 0, min(len(child.tokens), len(tokens) - depth)
        while run < limit and child.tokens[run] == tokens[depth + run]:
            run += 1
        depth += run
        if run < len(child.tokens):
            return depth
        node = child
    return depth


@dataclass
class Replica:
    #: vLLM's block pool or SGLang's radix tree: a `Simulator`, whose `cache` and `block_hashes`
    #: the router's lookups read too.
    sim: Any
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

    def cached_tokens(self, request: Request, hashes: list[int]) -> int:
        """Tokens of the prompt this replica holds now (every whole block of it looked up)."""
        pool = getattr(self.sim, "pool", None)
        if pool is not None:  # vLLM's block pool
            table = pool._cached if pool._cached is not None else pool._map
            whole = min(request.prompt_tokens // pool.block_size, len(hashes))
            return min(_cached_prefix(hashes, whole, table) * pool.block_size, request.prompt_tokens)
        return radix_match(self.sim.cache, request.prompt, request.salt)


def session_key(request: Request, block_size: int) -> str:
    """The session a request belongs to; without one, its first block (as routers hash it)."""
    if request.session is not None:
        return request.session
    first = request.block_ids[:1] if request.block_ids is not None else request.prompt[:block_size]
    return f"{request.salt or ''}:{request.lora or ''}:{array('q', first).tobytes().hex()}"


class Cluster:
    """Replicas (simulators) behind one policy: serves a request as one simulator does."""

    def __init__(self, sims: list, policy: Policy, block_size: int, speed: Speed = DEFAULT_SPEED) -> None:
        self.replicas = [Replica(sim) for sim in sims]
        self.policy = policy
        self.block_size = block_size
        self.speed = speed
        #: None until the first request: then True when the log has timestamps.
        self.timed: bool | None = None
        self._now = 0.0

    @property
    def evicted_blocks(self) -> int:
        return sum(r.sim.evicted_blocks for r in self.replicas)

    def serve(self, request: Request) -> Outcome:
        if self.timed is None:
            self.timed = request.timestamp is not None
        if self.timed:
            if request.timestamp is not None:
                self._now = max(self._now, request.timestamp)
            for replica in self.replicas:
                replica.advance(self._now)
        replicas = self.replicas
        hashes: list[int] | None = None
        cached: dict[int, int] = {}

        def lookup(index: int) -> int:
            nonlocal hashes
            if index not in cached:
                if hashes is None:
                    hashes = replicas[0].sim.block_hashes(request)
                cached[index] = replicas[index].cached_tokens(request, hashes)
            return cached[index]

        size = self.block_size
        arrival = Arrival(request.prompt_tokens, size, session_key(request, size), lookup)
        chosen = replicas[self.policy.choose(arrival, replicas) if len(replicas) > 1 else 0]
        outcome = chosen.sim.serve(request)
        self._start(chosen, request, outcome.cached_tokens)
        return outcome

    def _start(self, replica: Replica, request: Request, cached: int) -> None:
        prompt, generated = request.prompt_tokens, request.generated_tokens
        replica.tally.add(prompt, cached)
        new = prompt - cached
        blocks = -(-(prompt + generated) // self.block_size)
        replica.inserted_tokens += new + generated
        replica.load += 1
        replica.active_blocks += blocks
        if not self.timed:  # one at a time: nothing finishes, prefill is over before the next
            return
        prefill = new / self.speed.prefill_tps
        duration = request.duration
        if duration is None:
            duration = prefill + generated / self.speed.decode_tps
        heapq.heappush(replica._running, (self._now + duration, blocks))
        heapq.heappush(replica._prefilling, (self._now + min(prefill, duration), new))
        replica.pending_prefill += new
