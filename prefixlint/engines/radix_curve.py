"""`replay --curve` for SGLang: its radix tree at every capacity of the grid, in one pass over the log.

LRU leaf eviction of a radix tree evicts whole leaves (sometimes more than it needs), so the
cache at one capacity is not the top of one LRU stack as vLLM's is. Instead each capacity
runs its own tree, exact by construction, from the moment it could first evict (it is a copy
of the unlimited tree until then): the cost grows with the number of points (four per
doubling), not with a stack distance per block as the vLLM curve's does.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Sequence

from prefixlint.engines.base import Outcome
from prefixlint.engines.curve import curve_points, grid
from prefixlint.engines.profiles import EngineProfile
from prefixlint.engines.request import Request
from prefixlint.engines.simulators import RadixSimulator


class RadixCurve:
    def __init__(self, profile: EngineProfile, ttl: float | None = None, overlap: bool | None = None,
                 curve_at: Sequence[int] = ()) -> None:
        self.unlimited = RadixSimulator(profile, None, ttl, overlap)
        self.block_size = profile.unit
        self.points: list[list] = []  # [pages, simulator, cached tokens, over capacity]
        self._grid = grid()
        self._next_grid = next(self._grid)
        self._pending = sorted({n // profile.unit for n in curve_at})
        self.unlimited_cached = self.prompt_tokens = self.duplicates = 0

    @property
    def evicted_blocks(self) -> int:
        return 0

    def serve(self, request: Request) -> Outcome:
        # At most, with the overlap token, plus the slack of SGLang's paged allocation: the
        # extend allocation asks one page more than the prompt's tokens and each page is taken
        # whole (`alloc_paged_token_slots_extend`, and a decode step a page), so a paged pool
        # evicts before it is full.
        # A pool refuses a prompt of `pool - 6` tokens or more (`max_req_input_len`), so a twin
        # starts before it too. A twin started early is still exact: it is a copy of a tree
        # that has not evicted.
        needed = len(request.prompt) + len(request.generated) + 7 + 3 * self.block_size
        reach = -(-(self.unlimited.cache.size + needed) // self.block_size)
        while self._next_grid < reach:
            self._pending.insert(bisect_left(self._pending, self._next_grid), self._next_grid)
            self._next_grid = next(self._grid)
        while self._pending and self._pending[0] < reach:
            pages = self._pending.pop(0)
            if not self.points or self.points[-1][0] < pages:
                twin = RadixSimulator.__new__(RadixSimulator)
                twin.cache, twin.overlap = self.unlimited.cache.copy(pages * self.block_size), self.unlimited.overlap
                self.points.append([pages, twin, self.unlimited_cached, 0])
        for point in self.points:
            outcome = point[1].serve(request)
            point[2] += outcome.cached_tokens
            point[3] += outcome.over_capacity
        outcome = self.unlimited.serve(request)
        self.unlimited_cached += outcome.cached_tokens
        self.prompt_tokens += request.prompt_tokens
        return outcome

    def curve(self, curve_at: Sequence[int] = ()) -> list[dict]:
        return curve_points(self, curve_at)
