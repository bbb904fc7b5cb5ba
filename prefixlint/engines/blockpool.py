"""vLLM's prefix cache, modelled block for block, for requests served one after another.

Read from vLLM's v1 KV-cache manager (`vllm/v1/core/block_pool.py`, `kv_cache_utils.py`,
`kv_cache_manager.py`, `single_type_kv_cache_manager.py`):

- Only full blocks are cached. Block i's hash chains its parent's hash, its tokens and extra
  keys (`generate_block_hash_extra_keys`: a LoRA adapter on every block, `cache_salt` on the
  first only), so through the chain a different salt or adapter never matches.
- Lookup (`get_computed_blocks`) walks the request's block hashes up to
  `max_cache_hit_length = num_tokens - 1` and stops at the first miss.
- Hit blocks are touched; new blocks are popped from the head of the free queue, evicting
  the hash they held (`_maybe_evict_cached_block`). Duplicates of one hash are kept and a
  lookup takes the first one cached (`BlockHashToBlockMap`).
- Blocks are cached as they fill, prompt and generated ones alike (`cache_full_blocks`).
- A finished request frees its blocks tail first (`reversed(req_blocks)`); `free_blocks`
  puts blocks without a hash at the head of the free queue (reused first) and cached ones
  at the tail, in that order: the least recently used block is evicted first, and of one
  request's blocks the end of the chain goes before its beginning. Block 0 is the null block.

Shortcuts give the same results faster (tests check them against a plain reference pool):
the hit length by bisection (`_cached_prefix`); the free queue as an OrderedDict whose
blocks only move (every block is in it between requests), read from its head with `islice`,
hit blocks moved out of the way only when the new blocks would reach them.

Traces (`serve_blocks`) chain their block ids the same way. Not modelled: concurrency,
preemption, speculative decoding, hybrid KV-cache groups. Python's hash stands in for sha256.
"""

from __future__ import annotations

import struct
from collections import OrderedDict, deque
from functools import lru_cache
from itertools import islice, repeat
from typing import Any, Callable, Hashable, Iterable, Sequence

from prefixlint.engines.base import Miss, Outcome

#: Parent of the first block (vLLM seeds it from PYTHONHASHSEED or random bytes).
NONE_HASH = hash(("prefixlint", "vllm NONE_HASH"))


def root_key(salt: str | None, lora: Hashable | None) -> int:
    """The place before a request's first block (another salt or adapter: another place)."""
    return hash((NONE_HASH, salt, lora))


#: Runs an iterator to its end: `_each(map(f, xs))` calls f on every x in C.
_each: Callable[[Iterable[Any]], None] = deque[Any](maxlen=0).extend


@lru_cache(maxsize=4096)
def _packing(count: int) -> struct.Struct:
    """`count` tokens as 8-byte integers (`pack` is about three times faster than `array("q")`,
    which parses each item's argument)."""
    return struct.Struct(f"{count}q")


def _cached_prefix(hashes: Sequence[int], max_hit: int, cached) -> int:
    """How many leading blocks of a request are in `cached` (a set or the block table).

    Cached blocks always form a prefix of a request: nothing is cached without its parent, and
    a block is evicted before its parent (freed tail first, and a request that uses a block
    uses its parent too and frees it later). So the count is found by bisection.
    """
    hit, end = 0, max_hit
    while hit < end:
        middle = (hit + end) // 2
        if hashes[middle] in cached:
            hit = middle + 1
        else:
            end = middle
    return hit


class VllmPrefixCache:
    """The prefix cache of one vLLM instance. `capacity_blocks` None: unlimited memory."""

    def __init__(self, block_size: int = 16, capacity_blocks: int | None = None) -> None:
        if block_size < 1:
            raise ValueError("block_size must be at least 1")
        self.block_size = block_size
        self.capacity_blocks = capacity_blocks
        self.evicted_blocks = 0
        #: parent hash -> where the tokens of the block cached most recently after it are:
        #: (segment << 32) | offset. A segment holds the newly cached tokens of one request,
        #: one packed run of 8-byte integers per request rather than an object per block.
        self._children: dict[int, int] = {}
        self._segments: list[bytes] = []
        self._block = _packing(block_size)
        if capacity_blocks is None:
            self._cached: set[int] | None = set()
            return
        if capacity_blocks < 1:
            raise ValueError("the cache must hold at least one block")
        self._cached = None
        #: Hashes evicted and not cached again, oldest first, to tell an eviction from a
        #: divergence; the oldest are forgotten past a few cache-fulls.
        self._evicted: OrderedDict[int, None] = OrderedDict()
        self._evicted_limit = max(4 * capacity_blocks, 1 << 16)
        # Block 0 is vLLM's null block: the pool has capacity_blocks + 1 blocks.
        self._block_hash: list[int | None] = [None] * (capacity_blocks + 1)
        #: hash -> the first block cached with it that is still cached (vLLM's lookup takes
        #: that one); later duplicates of the same hash, in caching order, in `_duplicates`.
        self._map: dict[int, int] = {}
        self._duplicates: dict[int, list[int]] = {}
        #: The free queue, head first: eviction order.
        self._free: OrderedDict[int, None] = OrderedDict((b, None) for b in range(1, capacity_blocks + 1))

    def _hashes(self, seq: list[int], salt: str | None, lora: Hashable | None = None) -> list[int]:
        return self._chain(zip(*[iter(seq)] * self.block_size), salt, lora)  # full blocks, as tuples

    @staticmethod
    def _chain(blocks, salt: str | None, lora: Hashable | None) -> list[int]:
        """Chain hashes: vLLM's extra keys are the LoRA key on every block, then the salt on
        the first one only (`generate_block_hash_extra_keys`)."""
        blocks = iter(blocks)
        first = next(blocks, None)
        if first is None:
            return []
        extra = (*((lora,) if lora is not None else ()), *((salt,) if salt else ()))
        parent = hash((NONE_HASH, first, extra or None))
        hashes = [parent]
        append = hashes.append
        if lora is None:  # the salt is an extra key of the first block only
            for tokens in blocks:
                parent = hash((parent, tokens))
                append(parent)
        else:
            for tokens in blocks:
                parent = hash((parent, tokens, lora))
                append(parent)
        return hashes

    def serve(self, prompt: Sequence[int], generated: Sequence[int] = (), salt: str | None = None,
              lora: Hashable | None = None, skip_lookup: bool = False) -> Outcome:
        """Serve one request to completion. `generated`: the generated tokens whose KV was
        computed (every one but the last sampled, which ends the request)."""
        size = self.block_size
        seq = prompt if not generated and type(prompt) is list else [*prompt, *generated]
        hashes = self._hashes(seq, salt, lora)
        max_hit = 0 if skip_lookup or not prompt else (len(prompt) - 1) // size
        return self._serve(seq, hashes, max_hit, -(-len(seq) // size), root_key(salt, lora))

    def serve_blocks(self, block_ids: Sequence[int], input_length: int, output_length: int = 0,
                     salt: str | None = None, lora: Hashable | None = None) -> Outcome:
        """Serve a hashed-block trace's request: one id per block of the prompt (the last one
        possibly partial, and looked up too); the generated tokens take blocks while it runs."""
        hashes = self._chain(block_ids, salt, lora)
        needed = max(len(hashes), -(-(input_length + output_length) // self.block_size))
        outcome = self._serve(None, hashes, len(hashes), needed, root_key(salt, lora))
        return outcome._replace(cached_tokens=min(outcome.cached_tokens, input_length))

    def _serve(self, seq: list[int] | None, hashes: list[int], max_hit: int, needed: int, root: int) -> Outcome:
        """`root`: the place before the first block (`root_key`), for divergences."""
        size = self.block_size
        if self._cached is not None:
            cached = self._cached  # unlimited: a set of hashes, nothing is ever evicted
            hit = _cached_prefix(hashes, max_hit, cached)
            miss = self._miss(seq, hashes, hit, max_hit, root)
            first = hit
            while first < len(hashes) and hashes[first] in cached:  # a repeat beyond the cap
                first += 1
            if first < len(hashes):
                self._remember(seq, hashes, first, root)
                cached.update(hashes[first:])
            return Outcome(hit * size, miss)
        return self._serve_bounded(seq, hashes, max_hit, needed, root)

    def _remember(self, seq: list[int] | None, hashes: list[int], first: int, root: int) -> None:
        """Record blocks first.. as the latest children of their parents (for divergences);
        for a trace (no tokens), the child's hash."""
        size = self.block_size
        children = self._children
        parent = hashes[first - 1] if first else root
        if seq is None:
            children[parent] = hashes[first]
            children.update(zip(hashes[first:-1], hashes[first + 1:]))
            return
        segment = len(self._segments) << 32
        tokens = seq[first * size:len(hashes) * size]
        self._segments.append(_packing(len(tokens)).pack(*tokens))
        children[parent] = segment
        children.update(zip(hashes[first:-1], range(segment + size, segment + (len(hashes) - first) * size, size)))

    def _miss(self, seq, hashes, hit, max_hit, root) -> Miss | None:
        if hit >= max_hit:
            return None
        size = self.block_size
        key = hashes[hit - 1] if hit else root
        start = hit * size
        if self._cached is None and hashes[hit] in self._evicted:
            return Miss("evicted", start, key, () if seq is None else tuple(seq[start:start + size]))
        where = self._children.get(key)
        if where is None:
            return Miss("new", start, key, ())
        if seq is None:  # a trace: another block after the same parent is a divergence
            return Miss("evicted" if where == hashes[hit] else "diverged" if hit else "new", start, key, ())
        offset = where & 0xFFFFFFFF
        tokens = self._block.unpack_from(self._segments[where >> 32], offset * 8)
        common = 0
        for mine, cached in zip(seq[start:start + size], tokens):  # one block: no faster way in Python
            if mine != cached:
                break
            common += 1
        if start + common == 0:  # nothing in common with anything cached: unrelated, not a divergence
            return Miss("new", 0, key, ())
        if common >= size:  # this very block was cached after the same parent, and is gone
            return Miss("evicted", start, key, tokens)
        return Miss("diverged", start + common, key, tokens[common:])

    def _serve_bounded(self, seq, hashes, max_hit, needed, root) -> Outcome:
        size = self.block_size
        table, free = self._map, self._free
        hit = _cached_prefix(hashes, max_hit, table)
        miss = self._miss(seq, hashes, hit, max_hit, root)
        if needed > self.capacity_blocks:
            return Outcome(0, miss, over_capacity=True)  # refused: never served, nothing cached
        # Every block is always in the free queue (requests are served one at a time and
        # each gives all its blocks back): blocks only move in it, each step below one pass
        # in C over a request's blocks. New blocks come from the head of the queue.
        hits = list(map(table.__getitem__, hashes[:hit]))
        move = free.move_to_end
        new = list(islice(free, needed - hit))
        if hits and not set(hits).isdisjoint(new):
            # vLLM takes the hit blocks out of the queue while the request runs: move them
            # to its tail, out of the way (a request needs at most the whole pool); they go
            # back there when it ends.
            _each(map(move, hits))
            new = list(islice(free, needed - hit))
        self._evict(new)
        # The full ones are cached as they fill; at most the last one is partial.
        full = new[:len(hashes) - hit]
        self._cache(full, hashes[hit:])
        if hit < len(hashes):
            self._remember(seq, hashes, hit, root)
        # Freed tail first: the cached blocks go to the tail of the queue, last block first;
        # the partial block (no hash) to its head, where it already is once they have gone.
        _each(map(move, reversed(full)))
        _each(map(move, reversed(hits)))
        for block in new[len(full):]:
            self._block_hash[block] = None
            move(block, last=False)
        return Outcome(hit * size, miss)

    def _evict(self, blocks: list[int]) -> None:
        """Forget the hashes of cached blocks taken from the free queue; a hash no block holds
        any more is remembered as evicted (the newest `_evicted_limit` of them)."""
        gone = [h for h in map(self._block_hash.__getitem__, blocks) if h is not None]
        self.evicted_blocks += len(gone)
        if self._duplicates and not self._duplicates.keys().isdisjoint(gone):
            gone = [h for b in blocks if (h := self._block_hash[b]) is not None and self._unmap(b, h)]
        else:  # each of these hashes is held by this block alone
            _each(map(self._map.__delitem__, gone))
        evicted = self._evicted
        evicted.update(dict.fromkeys(gone))
        _each(map(evicted.popitem, repeat(False, len(evicted) - self._evicted_limit)))

    def _unmap(self, block: int, h: int) -> bool:
        """Take a block holding a duplicated hash out of the map; True if it was the last."""
        others = self._duplicates.get(h)
        if self._map[h] == block:
            if not others:
                del self._map[h]
                return True
            self._map[h] = others.pop(0)  # the next one cached takes its place
        else:
            assert others is not None  # a block that is not the map's entry is a duplicate
            others.remove(block)
        if not others:
            del self._duplicates[h]
        return False

    def _cache(self, blocks: list[int], hashes: list[int]) -> None:
        """Give new blocks their hashes; vLLM does not de-duplicate: a hash cached already
        keeps its first block, the later ones are kept in `_duplicates`."""
        _each(map(self._block_hash.__setitem__, blocks, hashes))
        if self._evicted:
            _each(map(self._evicted.pop, hashes, repeat(None)))
        table = self._map
        if table.keys().isdisjoint(hashes):
            table.update(zip(hashes, blocks))
            return
        for block, h in zip(blocks, hashes):
            if h in table:
                self._duplicates.setdefault(h, []).append(block)
            else:
                table[h] = block

    def free_queue(self) -> list[int]:
        """Block ids in eviction order (head first); for tests."""
        return list(self._free) if self._cached is None else []

    def cached_blocks(self) -> int:
        if self._cached is not None:
            return len(self._cached)
        return len(self._map) + sum(map(len, self._duplicates.values()))
