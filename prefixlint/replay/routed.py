"""`replay --replicas N --router POLICY`: the replay's caches and router, built from the options.

With one replica and no `--router` the replay is the plain one (one cache). With `--router
all` every policy replays the log over its own N replicas, beside one global cache of the
same total size (the ceiling, whose full report is printed), in the same pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import click

from prefixlint.errors import PrefixlintError
from prefixlint.replay.cluster import Cluster, RouteInfo, Speed
from prefixlint.replay.routing import POLICIES, make_policy

ROUTER_CHOICES = (*POLICIES, "all")


def router_options(function):
    options = [
        click.option("--replicas", type=int, default=1, show_default=True, metavar="N",
                     help="Replicas (data-parallel ranks) behind the router, each with its own cache"
                     " of --cache-tokens/--memory."),
        click.option("--router", default=None, metavar="POLICY",
                     help=f"How requests are routed: {', '.join(ROUTER_CHOICES)} (all: every policy side by side"
                     " with one global cache).  [default: round-robin]"),
        click.option("--seed", type=int, default=0, show_default=True, help="Seed of the random and kv-cost routers."),
        click.option("--prefill-tps", type=float, default=Speed.prefill_tps, show_default=True, metavar="TPS",
                     help="Prefill speed of a request (tokens/s), for logs without per-request durations."),
        click.option("--decode-tps", type=float, default=Speed.decode_tps, show_default=True, metavar="TPS",
                     help="Decode speed of a request (tokens/s), for logs without per-request durations."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def check_router(replicas: int, router: str | None, prefill_tps: float, decode_tps: float) -> str | None:
    """The policy name (None: one plain cache); a usage error for a bad combination."""
    if replicas < 1:
        raise click.BadParameter(f"{replicas} replicas: there must be at least one", param_hint="--replicas")
    if router is not None and router not in ROUTER_CHOICES:
        raise click.BadParameter(f"unknown router {router!r} (known: {', '.join(ROUTER_CHOICES)})", param_hint="--router")
    if prefill_tps <= 0 or decode_tps <= 0:
        raise click.BadParameter("--prefill-tps and --decode-tps must be positive")
    if router is None and replicas == 1:
        return None
    return router or "round-robin"


@dataclass
class Routing:
    """The caches of a replay: `cache` is what the report's replay serves through."""

    policy: str | None
    replicas: int
    seed: int
    speed: Speed
    cache: object
    clusters: list[Cluster] = field(default_factory=list)
    #: --router all: the global cache's tally is the main replay's.
    side_by_side: bool = False

    def serve(self, route: RouteInfo, prompt: Sequence[int], generated: Sequence[int], salt: str | None) -> None:
        """Route the request for every cluster; the main replay's cache serves it after this."""
        for cluster in self.clusters:
            cluster.route(route)
        if self.side_by_side:
            for cluster in self.clusters:
                cluster.serve(prompt, generated, salt)


def build(policy: str | None, replicas: int, seed: int, speed: Speed, block_size: int,
          blocks: int | None, make_cache: Callable[[int | None], object]) -> Routing:
    if policy is None:
        return Routing(None, 1, seed, speed, make_cache(blocks))

    def cluster(name: str) -> Cluster:
        caches = [make_cache(blocks) for _ in range(replicas)]
        return Cluster(caches, make_policy(name, replicas, seed), block_size, speed)

    if policy == "all":
        total = None if blocks is None else blocks * replicas
        return Routing(policy, replicas, seed, speed, make_cache(total), [cluster(p) for p in POLICIES], True)
    only = cluster(policy)
    return Routing(policy, replicas, seed, speed, only, [only])


def no_workers_with(workers: int, ray: bool) -> None:
    if workers < 1:
        raise click.BadParameter(f"{workers} workers: there must be at least one", param_hint="--workers")
    if ray and workers > 1:
        raise PrefixlintError("give --workers or --ray, not both (Ray decides how many tasks run)")
