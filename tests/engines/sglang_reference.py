"""A plain SGLang radix cache, written for the tests from SGLang's own algorithm and nothing of
prefixlint's: every node carries its `last_access_time` (a clock that ticks at each match, each
insert and each node created), and `evict` heaps *all* evictable leaves afresh each time, as
`RadixCache.evict` does (`mem_cache/radix_cache.py`), so no leaf can be forgotten by a stale
heap. Allocation follows SGLang 0.5.23 (`mem_cache/allocation.py`, `allocator/base.py:155-169`):
`evict` with the shortfall (the allocation less the free slots), at prefill and at each decode
step; a finished request is cached as `RadixCache.checkpoint` caches it (radix_cache.py:510-543). Slow (one Python step per
decode token): for small property tests only.
"""

from __future__ import annotations

import heapq
from itertools import count


class Node:
    def __init__(self, key, parent, time):
        self.key, self.parent, self.children, self.time = list(key), parent, {}, time
        self.id = next(_ids)


_ids = count()


class PlainRadixCache:
    def __init__(self, capacity: int, page: int = 1):
        self.capacity, self.page = capacity, page
        self.clock = count(1)
        self.root = Node([], None, 0)
        self.size = 0

    def _child_key(self, tokens, at, extra, node):
        first = tokens[at] if self.page == 1 else tuple(tokens[at:at + self.page])
        return (extra, first) if node is self.root else first

    def _match_len(self, a, b):
        n = 0
        while n < len(a) and n < len(b) and a[n] == b[n]:
            n += 1
        return n - n % self.page

    def _split(self, child, at):
        upper = Node(child.key[:at], child.parent, next(self.clock))  # a new TreeNode: created now
        key = next(k for k, v in child.parent.children.items() if v is child)
        child.parent.children[key] = upper
        child.key = child.key[at:]
        child.parent = upper
        upper.children = {self._child_key(child.key, 0, None, upper): child}
        return upper

    def match(self, tokens, extra):
        """(matched tokens, nodes on the path)."""
        time = next(self.clock)
        node, depth, path = self.root, 0, []
        while depth < len(tokens):
            child = node.children.get(self._child_key(tokens, depth, extra, node))
            if child is None:
                break
            child.time = time  # touched before it may be split
            run = self._match_len(child.key, tokens[depth:])
            if run < len(child.key):
                upper = self._split(child, run)
                path.append(upper)
                depth += run
                break
            path.append(child)
            depth += run
            node = child
        return depth, path

    def insert(self, tokens, extra):
        time = next(self.clock)
        node, depth = self.root, 0
        while depth < len(tokens):
            key = self._child_key(tokens, depth, extra, node)
            child = node.children.get(key)
            if child is None:
                node.children[key] = Node(tokens[depth:], node, next(self.clock))
                self.size += len(tokens) - depth
                return
            child.time = time
            run = self._match_len(child.key, tokens[depth:])
            if run < len(child.key):
                child = self._split(child, run)
            depth += run
            node = child

    def evict(self, tokens, locked):
        leaves = []
        stack = [self.root]
        while stack:
            node = stack.pop()
            stack.extend(node.children.values())
            if node is not self.root and not node.children and node.id not in locked:
                leaves.append((node.time, node.id, node))
        heapq.heapify(leaves)
        freed = 0
        while freed < tokens and leaves:
            _, _, leaf = heapq.heappop(leaves)
            parent = leaf.parent
            del parent.children[next(k for k, v in parent.children.items() if v is leaf)]
            self.size -= len(leaf.key)
            freed += len(leaf.key)
            if parent is not self.root and not parent.children and parent.id not in locked:
                heapq.heappush(leaves, (parent.time, parent.id, parent))
        return freed

    def serve(self, prompt, seq, extra=None):
        """(cached tokens, refused) of a request: match at most len(prompt) - 1, allocate as
        0.5.23 does (the shortfall evicted), cache what got computed (`checkpoint`)."""
        page, capacity = self.page, self.capacity
        if len(prompt) >= min(capacity - 1, 1 << 20) - 5:  # max_req_input_len: refused unseen
            return 0, True
        limit = len(prompt) - 1
        matched, path = self.match(prompt[:limit - limit % page], extra)
        pages = lambda n: -(-n // page) * page  # noqa: E731
        locked = set()
        for node in path:  # inc_lock_ref: the path up to the root
            while node is not None and node is not self.root:
                locked.add(node.id)
                node = node.parent
        own = 0
        free = lambda: capacity - self.size - own  # noqa: E731
        need = len(prompt) - matched + (page if page > 1 else 0)  # alloc_(paged_)token_slots(_extend)
        if free() < need:
            self.evict(need - free(), locked)
        own = pages(len(prompt)) - matched
        if free() < 0:
            return 0, True  # prefill out of memory
        end = len(seq)
        for position in range(len(prompt), len(seq)):
            want = page if position % page == 0 else 0  # check_decode_mem
            if free() < want:
                self.evict(want - free(), locked)
            if free() < want:
                end = position  # retracted: what it computed so far is cached
                break
            if free() < page:  # alloc_paged_token_slots_decode: a page's shortfall at every step
                self.evict(page - free(), locked)
            if position % page == 0:
                own += page
        keep = end - end % page  # checkpoint: insert, split at the prompt, match again
        self.insert(seq[:keep], extra)
        prompt_keep = min(len(prompt), keep) - min(len(prompt), keep) % page
        if 0 < prompt_keep < keep:
            self.insert(seq[:prompt_keep], extra)
        self.match(seq[:keep], extra)
        return matched, False
