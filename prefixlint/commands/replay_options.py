"""The options of `replay` for replicas, routers, parallel preparation and the curve, and their
checks (light: imported when the command line is built)."""

from __future__ import annotations

import click

from prefixlint.errors import PrefixlintError
from prefixlint.replay.routing import DECODE_TPS, POLICIES, PREFILL_TPS

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
        click.option("--prefill-tps", type=float, default=PREFILL_TPS, show_default=True, metavar="TPS",
                     help="Prefill speed of a request (tokens/s), for logs without per-request durations."),
        click.option("--decode-tps", type=float, default=DECODE_TPS, show_default=True, metavar="TPS",
                     help="Decode speed of a request (tokens/s), for logs without per-request durations."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def parallel_options(function):
    function = click.option(
        "--ray", "use_ray", is_flag=True,
        help="Render and tokenize with Ray Data (RAY_ADDRESS, else a local Ray); LOG may be a JSONL or"
        " Parquet path or object-storage URL. Needs the extra: pip install 'prefixlint[ray]'.")(function)
    return click.option(
        "--workers", type=int, default=1, show_default=True, metavar="N",
        help="Render and tokenize in N local processes (the simulation stays in order in this one).")(function)


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


def no_workers_with(workers: int, ray: bool) -> None:
    if workers < 1:
        raise click.BadParameter(f"{workers} workers: there must be at least one", param_hint="--workers")
    if ray and workers > 1:
        raise PrefixlintError("give --workers or --ray, not both (Ray decides how many tasks run)")


def check_options(log: str, replicas: int, router: str | None, prefill_tps: float, decode_tps: float,
                  workers: int, ray: bool, curve: bool) -> str | None:
    """Every check of these options before anything runs; the policy (None: one plain cache)."""
    policy = check_router(replicas, router, prefill_tps, decode_tps)
    if curve and policy is not None:
        raise click.UsageError("--curve is the curve of one cache: drop --replicas/--router")
    no_workers_with(workers, ray)
    if ray:
        from prefixlint.replay.ray_source import check_ray

        check_ray(log)
    return policy


def fixed_now(now_text: str | None) -> str:
    """The clock for lines without a timestamp, fixed once for every process that renders."""
    from datetime import datetime

    return now_text if now_text is not None else datetime.now().isoformat()


def token_list(ctx, param, value):
    """--curve-at: comma-separated token counts."""
    if value is None:
        return ()
    try:
        numbers = [int(part.replace("_", "")) for part in value.split(",") if part.strip()]
    except ValueError:
        raise click.BadParameter(f"{value!r}: comma-separated token counts, like 3000000,50000000") from None
    if not numbers or min(numbers) < 1:
        raise click.BadParameter(f"{value!r}: every capacity must be a positive number of tokens")
    return tuple(numbers)
