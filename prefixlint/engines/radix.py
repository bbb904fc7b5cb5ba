"""A radix-tree prefix cache with SGLang's memory rules: a token pool of fixed size, the least
recently used leaves evicted first, and optionally a time to live (API caches).

Read from SGLang's `python/sglang/srt/mem_cache/radix_cache.py` and `mem_cache/common.py`
(upstream at 006b0e3, the same rules as 0.5.23 where the issue measured them):
- `_match_prefix_helper` touches the root and every child on the way (`last_access_time`)
  *before* `_split_node`, so where a match ends inside a node the lower part (the old node)
  is touched too and the new upper part is created then; `_insert_helper` does the same, and
  `cache_finished_req` inserts `(origin_input_ids + output_ids)[:kv_committed_len]`,
  page-aligned (`page_align_keys`). With `page_size` > 1 keys compare in whole pages
  (`_key_match_paged`) and a child is keyed by its first page (`get_child_key`).
- The tree is keyed by the request's `extra_key` (`RadixKey.extra_key`: its LoRA adapter
  and `cache_salt`): `get_child_key` returns `(extra_key, first token)` at every node, so
  identical tokens under another adapter or salt never match.
- `evict(num_tokens)` heaps the evictable leaves (unlocked: a running request locks its
  matched path) by `last_access_time` and pops until `num_tokens` are freed, a parent that
  becomes a leaf pushed in turn; 0.5.23 calls it with the shortfall (see `_allocate`). A
  finished request's leaf is split at the prompt boundary (`_checkpoint`).
With a time to live, a node untouched (or, without refresh, uncreated) for longer is expired:
a match stops there, and its tokens are `expired`.
"""

from __future__ import annotations

import heapq
from itertools import count
from typing import Hashable, Sequence

from prefixlint.engines.base import Miss, Outcome
from prefixlint.engines.profiles import EngineProfile
from prefixlint.match.prefix import _common

SAMPLE_TOKENS = 16


class _Node:
    __slots__ = ("tokens", "children", "parent", "stamp", "seen", "alive")

    def __init__(self, tokens: list[int], parent: "_Node | None", stamp: int, seen: float) -> None:
        self.tokens = tokens
        self.children: dict[Hashable, _Node] = {}
        self.parent = parent
        self.stamp = stamp  # the last request that touched it: the LRU order
        self.seen = seen  # the log's time of its last use (or creation, without refresh): the TTL
        self.alive = True


class RadixLRU:
    """`capacity_tokens` None: unlimited. `ttl` seconds None: entries never expire."""

    def __init__(self, profile: EngineProfile, capacity_tokens: int | None = None, ttl: float | None = None,
                 refresh: bool = True) -> None:
        self.profile = profile
        self.capacity = capacity_tokens
        self.ttl, self.refresh = ttl, refresh
        #: SGLang's page: keys compare and are cached in whole pages.
        self.page = profile.unit if profile.whole_units_only and profile.unit > 1 else 1
        self.root = _Node([], None, 1 << 62, float("inf"))
        self.size = 0  # tokens held
        self.evicted_blocks = 0  # tokens evicted, in units of the profile's page
        self._evicted_tokens = 0
        self._heap: list[tuple[int, int, _Node]] = []
        self._tie = count()
        self._clock = 0.0  # the log's time
        self._serial = 0  # the last touch: two a request (its match, then its insert)

    def _key(self, tokens: Sequence[int], at: int, extra: Hashable, node: _Node) -> Hashable:
        """`get_child_key`: the first token (paged: the first page), with the extra key."""
        first = tokens[at] if self.page == 1 else tuple(tokens[at:at + self.page])
        return (extra, first) if node is self.root else first

    def _run(self, a: Sequence[int], at: int, b: list[int], limit: int) -> int:
        run = _common(a, at, b, 0, limit)
        return run - run % self.page  # `_key_match_paged`: whole pages only

    def serve(self, prompt: Sequence[int], cached_seq: Sequence[int], salt: Hashable = None,
              now: float | None = None, max_prefix: int | None = None) -> Outcome:
        """Match `prompt`, then cache `cached_seq` (its tokens whose KV was computed, the prompt
        first). `salt`: the extra key (cache_salt, adapter). `max_prefix` caps the match
        (SGLang's `logprob_start_len`)."""
        if now is not None:  # a log without a clock: no time passes
            self._clock = now
        self._serial += 1
        prompt, seq = list(prompt), list(cached_seq)
        # SGLang matches at most input_len - 1 tokens, and no further than logprob_start_len
        # (`_compute_max_prefix_len`); the match splits the node where it ends.
        limit = len(prompt) - 1 if self.profile.last_token_recomputed else len(prompt)
        if max_prefix is not None and max_prefix < limit:
            limit, stop_short = max_prefix, True  # a request that skips the lookup: counted as new
        else:
            stop_short = False
        limit = max(limit, 0)
        if self.capacity is not None and len(prompt) >= self.capacity - 6:
            # `max_req_input_len` = min(context_len - 1, pool - 1) - 5 (managers/tp_worker.py:568-572):
            # a longer prompt is refused before it is queued (scheduler.py:3231), never looked up.
            return Outcome(0, Miss("new", 0, (salt, hash(())), ()), over_capacity=True)
        path, matched, stop, other = self._match(prompt[:limit - limit % self.page], salt)
        cached = self.profile.reusable_tokens(matched, len(prompt))
        miss = None
        if stop != "end" or stop_short:
            kind = "new" if stop_short or (stop == "diverged" and matched == 0) else stop
            miss = Miss(kind, matched, (salt, hash(tuple(prompt[:matched]))), tuple(other))
        end: int | None = len(seq)
        if self.capacity is not None:
            end = self._allocate(matched, max(len(prompt), matched), len(seq), {id(node) for node in path})
            if end is None:
                return Outcome(0, miss, over_capacity=True)
        self._serial += 1
        self._checkpoint(seq[:end], len(prompt), salt)
        return Outcome(cached, miss)

    def _checkpoint(self, seq: list[int], prompt_len: int, salt: Hashable) -> None:
        """`RadixCache.checkpoint` (radix_cache.py:510-543 in 0.5.23): the computed tokens
        inserted, the prompt inserted again so the leaf splits at the prompt boundary
        (`_insert_cache(split_prompt=True)`, :482-496: eviction then drops the reply first),
        then the whole key matched again (every node on its path touched last)."""
        keep = len(seq) - len(seq) % self.page
        self._insert(seq[:keep], salt)
        prompt_keep = min(prompt_len, keep) - min(prompt_len, keep) % self.page
        if 0 < prompt_keep < keep:
            self._insert(seq[:prompt_keep], salt)
        self._match(seq[:keep], salt)

    def _pages(self, tokens: int) -> int:  # slots `tokens` take in the pool: whole pages
        return -(-tokens // self.page) * self.page

    def _allocate(self, matched: int, prompt_len: int, end: int, locked: set[int]) -> int | None:
        """The request's own slots, as SGLang 0.5.23 allocates them, evicting the shortfall
        (`evict_to_free_tokens`: the allocation less the free slots, mem_cache/allocator/base.py:
        155-169): the prompt's extend tokens at prefill (`alloc_token_slots`; paged:
        `alloc_paged_token_slots_extend`, plus one page, mem_cache/allocation.py:152-201), then
        each decode step: `check_decode_mem` a page where the computed length is page-aligned
        (managers/schedule_batch.py:3403-3449), and paged, `alloc_paged_token_slots_decode` a
        page at every step (allocation.py:572-585). Returns how far the KV got computed (`end`,
        less where nothing is left to evict: SGLang retracts), None: the prompt did not fit."""
        page, capacity = self.page, self.capacity
        assert capacity is not None
        need = prompt_len - matched + (page if page > 1 else 0)
        if capacity - self.size < need:
            self._evict(need - (capacity - self.size), locked)
        own = self._pages(prompt_len) - matched
        if capacity - self.size < own:
            return None  # "Prefill out of memory": never served
        position = prompt_len  # the next token whose KV a decode step computes
        while position < end:
            free = capacity - self.size - own
            if page == 1:
                if free < 1:
                    if not self._evict(1, locked):
                        return position
                    continue
                steps = min(end - position, free)  # the steps until the pool is full again, at once
                own += steps
                position += steps
                continue
            if free < page:  # no free page: the step evicts a page's worth, needed or not
                self._evict(page - free, locked)
                if position % page == 0 and capacity - self.size - own < page:
                    return position
            if position % page == 0:  # this step starts a page
                own += page
            position += 1
            if position % page and capacity - self.size - own >= page:
                position = min(end, position + page - position % page)  # nothing happens until the next page
        return end

    def _expired(self, node: _Node) -> bool:
        return self.ttl is not None and self._clock - node.seen > self.ttl

    def _match(self, tokens: list[int], salt: Hashable) -> tuple[list[_Node], int, str, list[int]]:
        """The nodes matched, the tokens matched, why it stopped ("end", "diverged", "new",
        "expired") and a sample of the cached side where it diverged."""
        # `_match_prefix_helper` touches each child as it descends (`last_access_time =
        # time.monotonic()`), so every node gets its own, later time; a split's upper part is a
        # new TreeNode, created after the lower part (the old node) was touched.
        node, depth, path = self.root, 0, list[_Node]()
        while depth < len(tokens):
            child = node.children.get(self._key(tokens, depth, salt, node))
            if child is None:
                other = next(iter(node.children.values()), None) if node is not self.root else None
                if other is None:
                    return path, depth, "new", []
                return path, depth, "diverged", other.tokens[:SAMPLE_TOKENS]
            if self._expired(child):
                self._drop(child)
                return path, depth, "expired", []
            self._stamp(child)
            run = self._run(tokens, depth, child.tokens, min(len(child.tokens), len(tokens) - depth))
            path.append(child)
            depth += run
            if run < len(child.tokens):
                tail = self._split(child, run)  # the lower part keeps the time just given
                self._stamp(child)  # the upper part: created now
                if depth == len(tokens):
                    break
                return path, depth, "diverged", tail.tokens[:SAMPLE_TOKENS]
            node = child
        return path, depth, "end", []

    def _stamp(self, node: _Node) -> None:
        """A touch: the node's time is now; a leaf goes on the heap with it (the old entry is
        stale and skipped: an entry counts only while its stamp is the node's)."""
        self._serial += 1  # every touch its own time, in the order SGLang touches nodes
        node.stamp = self._serial
        if self.refresh:
            node.seen = self._clock
        if not node.children:
            self._push(node)

    def _push(self, leaf: _Node) -> None:
        heapq.heappush(self._heap, (leaf.stamp, next(self._tie), leaf))

    def _insert(self, tokens: list[int], salt: Hashable) -> None:
        node, depth = self.root, 0
        while depth < len(tokens):
            key = self._key(tokens, depth, salt, node)
            child = node.children.get(key)
            if child is None or self._expired(child):
                if child is not None:
                    self._drop(child)
                self._serial += 1  # a new TreeNode: its time is its creation
                leaf = _Node(tokens[depth:], node, self._serial, self._clock)
                node.children[key] = leaf
                self.size += len(leaf.tokens)
                self._push(leaf)
                return
            run = self._run(tokens, depth, child.tokens, min(len(child.tokens), len(tokens) - depth))
            if run < len(child.tokens):
                self._stamp(self._split(child, run))  # the lower part, touched before the split
            self._stamp(child)
            depth += run
            node = child

    def _split(self, node: _Node, at: int) -> _Node:
        """Split a node's edge after `at` tokens; returns the new lower part."""
        tail = _Node(node.tokens[at:], node, node.stamp, node.seen)
        tail.children = node.children
        for grandchild in tail.children.values():
            grandchild.parent = tail
        node.tokens = node.tokens[:at]
        node.children = {self._key(tail.tokens, 0, None, tail): tail}
        if not tail.children:
            self._push(tail)
        return tail

    def _drop(self, node: _Node) -> None:
        """Remove a subtree (expired, or an evicted leaf)."""
        stack = [node]
        while stack:
            gone = stack.pop()
            gone.alive = False
            self.size -= len(gone.tokens)
            stack.extend(gone.children.values())
        parent = node.parent
        assert parent is not None  # the root is never dropped
        key = next(k for k, v in parent.children.items() if v is node)
        del parent.children[key]
        if not parent.children and parent is not self.root:
            self._push(parent)

    def _evict(self, tokens: int, locked: set[int]) -> int:
        """`evict(num_tokens)`: the least recently touched unlocked leaves until `tokens` are
        freed (or none is left); returns the tokens freed."""
        heap, freed, skipped = self._heap, 0, []
        while freed < tokens and heap:
            stamp, _, leaf = heapq.heappop(heap)
            if not leaf.alive or leaf.children or leaf.stamp != stamp:
                continue
            if id(leaf) in locked:
                skipped.append((stamp, next(self._tie), leaf))
                continue
            self._drop(leaf)
            freed += len(leaf.tokens)
            self._evicted_tokens += len(leaf.tokens)
        for item in skipped:
            heapq.heappush(heap, item)
        self.evicted_blocks = self._evicted_tokens // self.profile.unit
        return freed

    def copy(self, capacity_tokens: int | None) -> "RadixLRU":
        """The same cache with another capacity (for a curve: one that has not evicted yet)."""
        twin = RadixLRU(self.profile, capacity_tokens, self.ttl, self.refresh)
        clones = {id(self.root): twin.root}
        stack = [self.root]
        while stack:
            node = stack.pop()
            clone = clones[id(node)]
            for key, child in node.children.items():
                copied = _Node(child.tokens, clone, child.stamp, child.seen)
                clone.children[key] = clones[id(child)] = copied
                stack.append(child)
        twin._heap = [(stamp, tie, clones[id(node)]) for stamp, tie, node in self._heap if id(node) in clones]
        heapq.heapify(twin._heap)
        twin._tie = count(next(self._tie))
        twin.size, twin._clock, twin._serial = self.size, self._clock, self._serial
        return twin
