"""Output of `replay --curve`: the points, the KV memory for a share of the best hit rate, a
terminal drawing, and with `--plot FILE` a picture (matplotlib, the optional `plot` extra)."""

from __future__ import annotations

import math
from pathlib import Path

from prefixlint.errors import PrefixlintError
from prefixlint.kv.layout import KVLayout, format_bytes

#: Shares of the maximum (unlimited) hit rate whose KV memory the report gives.
SHARES = (0.5, 0.8, 0.9, 0.99)
#: Rows of the terminal drawing at most, and the width of its bars.
ROWS, WIDTH = 24, 40


def with_kv(points: list[dict], layout: KVLayout | None) -> list[dict]:
    if layout is None:
        return points
    return [{**p, "kv_bytes": p["cache_tokens"] * layout.bytes_per_token} for p in points]


def needed_for_shares(points: list[dict], max_rate: float, layout: KVLayout | None) -> list[dict]:
    """The smallest capacity on the curve that reaches each share of the maximum hit rate
    (and serves every request: holds the largest one)."""
    out = []
    servable = [p for p in points if not p.get("over_capacity_requests")]
    for share in SHARES:
        point = next((p for p in servable if p["hit_rate"] >= share * max_rate - 1e-12), None) if max_rate else None
        tokens = point["cache_tokens"] if point is not None else None
        out.append({"share": share, "cache_tokens": tokens,
                    "kv_bytes": tokens * layout.bytes_per_token if layout is not None and tokens is not None else None})
    return out


def _tokens(n: int) -> str:
    for unit, size in (("G", 10**9), ("M", 10**6), ("K", 10**3)):
        if n >= size:
            return f"{n / size:.3g}{unit}"
    return str(n)


def to_text(points: list[dict], shares: list[dict], max_rate: float, si: bool = False,
            keep: tuple[int, ...] = ()) -> list[str]:
    shown = points
    if len(points) > ROWS:  # every k-th point, the last one and the --curve-at ones always
        step = -(-len(points) // ROWS)
        chosen = {id(p) for p in points[::-1][::step]}
        shown = [p for p in points if id(p) in chosen or p["cache_tokens"] in keep]
    lines = ["Hit rate by cache capacity (one pass; * marks capacities smaller than a request):"]
    for p in shown:
        filled = p["hit_rate"] / max_rate * WIDTH if max_rate else 0.0
        bar = "█" * int(filled) + ("▌" if filled - int(filled) >= 0.5 else "")
        mark = "*" if p.get("over_capacity_requests") else " "
        memory = f"  {format_bytes(p['kv_bytes'], si=si):>10}" if "kv_bytes" in p else ""
        lines.append(f"  {_tokens(p['cache_tokens']):>7} tokens{mark}{memory} |{bar:<{WIDTH}}| {p['hit_rate']:7.2%}")
    lines.append("")
    for s in shares:
        if s["cache_tokens"] is None:
            continue
        memory = f" = {format_bytes(s['kv_bytes'], si=si)} of KV" if s["kv_bytes"] is not None else ""
        lines.append(f"  {s['share']:.0%} of the maximum hit rate ({s['share'] * max_rate:.1%}):"
                     f" {s['cache_tokens']:,} tokens{memory}")
    return lines


def check_plot_path(path: str) -> None:
    if Path(path).suffix.lower() not in (".svg", ".png"):
        raise PrefixlintError(f"--plot {path}: the picture must be .svg or .png")


def figure(points: list[dict], max_rate: float, title: str):
    """The curve as a matplotlib figure: capacities on a log axis labelled as the text report
    writes them (16, 1K, 3M: no `10^3`, no offset), the hit rate in plain percent, the points
    whose capacity is smaller than a request marked apart (the `*` rows of the text), and
    the unlimited cache's hit rate drawn as a line. Needs matplotlib (the `plot` extra)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot, ticker
    except ImportError:
        raise PrefixlintError("--plot needs matplotlib", hint="pip install 'prefixlint[plot]'") from None
    drawn, axes = pyplot.subplots(figsize=(7, 4))
    xs, ys = [p["cache_tokens"] for p in points], [100 * p["hit_rate"] for p in points]
    axes.plot(xs, ys, marker=".", color="tab:blue", label="hit rate")
    over = [(x, y) for p, x, y in zip(points, xs, ys) if p.get("over_capacity_requests")]
    if over:
        axes.scatter(*zip(*over), marker="x", color="tab:red", zorder=3, clip_on=False,
                     label="capacity smaller than a request")
    axes.axhline(100 * max_rate, color="tab:gray", linestyle="--", label=f"unlimited cache: {max_rate:.1%}")
    axes.set_xscale("log")
    tokens = ticker.FuncFormatter(lambda value, _: _tokens(round(value)))
    axes.xaxis.set_major_formatter(tokens)
    # Under two decades the powers of ten are one or two ticks: the ticks between are labelled too.
    few = len(xs) < 2 or math.log10(max(xs) / max(min(xs), 1)) < 2
    axes.xaxis.set_minor_formatter(tokens if few else ticker.NullFormatter())
    plain = ticker.ScalarFormatter(useOffset=False)
    plain.set_scientific(False)
    axes.yaxis.set_major_formatter(plain)
    axes.set_ylim(0, max([100 * max_rate, *ys]) * 1.1 or 1)  # the unlimited line clear of the top
    axes.set_xlabel("cache capacity (tokens)")
    axes.set_ylabel("hit rate (%)")
    axes.set_title(title, fontsize=9)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="upper left")  # a hit-rate curve rises to the right
    drawn.tight_layout()
    return drawn


def plot(points: list[dict], path: str, title: str, max_rate: float) -> None:
    """Write the curve as a picture; the format from the file's suffix (.svg, .png)."""
    check_plot_path(path)
    suffix = Path(path).suffix.lower()
    drawn = figure(points, max_rate, title)
    from matplotlib import pyplot

    try:
        drawn.savefig(path, metadata={"Date": None} if suffix == ".svg" else None)
    except OSError as exc:
        raise PrefixlintError(f"--plot {path}: {exc.strerror or exc}") from None
    finally:
        pyplot.close(drawn)


def curve_output(simulator, curve_at, layout: KVLayout | None, plot_file: str | None, title: str,
                 si: bool = False) -> tuple[dict, list[str]]:
    """(JSON keys, text lines) of a `CurveSimulator`'s curve; writes the --plot picture."""
    points = with_kv(simulator.curve(curve_at), layout)
    max_rate = simulator.unlimited_cached / simulator.prompt_tokens if simulator.prompt_tokens else 0.0
    shares = needed_for_shares(points, max_rate, layout)
    if plot_file is not None:
        plot(points, plot_file, title, max_rate)
    data = {"curve": points, "curve_max_hit_rate": round(max_rate, 6), "curve_shares": shares,
            "curve_duplicate_blocks": simulator.duplicates}
    return data, to_text(points, shares, max_rate, si=si, keep=tuple(curve_at))
