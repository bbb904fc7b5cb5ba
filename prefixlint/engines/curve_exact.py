"""A capacity of the one-pass curve handed over to a real bounded pool, built from the stack.

The stack analysis (`curve.py`) is exact at capacity K as long as no request is refused for
needing more than K blocks and no request caches again a block that is still cached at K (a
block past vLLM's lookup cap, `max_hit`: vLLM keeps both copies, the stack keeps one). At the
first such request the capacity is handed to a bounded `VllmPrefixCache` whose state is read
off the stack: between requests vLLM's free queue is [blocks without a hash][cached blocks,
least recently used first], and the cached blocks at K are the top K - E_K of the stack in
that order. Block ids are labels (the blocks without a hash are interchangeable), so the pool
built that way serves every later request exactly as a pool run from the start would. From
then on the capacity costs one bounded simulation; capacities that never meet such a request
stay in the stack analysis.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Iterable

from prefixlint.engines.blockpool import VllmPrefixCache


class CountingPool(VllmPrefixCache):
    """A bounded pool that only counts (no miss causes: the curve's outcome comes from the
    unlimited pool), with the point's running totals."""

    def __init__(self, block_size: int, capacity_blocks: int, cached: int, over: int) -> None:
        super().__init__(block_size, capacity_blocks)
        self._evicted_limit = 0
        self.cached_total, self.over_total = cached, over

    def _miss(self, seq, hashes, hit, max_hit, root):  # type: ignore[override]
        return None

    def _remember(self, seq, hashes, first, root) -> None:
        return None


def materialize(block_size: int, capacity: int, empty: int, top: Iterable[int], cached: int,
                over: int) -> CountingPool:
    """The pool at `capacity` blocks whose cached blocks are `top` (the stack from its top,
    most recently used first: capacity - empty hashes) and whose other blocks are empty."""
    pool = CountingPool(block_size, capacity, cached, over)
    recent = list(top)
    assert len(recent) == capacity - empty, (len(recent), capacity, empty)
    ids = range(capacity, empty, -1)  # the most recent gets the last id: the tail of the queue
    pool._block_hash[empty + 1:] = reversed(recent)
    pool._map = dict(zip(recent, ids))
    pool._free = OrderedDict((b, None) for b in range(1, capacity + 1))
    return pool
