"""What every engine simulator is: one engine instance serving one `Request` at a time.

The interface (pre-commit's `Language` Protocol is the model): a simulator holds one engine's
memory, serves requests one after another, in the order given, and says for each how many of
its prompt tokens came from the cache and why the reuse stopped where it did. It never reads a
log or a file; `prefixlint.engines.simulators.make_simulator` builds the one an engine profile
names, and `prefixlint.engines.serve.serve` is the loop every command drives it with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Hashable, NamedTuple, Protocol

if TYPE_CHECKING:
    from prefixlint.engines.request import Request


class Miss(NamedTuple):
    """Why a request's reuse stopped where it did."""

    #: `diverged`: a block was cached at this place with other tokens; `evicted`: this very
    #: block was cached and has been evicted since; `new`: nothing was cached after the hit
    #: (a cold start, or the request extends everything cached).
    kind: str
    #: First token (index in the prompt) that differs from the cached block; for `evicted`
    #: and `new` the first token of the missing block.
    position: int
    #: Identifies the place: requests that share everything before it share this key.
    key: Hashable
    #: The cached side, from `position` to the end of its block (empty for `new`).
    other_tokens: tuple[int, ...]


class Outcome(NamedTuple):
    cached_tokens: int
    miss: Miss | None
    #: The request needs more blocks than the whole cache holds: it was not cached.
    over_capacity: bool = False


class Simulator(Protocol):
    """One engine instance (vLLM's block pool, a radix tree, a curve, a cluster behind a router)."""

    @property
    def evicted_blocks(self) -> int:
        """Blocks (pages, for a radix tree) evicted so far."""
        ...

    def serve(self, request: Request) -> Outcome:
        """Serve one request to completion: look its prompt up, then cache what it computed."""
        ...
