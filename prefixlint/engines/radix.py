"""A radix-tree prefix cache with SGLang's memory rules: a token pool of fixed size, the least
recently used leaves evicted first, and optionally a time to live (API caches).

Read from SGLang 0.5 (`python/sglang/srt/mem_cache/radix_cache.py`): a match walks the tree
from the root and touches every node on the way (`last_access_time`); a finished request's
tokens are inserted (`cache_finished_req`, page-aligned when `page_size` > 1); when the pool
cannot hold a request's new tokens, `evict` pops the leaves with the oldest
`last_access_time` (not locked: the request's own matched path is locked) until enough is
free, a parent becoming a leaf in turn. A node is touched whenever a node under it is, so a
parent is never older than its children. With a time to live, a node untouched (or, without
refresh, uncreated) for longer is expired: a match stops there, and its tokens are `expired`.
Different `cache_salt`s key different subtrees of one pool (SGLang's `extra_key`).
"""

from __future__ import annotations

import heapq
from itertools import count
from typing import Hashable, Sequence

from prefixlint.engines.base import Miss, Outcome
from prefixlint.match.prefix import _common
from prefixlint.engines.profiles import EngineProfile

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
        self.root = _Node([], None, 1 << 62, float("inf"))
        self.size = 0  # tokens held
        self.evicted_blocks = 0  # tokens evicted, in units of the profile's page
        self._evicted_tokens = 0
        self._heap: list[tuple[int, int, _Node]] = []
        self._tie = count()
        self._clock = 0.0  # the log's time
        self._serial = 0  # requests served

    def serve(self, prompt: Sequence[int], cached_seq: Sequence[int], salt: str | None = None,
              now: float | None = None, max_prefix: int | None = None) -> Outcome:
        """Match `prompt`, then cache `cached_seq` (its tokens whose KV was computed).
        `max_prefix` caps the match (SGLang's `logprob_start_len`)."""
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
        path, matched, stop, other = self._match(prompt[:max(limit, 0)], salt)
        cached = self.profile.reusable_tokens(matched, len(prompt))
        miss = None
        if stop != "end" or stop_short:
            kind = "new" if stop_short or (stop == "diverged" and matched == 0) else stop
            miss = Miss(kind, matched, (salt, hash(tuple(prompt[:matched]))), tuple(other))
        page = self.profile.unit if self.profile.whole_units_only else 1
        keep = len(seq) - len(seq) % page  # SGLang caches whole pages only
        new = max(0, keep - matched)
        if self.capacity is not None and new + matched > self.capacity:
            return Outcome(cached, miss, over_capacity=True)
        if self.capacity is not None and self.size + new > self.capacity:
            self._evict(self.size + new - self.capacity, set(map(id, path)))
        self._insert(seq[:keep], salt)
        return Outcome(cached, miss)

    def _expired(self, node: _Node) -> bool:
        return self.ttl is not None and self._clock - node.seen > self.ttl

    def _match(self, tokens: list[int], salt: str | None) -> tuple[list[_Node], int, str, list[int]]:
        """The nodes matched, the tokens matched, why it stopped ("end", "diverged", "new",
        "expired") and a sample of the cached side where it diverged."""
        node, depth, path = self.root, 0, []
        while depth < len(tokens):
            child = node.children.get((salt, tokens[depth]) if node is self.root else tokens[depth])
            if child is None:
                other = next(iter(node.children.values()), None) if node is not self.root else None
                if other is None:
                    return self._touch(path), depth, "new", []
                return self._touch(path), depth, "diverged", other.tokens[:SAMPLE_TOKENS]
            if self._expired(child):
                self._drop(child)
                return self._touch(path), depth, "expired", []
            run = _common(tokens, depth, child.tokens, 0, min(len(child.tokens), len(tokens) - depth))
            path.append(child)
            depth += run
            if run < len(child.tokens):
                tail = self._split(child, run)
                if depth == len(tokens):
                    break
                return self._touch(path), depth, "diverged", tail.tokens[:SAMPLE_TOKENS]
            node = child
        return self._touch(path), depth, "end", []

    def _touch(self, path: list[_Node]) -> list[_Node]:
        for node in path:
            node.stamp = self._serial
            if self.refresh:
                node.seen = self._clock
            if not node.children:
                self._push(node)
        return path

    def _push(self, leaf: _Node) -> None:
        heapq.heappush(self._heap, (leaf.stamp, next(self._tie), leaf))

    def _insert(self, tokens: list[int], salt: str | None) -> None:
        node, depth = self.root, 0
        while depth < len(tokens):
            key = (salt, tokens[depth]) if node is self.root else tokens[depth]
            child = node.children.get(key)
            if child is None or self._expired(child):
                if child is not None:
                    self._drop(child)
                leaf = _Node(tokens[depth:], node, self._serial, self._clock)
                node.children[key] = leaf
                self.size += len(leaf.tokens)
                self._push(leaf)
                return
            run = _common(tokens, depth, child.tokens, 0, min(len(child.tokens), len(tokens) - depth))
            if run < len(child.tokens):
                self._split(child, run)
            child.stamp = self._serial
            if self.refresh:
                child.seen = self._clock
            depth += run
            node = child

    def _split(self, node: _Node, at: int) -> _Node:
        """Split a node's edge after `at` tokens; returns the new lower part."""
        tail = _Node(node.tokens[at:], node, node.stamp, node.seen)
        tail.children = node.children
        for grandchild in tail.children.values():
            grandchild.parent = tail
        node.tokens = node.tokens[:at]
        node.children = {tail.tokens[0]: tail}
        if not tail.children:
            self._push(tail)
        return tail

    def _drop(self, node: _Node) -> None:
        """Remove an expired subtree."""
        stack = [node]
        while stack:
            gone = stack.pop()
            gone.alive = False
            self.size -= len(gone.tokens)
            stack.extend(gone.children.values())
        parent = node.parent
        key = next(k for k, v in parent.children.items() if v is node)
        del parent.children[key]
        if not parent.children and parent is not self.root:
            self._push(parent)

    def _evict(self, tokens: int, locked: set[int]) -> None:
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
