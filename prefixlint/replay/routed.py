"""`replay --replicas N --router POLICY`: the replay's caches and router, built from the options.

With one replica and no `--router` the replay is the plain one (one cache). With `--router
all` every policy replays the log over its own N replicas, beside one global cache of the
same total size (the ceiling: the report's own figures), in the same pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from prefixlint.engines.base import Outcome, Simulator
from prefixlint.engines.request import Request
from prefixlint.replay.routing import Speed

if TYPE_CHECKING:
    from prefixlint.replay.cluster import Cluster


@dataclass
class Routing:
    """The simulators of a replay: `main` is what the report's replay serves through."""

    policy: str | None
    replicas: int
    seed: int
    speed: Speed
    main: Simulator
    clusters: list[Cluster] = field(default_factory=list)
    #: --router all: `main` is the global cache, and every cluster serves each request too.
    side_by_side: bool = False

    def serve(self, request: Request) -> Outcome:
        if self.side_by_side:
            for cluster in self.clusters:
                cluster.serve(request)
        return self.main.serve(request)

    @property
    def evicted_blocks(self) -> int:
        return self.main.evicted_blocks


def build(policy: str | None, replicas: int, seed: int, tps: tuple[float, float], block_size: int,
          blocks: int | None, make_sim: Callable[[int | None], Simulator]):
    """The replay's simulator: one plain simulator, one cluster, or every policy beside a
    global cache (a `Routing` whose `serve` serves them all). `tps`: prefill and decode speed."""
    from prefixlint.replay.cluster import Cluster  # not imported for one plain cache
    from prefixlint.replay.routing import POLICIES, make_policy

    speed = Speed(*tps)
    if policy is None:
        return Routing(None, 1, seed, speed, make_sim(blocks))

    def cluster(name: str) -> Cluster:
        return Cluster([make_sim(blocks) for _ in range(replicas)], make_policy(name, replicas, seed), block_size, speed)

    if policy == "all":
        total = None if blocks is None else blocks * replicas
        return Routing(policy, replicas, seed, speed, make_sim(total), [cluster(p) for p in POLICIES], True)
    only = cluster(policy)
    return Routing(policy, replicas, seed, speed, only, [only])
