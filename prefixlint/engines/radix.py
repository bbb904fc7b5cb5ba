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
  matched path, `inc_lock_ref`) by `last_access_time` and pops until `num_tokens` are freed,
  a parent that becomes a leaf pushed in turn. `evict_from_tree_cache` calls it with the
  whole allocation, not the shortfall, when `available_size() < num_tokens`: at prefill
  (`alloc_token_slots`, the extend tokens; paged: plus one page) and at each decode step
  (`alloc_for_decode`: one token, paged: one page).
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
        path, matched, stop, other = self._match(prompt[:limit - limit % self.page], salt)
        cached = self.profile.reusable_tokens(matched, len(prompt))
        miss = None
        if stop != "end" or stop_short:
            kind = "new" if stop_short or (stop == "diverged" and matched == 0) else stop
            miss = Miss(kind, matched, (salt, hash(tuple(prompt[:matched]))), tuple(other))
        keep = len(seq) - len(seq) % self.page  # SGLang caches whole pages only
        if self.capacity is not None:
            if self._pages(len(seq)) > self.capacity:
                return Outcome(cached, miss, over_capacity=True)
            self._allocate(matched, max(len(prompt), matched), len(seq), {id(node) for node in path})
        self._serial += 1
        self._insert(seq[:keep], salt)
        return Outcome(cached, miss)

    def _pages(self, tokens: int) -> int:
        """Slots `tokens` take in the pool: whole pages."""
        return -(-tokens // self.page) * self.page

    def _allocate(self, matched: int, prompt_len: int, end: int, locked: set[int]) -> None:
        """The request's own slots, as SGLang allocates them: the prompt's extend tokens at
        prefill, then one slot per decode step (paged: a page when a step starts one), evicting
        the whole allocation's worth whenever the free slots are fewer."""
        page, capacity = self.page, self.capacity
        assert capacity is not None
        need = prompt_len - matched + (page if page > 1 else 0)  # alloc_paged_token_slots_extend
        if capacity - self.size < need:
            self._evict(need, locked)
        own = self._pages(prompt_len) - matched
        position = prompt_len  # the next token whose KV a decode step computes
        while position < end:
            free = capacity - self.size - own
            if free < page:  # alloc_for_decode: evict one step's allocation
                if not self._evict(page, locked):
                    return  # nothing evictable: SGLang would retract the request
                continue
            if page == 1:  # the steps until the pool is full again, at once
                steps = min(end - position, free)
                own += steps
                position += steps
                continue
            if position % page == 0:  # this step starts a page
                own += page
            position += 1
            if position % page and capacity - self.size - own >= page:
                position = min(end, position + page - position % page)  # nothing to check until the next page

    def _expired(self, node: _Node) -> bool:
        return self.ttl is not None and self._clock - node.seen > self.ttl

    def _match(self, tokens: list[int], salt: Hashable) -> tuple[list[_Node], int, str, list[int]]:
        """The nodes matched, the tokens matched, why it stopped ("end", "diverged", "new",
        "expired") and a sample of the cached side where it diverged."""
        node, depth, path = self.root, 0, list[_Node]()
        while depth < len(tokens):
            child = node.children.get(self._key(tokens, depth, salt, node))
            if child is None:
                other = next(iter(node.children.values()), None) if node is not self.root else None
                if other is None:
                    return self._touch(path), depth, "new", []
                return self._touch(path), depth, "diverged", other.tokens[:SAMPLE_TOKENS]
            if self._expired(child):
                self._drop(child)
                return self._touch(path), depth, "expired", []
            run = self._run(tokens, depth, child.tokens, min(len(child.tokens), len(tokens) - depth))
            path.append(child)
            depth += run
            if run < len(child.tokens):
                tail = self._split(child, run)
                self._touch([tail])  # touched before the split: the lower part keeps the time
                if depth == len(tokens):
                    break
                return self._touch(path), depth, "diverged", tail.tokens[:SAMPLE_TOKENS]
            node = child
        return self._touch(path), depth, "end", []

    def _touch(self, path: list[_Node]) -> list[_Node]:
        for node in path:
            self._stamp(node)
        return path

    def _stamp(self, node: _Node) -> None:
        """A touch: the node's time is now; a leaf goes on the heap with it (the old entry is
        stale and skipped: an entry counts only while its stamp is the node's)."""
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
