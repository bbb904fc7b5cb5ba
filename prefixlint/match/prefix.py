"""Exact-token shared prefixes: between two sequences, and against everything cached so far.

`PrefixCache` is a radix tree over token ids, the structure SGLang's RadixCache uses: serving
N requests costs O(total tokens), not O(N^2) pairwise comparisons.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence, overload


def shared_prefix(a: Sequence[int] | str, b: Sequence[int] | str) -> int:
    """Number of leading tokens (or, for two strings, characters) that `a` and `b` have in common."""
    return _common(_as_list(a), 0, _as_list(b), 0, min(len(a), len(b)))


@overload
def _as_list(tokens: str) -> str: ...
@overload
def _as_list(tokens: Sequence[int]) -> list[int]: ...
def _as_list(tokens):
    # Slices are compared with ==, and a tuple slice never equals a list slice: one type only.
    return tokens if type(tokens) in (list, str) else list(tokens)


def _common(a: Sequence[int] | str, i: int, b: Sequence[int] | str, j: int, limit: int) -> int:
    """Length of the common run of a[i:] and b[j:], at most `limit`.

    Compares in slices that double in size, so long equal runs are checked at C speed.
    """
    n = 0
    step = 64
    while n < limit:
        k = min(step, limit - n)
        if a[i + n : i + n + k] == b[j + n : j + n + k]:
            n += k
            step *= 2
            continue
        # The first difference is in this chunk: halve it until it is found.
        lo, hi = n, n + k  # a[i:i+lo] == b[j:j+lo], and they differ before hi
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if a[i + lo : i + mid] == b[j + lo : j + mid]:
                lo = mid
            else:
                hi = mid
        return lo
    return limit


@dataclass
class _Node:
    tokens: list[int] = field(default_factory=list)  # the edge label leading into this node
    children: dict[int, "_Node"] = field(default_factory=dict)
    owner: int = -1  # the most recent request whose tokens reach the end of this edge
    #: The most recent request that goes on past this node (into any child), or -1.
    onward: int = -1


@dataclass(frozen=True)
class Match:
    """The longest cached run a request starts with, and which cached request it follows."""

    length: int
    #: Index (order of insertion) of the cached request that shares `length` tokens and, where
    #: one exists, continues differently: the request to compare against at the divergence.
    other: int | None


class PrefixCache:
    """Every sequence inserted so far, queryable for the longest prefix a new one shares."""

    def __init__(self) -> None:
        self._root = _Node()
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def longest_match(self, tokens: Sequence[int]) -> Match:
        """The longest prefix of `tokens` that some cached sequence starts with.

        `other` is the most recent cached sequence that shares those tokens and goes on with a
        different token; where every such sequence ends there, the most recent of them; None
        when nothing is cached.
        """
        if not self._count:
            return Match(0, None)
        tokens = _as_list(tokens)
        node = self._root
        depth = 0
        while depth < len(tokens):
            child = node.children.get(tokens[depth])
            if child is None:
                break
            run = _common(tokens, depth, child.tokens, 0, min(len(child.tokens), len(tokens) - depth))
            depth += run
            if run < len(child.tokens):
                # Stops inside an edge: everything through this edge goes on differently.
                return Match(depth, child.owner)
            node = child
        # Stops at a node: prefer a sequence that goes on past it over one that ends here.
        return Match(depth, node.onward if node.onward >= 0 else node.owner)

    def insert(self, tokens: Sequence[int]) -> int:
        """Add a sequence; returns its index."""
        tokens = _as_list(tokens)
        index = self._count
        self._count += 1
        node = self._root
        node.owner = index
        depth = 0
        while depth < len(tokens):
            node.onward = index
            child = node.children.get(tokens[depth])
            if child is None:
                node.children[tokens[depth]] = _Node(list(tokens[depth:]), {}, index)
                return index
            run = _common(tokens, depth, child.tokens, 0, min(len(child.tokens), len(tokens) - depth))
            if run < len(child.tokens):
                # Split the edge where this sequence leaves it (or ends inside it).
                tail = _Node(child.tokens[run:], child.children, child.owner, child.onward)
                child.tokens = child.tokens[:run]
                child.children = {tail.tokens[0]: tail}
                child.onward = tail.owner
            child.owner = index
            depth += run
            node = child
        return index

    def match_and_insert(self, tokens: Sequence[int]) -> Match:
        found = self.longest_match(tokens)
        self.insert(tokens)
        return found
