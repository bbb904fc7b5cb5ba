"""Output of `prefixlint replay`: the reuse a log gets, per group, and where it is lost."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

from prefixlint.numbers import percent
from prefixlint.replay.requestlog import BadLine
from prefixlint.replay.tally import Place, ReplayStats, Tally
from prefixlint.report.style import paint, visible
from prefixlint.tokenize import TokenTexts
from prefixlint.tokenize.base import shown_token

if TYPE_CHECKING:
    from prefixlint.kv.layout import KVLayout

GROUPS_SHOWN = 10
BAD_LINES_SHOWN = 10
KIND_TEXT = {
    "diverged": "diverged from a cached block",
    "evicted": "evicted before they were reused",
    "expired": "expired (time to live) before they were reused",
    "new": "nothing cached there (cold starts, new turns)",
}


@dataclass(frozen=True)
class Setup:
    log: str
    tokenizer: TokenTexts | None  # None: a hashed-block trace (no text)
    engine: str
    block_size: int
    engine_text: str
    capacity_tokens: int | None  # None: unlimited
    capacity_from: str
    group_by: str
    layout: KVLayout | None
    si: bool = False
    ttl: float | None = None  # seconds; None: entries never expire
    trace: bool = False  # a hashed-block trace


def _text(tokenizer: TokenTexts | None, ids: Sequence[int]) -> str:
    return "".join(shown_token(tokenizer, i) for i in ids) if tokenizer is not None else ""


def _tally(tally: Tally) -> dict:
    return {"requests": tally.requests, "prompt_tokens": tally.prompt_tokens,
            "cached_tokens": tally.cached_tokens, "hit_rate": round(tally.hit_rate, 6)}


def _place(setup: Setup, place: Place) -> dict:
    tok = setup.tokenizer
    return {"position": place.position, "requests": place.requests, "tokens_lost": place.tokens_lost,
            "first_line": place.line, "before": _text(tok, place.before),
            "this_side": _text(tok, place.this_side), "cached_side": _text(tok, place.other_side)}


def to_dict(setup: Setup, stats: ReplayStats, bad: Sequence[BadLine], evicted_blocks: int) -> dict:
    total = stats.total
    data = {
        "log": setup.log,
        **_tally(total),
        "tokenizer": _tokenizer_name(setup),
        "engine": {"name": setup.engine, "block_size": setup.block_size},
        "capacity_tokens": setup.capacity_tokens,
        "ttl_seconds": setup.ttl or None,
        "generated_tokens": stats.generated_tokens,
        "evicted_blocks": evicted_blocks,
        "lost_tokens": dict(stats.lost_by_kind),
        "lost_requests": dict(stats.requests_by_kind),
        "group_by": setup.group_by,
        "groups": [{"group": name, **_tally(t)} for name, t in _sorted_groups(stats)],
        "places": [_place(setup, p) for p in stats.top_places()],
        "kv": None,
        "reported": None,
        "over_capacity_lines": stats.over_capacity_lines,
        "bad_lines": [{"line": b.line, "message": b.message} for b in bad],
    }
    if setup.layout is not None:
        data["kv"] = {"bytes_per_token": setup.layout.bytes_per_token,
                      "cached_bytes": total.cached_tokens * setup.layout.bytes_per_token,
                      "prefill_tokens_saved": total.cached_tokens}
    if stats.reported_requests:
        data["reported"] = {"requests": stats.reported_requests, "prompt_tokens": stats.reported_prompt_tokens,
                            "cached_tokens": stats.reported_cached_tokens}
    return data


def _tokenizer_name(setup: Setup) -> str | None:
    return setup.tokenizer.name if setup.tokenizer is not None else None


def to_json(setup: Setup, stats: ReplayStats, bad: Sequence[BadLine], evicted_blocks: int) -> str:
    return json.dumps(to_dict(setup, stats, bad, evicted_blocks), indent=2, ensure_ascii=False)


def _sorted_groups(stats: ReplayStats) -> list[tuple[str, Tally]]:
    return sorted(stats.groups.items(), key=lambda item: (-item[1].prompt_tokens, item[0]))


def _groups(stats: ReplayStats, group_by: str) -> list[str]:
    groups = _sorted_groups(stats)
    if not groups:
        return ["No request was replayed."]
    rows = [(name, t) for name, t in groups[:GROUPS_SHOWN]]
    rest = groups[GROUPS_SHOWN:]
    if rest:
        other = Tally()
        for _, t in rest:
            other.requests += t.requests
            other.prompt_tokens += t.prompt_tokens
            other.cached_tokens += t.cached_tokens
        rows.append((f"({len(rest)} other groups)", other))
    width = min(max(len(visible(name)) for name, _ in rows), 50)
    lines = [f"By {group_by}:", f"  {'group':<{width}}  {'requests':>9}  {'prompt tokens':>14}  {'cached':>14}  hit rate"]
    for name, t in rows:
        lines.append(f"  {visible(name)[:width]:<{width}}  {t.requests:>9,}  {t.prompt_tokens:>14,}"
                     f"  {t.cached_tokens:>14,}  {percent(t.cached_tokens, t.prompt_tokens):>8}")
    return lines


def _duration(seconds: float) -> str:
    for unit, size in (("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds:g}s"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _marked(tok: TokenTexts, ids: Sequence[int], color: bool | None, fg: str) -> str:
    """The first token in brackets (where the two sides differ), then the rest of the sample."""
    if not ids:
        return paint("(end)", color, fg=fg)
    first = paint(f"[{visible(shown_token(tok, ids[0]))}]", color, fg=fg, bold=True)
    return f"{first}{visible(_text(tok, ids[1:]))}…"


def _places(setup: Setup, stats: ReplayStats, color: bool | None) -> list[str]:
    places = stats.top_places()
    if not places:
        return ["No request diverged from a cached block."]
    tok = setup.tokenizer
    lines = [f"Where requests diverge from what was cached (top {len(places)}, by prompt tokens computed again):"]
    for number, place in enumerate(places, 1):
        before = "…" + visible(_text(tok, place.before))
        lines.append(f"{number:>3}. token {place.position:,}: {_count(place.requests, 'request')},"
                     f" {place.tokens_lost:,} tokens computed again (first on line {place.line})")
        if tok is None:
            continue  # a trace has no text to show
        lines += [
            f"       {paint(before, color, fg='green')}{_marked(tok, place.this_side, color, 'red')}  this request",
            f"       {' ' * len(before)}{_marked(tok, place.other_side, color, 'yellow')}  cached",
        ]
    return lines


def to_text(setup: Setup, stats: ReplayStats, bad: Sequence[BadLine], evicted_blocks: int,
            color: bool | None = None) -> str:
    total = stats.total
    capacity = ("unlimited" if setup.capacity_tokens is None
                else f"{setup.capacity_tokens:,} tokens ({setup.capacity_from})")
    if setup.ttl:
        capacity += f" · entries live {_duration(setup.ttl)}"
    lines = [
        f"log {setup.log} · tokenizer {_tokenizer_name(setup) or 'none'} · engine {setup.engine_text} · cache {capacity}",
        "",
        f"requests          {total.requests:>14,}"
        + (f"   ({_count(len(bad), 'bad line')} not counted: see below)" if bad else ""),
        f"prompt tokens     {total.prompt_tokens:>14,}",
        f"cached tokens     {total.cached_tokens:>14,}",
        f"hit rate          {percent(total.cached_tokens, total.prompt_tokens):>14}",
        f"generated tokens  {stats.generated_tokens:>14,}   " + (
            "(blocks held while each request ran; no ids: not cached)" if setup.trace
            else "(cached as their blocks filled)"),
    ]
    if setup.capacity_tokens is not None:
        lines.append(f"evicted blocks    {evicted_blocks:>14,}")
    if setup.layout is not None:
        from prefixlint.kv.layout import format_bytes

        size = setup.layout.bytes_per_token
        lines += [
            f"KV reused         {format_bytes(total.cached_tokens * size, si=setup.si):>14}"
            f"   ({total.cached_tokens:,} tokens x {format_bytes(size, si=setup.si)} per token)",
            f"prefill saved     {total.cached_tokens:>14,}   tokens not computed again",
        ]
    if stats.reported_requests:
        lines.append(
            f"server reported   {stats.reported_cached_tokens:>14,}   cached tokens in usage of"
            f" {stats.reported_requests:,} requests ({percent(stats.reported_cached_tokens, stats.reported_prompt_tokens)}"
            " of their prompt tokens)")
    lines += ["", "Prompt tokens computed again, by why reuse stopped:"]
    for kind, text in KIND_TEXT.items():
        if kind == "expired" and not stats.requests_by_kind[kind] and setup.ttl is None:
            continue
        lines.append(f"  {stats.lost_by_kind[kind]:>14,} tokens in {_count(stats.requests_by_kind[kind], 'request'):>16}: {text}")
    lines += [""] + _groups(stats, setup.group_by) + [""] + _places(setup, stats, color)
    if stats.over_capacity_lines:
        shown = ", ".join(map(str, stats.over_capacity_lines[:BAD_LINES_SHOWN]))
        lines += ["", f"{len(stats.over_capacity_lines):,} requests need more blocks than the whole cache holds"
                  f" and were not cached (lines {shown}{', …' if len(stats.over_capacity_lines) > BAD_LINES_SHOWN else ''})"]
    if bad:
        lines += ["", f"{_count(len(bad), 'bad line')}, not replayed:"]
        lines += [f"  {setup.log}:{b.line}: {b.message}" for b in bad[:BAD_LINES_SHOWN]]
        if len(bad) > BAD_LINES_SHOWN:
            lines.append(f"  … and {len(bad) - BAD_LINES_SHOWN:,} more (all of them in --format json)")
    return "\n".join(lines)
