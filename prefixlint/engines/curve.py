"""The hit rate at every cache capacity in one pass: stack distances in vLLM's eviction order.

Between requests vLLM's free queue is [empty blocks][cached blocks, least recently used
first], and a request's blocks go back most recent first from its first block (freed tail
first): block 0 of the request last served is the most recently used. So one LRU stack S of
distinct block hashes serves every capacity: with K blocks, the cached blocks are the top
K - E_K of S, where E_K (the empty blocks) evolves as E <- max(E - newly cached blocks,
blocks left without a hash), a number per capacity. Nothing is evicted from S; a block's
parent is always above it, so a request's blocks in S are a prefix of it with depths rising
along it, and its hit at capacity K is how many of its first `max_hit` blocks lie above
K - E_K (a request's blocks are only useful up to its first miss).

Depths come cheaply: each request pushes its blocks as one *group* (its serial number), block
j at position j; a later request takes a prefix of a group's live blocks, so a block's depth
is (live blocks in newer groups, a Fenwick sum over groups) + (j - the group's first live
position). Capacities are simulated only from the moment they could evict (K < |S| + the
blocks a request needs); until then each is the unlimited cache.

Where it differs from the bounded simulator (`VllmPrefixCache`):
- vLLM never looks up a block past `max_hit` (the last block of a prompt that fills whole
  blocks, every block of a request that skips the lookup): it caches it again and keeps both
  copies. Here the hash moves to the top of S; the simulator also keeps the old copy, which
  takes a block until it is evicted. `duplicates` counts those blocks; the tests bound the
  difference by them (docs/replay.md).
- A request needing more blocks than the whole cache is refused by the simulator and served
  here; `over_capacity` counts them per capacity.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Iterator, Sequence

from prefixlint.engines.base import Outcome
from prefixlint.engines.blockpool import VllmPrefixCache, _cached_prefix, root_key
from prefixlint.engines.request import Request

#: Grid points per doubling of capacity.
STEPS_PER_DOUBLING = 4
_MASK = (1 << 32) - 1


def grid() -> Iterator[int]:
    """1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 13, 16, ... blocks: 2 ** (k / 4) rounded, each once."""
    last, k = 0, 0
    while True:
        value = round(2 ** (k / STEPS_PER_DOUBLING))
        k += 1
        if value > last:
            last = value
            yield value


class _Fenwick:
    """Live blocks per group; sums over groups up to g. Grows by doubling."""

    def __init__(self, size: int = 1 << 12) -> None:
        self.counts = [0] * size
        self.tree = [0] * (size + 1)

    def add(self, g: int, delta: int) -> None:
        if g >= len(self.counts):
            self._grow(g)
        self.counts[g] += delta
        tree, i, n = self.tree, g + 1, len(self.tree)
        while i < n:
            tree[i] += delta
            i += i & -i

    def upto(self, g: int) -> int:
        tree, i, total = self.tree, g + 1, 0
        while i > 0:
            total += tree[i]
            i -= i & -i
        return total

    def _grow(self, g: int) -> None:
        size = len(self.counts)
        while size <= g:
            size *= 2
        self.counts += [0] * (size - len(self.counts))
        tree = [0, *self.counts]
        for i in range(1, size + 1):  # linear build
            parent = i + (i & -i)
            if parent <= size:
                tree[parent] += tree[i]
        self.tree = tree


class CurveSimulator:
    """Serves requests unlimited (the outcome the report tallies) and keeps the curve."""

    def __init__(self, block_size: int, curve_at: Sequence[int] = ()) -> None:
        self.pool = VllmPrefixCache(block_size)
        self.block_size = block_size
        self.evicted_blocks = 0
        #: Capacities in blocks not yet simulated, ascending: the grid and --curve-at.
        self._grid = grid()
        self._pending: list[int] = sorted({n // block_size for n in curve_at})
        self._next_grid = next(self._grid)
        import numpy  # only for --curve

        self._np = numpy
        #: Per simulated capacity, ascending: blocks K, empty blocks E, cached tokens, requests
        #: over capacity; numpy arrays, so that a request updates them all in a few C loops.
        self._k, self._e, self._cached, self._over = (numpy.zeros(0, dtype=numpy.int64) for _ in range(4))
        self.unlimited_cached = 0
        self.duplicates = 0
        self.requests = self.prompt_tokens = 0
        self._where: dict[int, int] = {}  # hash -> (group << 32) | position
        self._first_live: list[int] = []
        self._live = _Fenwick()
        self._total = 0

    def serve(self, request: Request) -> Outcome:
        pool, size = self.pool, self.block_size
        if request.block_ids is not None:
            hashes = pool._chain(request.block_ids, request.salt, request.lora)
            max_hit = len(hashes)
            needed = max(len(hashes), -(-(request.prompt_tokens + request.output_length) // size))
            seq = None
        else:
            seq = [*request.prompt, *request.generated]
            hashes = pool._hashes(seq, request.salt, request.lora)
            max_hit = 0 if request.skip_lookup or not request.prompt else (len(request.prompt) - 1) // size
            needed = -(-len(seq) // size)
        outcome = pool._serve(seq, hashes, max_hit, needed, root_key(request.salt, request.lora))
        if request.block_ids is not None:
            outcome = outcome._replace(cached_tokens=min(outcome.cached_tokens, request.prompt_tokens))
        self._spawn(needed)
        self._step(hashes, max_hit, needed, request.prompt_tokens if request.block_ids is not None else None)
        self.requests += 1
        self.prompt_tokens += request.prompt_tokens
        self.unlimited_cached += outcome.cached_tokens
        return outcome

    def _spawn(self, needed: int) -> None:
        """Start simulating the capacities that this request could make evict."""
        reach = self._total + needed
        while self._next_grid < reach:
            self._pending.insert(bisect_left(self._pending, self._next_grid), self._next_grid)
            self._next_grid = next(self._grid)
        np = self._np
        while self._pending and self._pending[0] < reach:
            blocks = self._pending.pop(0)
            if blocks and (not len(self._k) or self._k[-1] < blocks):
                self._k = np.append(self._k, blocks)
                self._e = np.append(self._e, blocks - self._total)
                self._cached = np.append(self._cached, self.unlimited_cached)
                self._over = np.append(self._over, 0)

    @property
    def points(self) -> list[list[int]]:
        """[blocks, empty blocks, cached tokens, requests over capacity] per simulated capacity."""
        return [list(map(int, row)) for row in zip(self._k, self._e, self._cached, self._over)]

    def _runs(self, hashes: list[int], in_s: int) -> list[tuple[int, int, int]]:
        """(group, first block, blocks) of each run of the request's blocks in S, in order."""
        where, runs, j = self._where, [], 0
        while j < in_s:
            group = where[hashes[j]] >> 32
            base = group << 32
            lo, hi = j + 1, in_s  # the run ends where the blocks stop being this group's
            while lo < hi:
                mid = (lo + hi) // 2
                if where[hashes[mid]] == base | mid:
                    lo = mid + 1
                else:
                    hi = mid
            runs.append((group, j, lo - j))
            j = lo
        return runs

    def _step(self, hashes: list[int], max_hit: int, needed: int, input_length: int | None) -> None:
        where, live, first_live = self._where, self._live, self._first_live
        in_s = _cached_prefix(hashes, len(hashes), where)
        useful = min(in_s, max_hit)
        self.duplicates += in_s - useful
        runs = self._runs(hashes, in_s)
        depths = [(self._total - live.upto(g), start, min(count, useful - start))
                  for g, start, count in runs if start < useful]
        n, size, partial = len(hashes), self.block_size, needed - len(hashes)
        if len(self._k):
            # A capacity's hit: the blocks above K - E. Depths rise along the request, run after
            # run, so the hit is the sum over runs of what each run has above the limit.
            np, limit = self._np, self._k - self._e
            hit = np.zeros_like(limit)
            for depth, _, count in depths:
                hit += np.clip(limit - depth, 0, count)
            cached = hit * size
            self._cached += cached if input_length is None else np.minimum(cached, input_length)
            self._e = np.maximum(self._e - (n - hit), partial)
            self._over += self._k < needed
        for g, _, count in runs:  # the request takes these blocks: the prefix of each group
            live.add(g, -count)
            first_live[g] += count
        group = len(first_live)
        first_live.append(0)
        where.update(zip(hashes, range(group << 32, (group << 32) + n)))
        live.add(group, n)
        self._total += n - in_s

    def curve(self, curve_at: Sequence[int] = ()) -> list[dict]:
        return curve_points(self, curve_at)


def curve_points(sim, curve_at: Sequence[int] = ()) -> list[dict]:
    """Points from one block to the first that reaches the unlimited hit rate, and every
    --curve-at capacity (tokens, as given). `sim`: `points` ([blocks, _, cached tokens,
    requests over capacity], ascending), `_next_grid` (the first grid capacity never
    simulated: the unlimited cache), `unlimited_cached`, `prompt_tokens`, `block_size`."""
    size, total = sim.block_size, sim.prompt_tokens
    simulated = {p[0]: p for p in sim.points}
    wanted = {n // size: n for n in curve_at}
    simulated.setdefault(sim._next_grid, None)
    out = []
    reached = False
    for blocks in sorted(simulated.keys() | wanted.keys()):
        point = simulated.get(blocks)
        cached = point[2] if point is not None else sim.unlimited_cached
        if reached and blocks not in wanted:
            continue
        out.append({"cache_tokens": wanted.get(blocks, blocks * size), "cached_tokens": cached,
                    "hit_rate": round(cached / total, 6) if total else 0.0,
                    "over_capacity_requests": point[3] if point is not None else 0})
        reached = reached or cached >= sim.unlimited_cached
    return out
