"""The causes of a replay's misses, tallied: by first cause, by place (cause and token), and
one JSON object per request for `--per-request` (written as they come, in log order)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Sequence

from prefixlint.explain.causes import Cause
from prefixlint.explain.explainer import Explainer
from prefixlint.explain.kinds import Context


@dataclass
class CausePlace:
    """Requests whose reuse broke at the same token for the same cause (first or later)."""

    cause: str
    token: int
    requests: int = 0
    #: Prompt tokens computed again by the requests for which this was the first cause.
    tokens_lost: int = 0
    first_line: int = 0
    text: str = ""


@dataclass
class CauseTally:
    requests: int = 0
    tokens_lost: int = 0
    #: Requests where this cause appears at any place (first or later).
    anywhere: int = 0


@dataclass
class Explained:
    """Feeds each served request to an `Explainer` and keeps the tallies; `out` receives the
    `--per-request` lines."""

    explainer: Explainer
    out: IO[str] | None = None
    by_cause: dict[str, CauseTally] = field(default_factory=dict)
    places: dict[tuple[str, int], CausePlace] = field(default_factory=dict)
    index: int = 0
    #: Kept for tests and small logs when asked (None: not kept).
    rows: list[dict] | None = None

    def observe(self, request: Any, cached_tokens: int, miss: str | None, context: Context | None) -> list[Cause]:
        """One served request (a `prefixlint.replay` Request: `line`, `group`, `prompt`,
        `generated`, `prompt_tokens`) and what it reused."""
        causes = self.explainer.explain(request.prompt, request.generated, context, request.group,
                                        miss, cached_tokens)
        lost = request.prompt_tokens - cached_tokens
        for number, cause in enumerate(causes):
            tally = self.by_cause.setdefault(cause.cause, CauseTally())
            tally.anywhere += 1
            if number == 0:
                tally.requests += 1
                tally.tokens_lost += lost
            if cause.cause in ("full-hit", "cold"):
                continue
            at = cause.place if cause.place is not None else cause.token
            place = self.places.get((cause.cause, at))
            if place is None:
                place = self.places[(cause.cause, at)] = CausePlace(cause.cause, at, first_line=request.line,
                                                                     text=cause.text)
            place.requests += 1
            place.tokens_lost += lost if number == 0 else 0
        row = {"index": self.index, "line": request.line}
        if context is not None and context.request_id is not None:
            row["request_id"] = context.request_id
        row.update(prompt_tokens=request.prompt_tokens, cached_tokens=cached_tokens,
                   causes=[c.to_dict() for c in causes])
        self.index += 1
        if self.out is not None:
            self.out.write(json.dumps(row, ensure_ascii=False) + "\n")
        if self.rows is not None:
            self.rows.append(row)
        return causes

    def top_places(self, count: int = 10) -> list[CausePlace]:
        return sorted(self.places.values(), key=lambda p: (-p.tokens_lost, -p.requests, p.first_line))[:count]

    def to_dict(self) -> dict:
        return {
            "by_cause": {name: {"requests": t.requests, "tokens_lost": t.tokens_lost, "anywhere": t.anywhere}
                         for name, t in sorted(self.by_cause.items(), key=lambda kv: (-kv[1].tokens_lost, kv[0]))},
            "places": [{"cause": p.cause, "token": p.token, "requests": p.requests, "tokens_lost": p.tokens_lost,
                        "first_line": p.first_line, "text": p.text} for p in self.top_places()],
        }

    def to_lines(self) -> list[str]:
        if not self.by_cause:
            return []
        lines = ["Why requests missed (first cause of each request; later places in --per-request):"]
        for name, t in sorted(self.by_cause.items(), key=lambda kv: (-kv[1].tokens_lost, -kv[1].requests, kv[0])):
            also = t.anywhere - t.requests
            lines.append(f"  {name:<12} {t.requests:>8,} {'request ' if t.requests == 1 else 'requests'}"
                         f" {t.tokens_lost:>12,} tokens computed again"
                         + (f"   (+{also:,} as a later place)" if also else ""))
        places = self.top_places()
        if places:
            lines += ["", f"Places by cause (top {len(places)}: cause, token, requests, tokens computed again):"]
            for number, p in enumerate(places, 1):
                lines.append(f"{number:>3}. {p.cause} at token {p.token:,}:"
                             f" {p.requests:,} request{'s' * (p.requests != 1)}, {p.tokens_lost:,} tokens"
                             f" (first on line {p.first_line})  {json.dumps(p.text, ensure_ascii=False)}")
        return lines


def explained(token_text: Callable[[int], str], out: IO[str] | None = None, keep_rows: bool = False) -> Explained:
    return Explained(Explainer(token_text), out, rows=[] if keep_rows else None)


def write_rows(rows: Sequence[dict], out: IO[str]) -> None:
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
