"""The router's part of `replay`'s report: per replica, or every policy side by side."""

from __future__ import annotations

from prefixlint.numbers import percent
from prefixlint.replay.cluster import Cluster
from prefixlint.replay.routed import Routing
from prefixlint.replay.tally import ReplayStats, Tally


def _tally(t: Tally) -> dict:
    return {"requests": t.requests, "prompt_tokens": t.prompt_tokens, "cached_tokens": t.cached_tokens,
            "hit_rate": round(t.hit_rate, 6)}


def _replicas(cluster: Cluster) -> list[dict]:
    return [{**_tally(r.tally), "evicted_blocks": r.sim.evicted_blocks} for r in cluster.replicas]


def _total(cluster: Cluster) -> Tally:
    total = Tally()
    for r in cluster.replicas:
        total.requests += r.tally.requests
        total.prompt_tokens += r.tally.prompt_tokens
        total.cached_tokens += r.tally.cached_tokens
    return total


def clock(routing: Routing) -> str:
    timed = any(c.timed for c in routing.clusters)
    if not timed:
        return "no timestamps: one request at a time (load = requests routed so far)"
    return (f"log timestamps; durations from the log, else prefill {routing.speed.prefill_tps:,.0f} tokens/s"
            f" and decode {routing.speed.decode_tps:,.0f} tokens/s")


def to_json(routing: Routing) -> dict:
    if routing.policy is None:
        return {}
    data: dict = {
        "router": routing.policy,
        "routing": {"replicas": routing.replicas, "seed": routing.seed,
                    "timestamps": any(c.timed for c in routing.clusters),
                    "prefill_tps": routing.speed.prefill_tps, "decode_tps": routing.speed.decode_tps},
    }
    if routing.side_by_side:
        data["routers"] = [{"router": c.policy.name, **_tally(_total(c)), "evicted_blocks": c.evicted_blocks,
                            "replicas": _replicas(c)} for c in routing.clusters]
    else:
        data["replicas"] = _replicas(routing.clusters[0])
    return data


def _busiest(cluster: Cluster) -> str:
    total = sum(r.tally.requests for r in cluster.replicas)
    return percent(max(r.tally.requests for r in cluster.replicas), total)


def to_text(routing: Routing, stats: ReplayStats, capacity: str) -> list[str]:
    """Lines to print after the report (single policy) or instead of it (all)."""
    if routing.policy is None:
        return []
    n = routing.replicas
    if not routing.side_by_side:
        cluster = routing.clusters[0]
        lines = [f"Replicas: {n} behind the {routing.policy} router, each with a cache of {capacity}",
                 f"  clock: {clock(routing)}",
                 f"  {'replica':>7}  {'requests':>9}  {'prompt tokens':>14}  {'cached':>14}  {'hit rate':>8}  evicted blocks"]
        for number, r in enumerate(cluster.replicas, 1):
            t = r.tally
            lines.append(f"  {number:>7}  {t.requests:>9,}  {t.prompt_tokens:>14,}  {t.cached_tokens:>14,}"
                         f"  {percent(t.cached_tokens, t.prompt_tokens):>8}  {r.sim.evicted_blocks:>14,}")
        return lines
    ceiling = stats.total
    lines = [f"{n} replicas, each with a cache of {capacity}; clock: {clock(routing)}",
             "",
             f"  {'router':<22}  {'cached tokens':>14}  {'hit rate':>8}  {'of global':>9}"
             f"  {'busiest replica':>15}  evicted blocks"]
    for cluster in routing.clusters:
        t = _total(cluster)
        lines.append(f"  {cluster.policy.name:<22}  {t.cached_tokens:>14,}  {percent(t.cached_tokens, t.prompt_tokens):>8}"
                     f"  {percent(t.cached_tokens, ceiling.cached_tokens):>9}  {_busiest(cluster):>15}"
                     f"  {cluster.evicted_blocks:>14,}")
    lines.append(f"  {'one global cache (x' + str(n) + ')':<22}  {ceiling.cached_tokens:>14,}"
                 f"  {percent(ceiling.cached_tokens, ceiling.prompt_tokens):>8}  {'100.0%':>9}  {'-':>15}"
                 f"  {routing.main.evicted_blocks:>14,}")
    lines += ["", f"{ceiling.requests:,} requests, {ceiling.prompt_tokens:,} prompt tokens; `busiest replica`:"
              " its share of the requests (even: " + percent(1, n) + ")."]
    return lines


def outputs(routing: Routing, stats: ReplayStats, blocks: int | None, unit: int) -> tuple[dict, list[str]]:
    """(JSON keys, text lines) of the router's part; `blocks` of `unit` tokens per replica."""
    per_replica = "unlimited size" if blocks is None else f"{blocks * unit:,} tokens"
    return to_json(routing), to_text(routing, stats, per_replica)
