"""SGLang 0.5.23 with a bounded KV pool, driven on the CPU: its own `RadixCache`, its own token
allocator (`TokenToKVPoolAllocator`, or `PagedTokenToKVPoolAllocator` for pages above one token)
and its own allocation functions, called where the scheduler calls them. Used by
`oracle_campaign.py --sglang-pools`; needs SGLang installed (not a dependency of prefixlint).

One request at a time, served to completion (batch size 1), as the vLLM oracle does. The steps,
with the 0.5.23 sources they follow (python/sglang/srt/...):

- admission: a prompt of `max_req_input_len` tokens or more is refused before it is queued
  (`managers/scheduler.py:3231`, `validate_input_length` in `managers/utils.py:272`), with
  `max_req_input_len = min(context_len - 1, kv_capacity - 1) - 5` (`managers/tp_worker.py:568-572`):
  it is never looked up, so it reports no cached tokens.
- match: `Req.init_next_round_input` (`managers/schedule_batch.py:1692-1740`) matches
  `origin_input_ids` capped at `input_len - 1` (`_compute_max_prefix_len`, :1766-1785), keyed by
  `extra_key` (the adapter) and `cache_salt` (`_req_radix_key`, `mem_cache/common.py:193-212`),
  and locks the matched node.
- prefill: `alloc_for_extend` (`mem_cache/allocation.py:374`) -> `alloc_token_slots` (:152, page 1:
  the extend tokens) or `alloc_paged_token_slots_extend` (:175, the extend tokens plus one page per
  request), each calling `evict_from_tree_cache` (`mem_cache/common.py:283`) ->
  `evict_to_free_tokens` (`mem_cache/allocator/base.py:155-169`), which evicts the *shortfall*
  (`num_tokens - available_size()`) with `RadixCache.evict` (`mem_cache/radix_cache.py:552`).
- each decode step: `check_decode_mem` (`managers/schedule_batch.py:3432`: a page when the
  committed length is page-aligned, `new_tokens_required_next_decode` :3403-3417) evicts its
  shortfall (`check_decode_capacity`, allocator/base.py:171-185), then `alloc_for_decode_default`
  (allocation.py:625) allocates one slot (`alloc_token_slots`) or, paged,
  `alloc_paged_token_slots_decode` (:572, a page's shortfall evicted at every step).
- the overlap scheduler: `event_loop_overlap` sets `enable_skip_finishing_decode`
  (`managers/scheduler.py:2061-2063`); `update_running_batch` leaves out of the next decode step a
  request whose next output finishes it by length (`_reqs_finishing_inflight`, :4444-4457, with
  `next_output_finishes_by_length`, schedule_batch.py:1661-1663), so the token sampled last gets
  its KV computed after a `stop` and not after a `length` finish. Without overlap no step runs
  after the last token is sampled.
- finish: `release_kv_cache` (`mem_cache/common.py:400-445`) -> `RadixCache.checkpoint`
  (radix_cache.py:510-543): the page-aligned key of `(origin_input_ids + output_ids)[:owned_kv_len]`
  inserted, then the prompt key inserted again so the leaf splits at the prompt boundary
  (`_insert_cache(split_prompt=True)`, :450-508), then matched again; then the row's own slots
  freed and the lock dropped.

`time.monotonic` inside radix_cache.py is replaced by a counter, so every call SGLang makes gets
its own, later time (as on a real clock) and the run is repeatable.
"""

from __future__ import annotations

import itertools
from array import array
from types import SimpleNamespace

CONTEXT_LEN = 1 << 20


class SglangPoolOracle:
    """SGLang's tree over a real allocator of `capacity` tokens (None: a pool far larger than
    the traffic)."""

    def __init__(self, page: int, capacity: int, overlap: bool) -> None:
        import torch
        from sglang.srt.mem_cache import radix_cache
        from sglang.srt.mem_cache.allocator.paged import PagedTokenToKVPoolAllocator
        from sglang.srt.mem_cache.allocator.token import TokenToKVPoolAllocator
        from sglang.srt.mem_cache.cache_init_params import CacheInitParams

        clock = itertools.count(1)
        radix_cache.time = SimpleNamespace(monotonic=lambda: float(next(clock)), perf_counter=lambda: 0.0)
        if page == 1:
            allocator = TokenToKVPoolAllocator(capacity, torch.int64, "cpu", None, False)
        else:
            allocator = PagedTokenToKVPoolAllocator(capacity, page, torch.int64, "cpu", None, False)
            allocator.use_triton_kernels = False
        self.pool = SimpleNamespace(req_to_token=torch.zeros((1, 1 << 16), dtype=torch.int64))
        self.pool.write = lambda index, values: self.pool.req_to_token.__setitem__(index, values)
        self.tree = radix_cache.RadixCache(CacheInitParams(disable=False, req_to_token_pool=self.pool,
                                                           token_to_kv_pool_allocator=allocator, page_size=page))
        self.allocator, self.page, self.overlap = allocator, page, overlap
        self.max_req_input_len = min(CONTEXT_LEN - 1, capacity - 1) - 5
        self.torch = torch

    def serve(self, turn) -> int | None:
        """The prompt tokens served from cache; None: refused (too long for the pool, or out of
        memory with nothing left to evict)."""
        from sglang.srt.mem_cache.allocation import (
            alloc_paged_token_slots_decode,
            alloc_paged_token_slots_extend,
            alloc_token_slots,
        )
        from sglang.srt.mem_cache.base_prefix_cache import MatchPrefixParams
        from sglang.srt.mem_cache.radix_cache import RadixKey

        torch, tree, page, allocator = self.torch, self.tree, self.page, self.allocator
        prompt = list(turn.prompt)
        if len(prompt) >= self.max_req_input_len:
            return None
        extra = turn.lora[0] if turn.lora is not None else None
        key = RadixKey(array("q", prompt), extra_key=extra, limit=max(len(prompt) - 1, 0), cache_salt=turn.salt)
        match = tree.match_prefix(MatchPrefixParams(key=key))
        cached, node = match.device_prefix_len, match.last_device_node
        lock = tree.lock(node)
        row = self.pool.req_to_token[0]
        row[:cached] = tree.path_device_indices(node)[:cached]
        extend = len(prompt) - cached
        try:
            if page == 1:
                out = alloc_token_slots(tree, extend)
            else:
                last = row[cached - 1:cached] if cached else torch.full((1,), -1, dtype=torch.int64)
                out = alloc_paged_token_slots_extend(
                    tree, torch.tensor([cached]), torch.tensor([cached]), torch.tensor([len(prompt)]),
                    torch.tensor([len(prompt)]), last, extend)
        except RuntimeError:
            tree.unlock(lock)
            return None
        row[cached:len(prompt)] = out
        committed = len(prompt)
        output = [*turn.generated, turn.last] if turn.last is not None else list(turn.generated)
        steps = len(turn.generated)  # decode steps feed every output token but the last
        if self.overlap and turn.last is not None and turn.finish != "length":
            steps += 1  # the step launched before the stop is seen computes the last token too
        for _ in range(steps):
            need = page if committed % page == 0 else 0
            if not allocator.check_decode_capacity(num_tokens=need, tree_cache=tree):
                break  # SGLang would retract the request; what it computed so far is kept
            if page == 1:
                slot = alloc_token_slots(tree, 1)
            else:
                slot = alloc_paged_token_slots_decode(tree, torch.tensor([committed + 1]), torch.tensor([committed + 1]),
                                                      row[committed - 1:committed])
            row[committed] = slot[0]
            committed += 1
        tokens = array("q", [*prompt, *output])
        req = SimpleNamespace(
            full_untruncated_fill_ids=tokens, origin_input_ids=array("q", prompt), extra_key=extra,
            cache_salt=turn.salt, priority=None, lock=lock, last_node=node,
            kv=SimpleNamespace(req_pool_idx=0, cache_inserted_len=0, cache_protected_len=cached, swa_evict_floor=0))
        tree.checkpoint(req, up_to=committed)
        start = req.kv.cache_protected_len
        if start < committed:  # the row's own slots past what the tree keeps (a partial page)
            allocator.free_segment(row[start:committed].clone(), start_pos=start)
        tree.unlock(req.lock)
        return cached
