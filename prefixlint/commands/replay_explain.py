"""`replay`'s options that explain and act on the misses: --per-request, --fail-under, --rewrite.

Kept apart from `commands/replay.py` (the replay itself): the causes come from
`prefixlint.explain`, which the serve loop feeds through one hook (`replay_log(observe=...)`).
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Callable

import click

if TYPE_CHECKING:
    from prefixlint.explain.tally import Explained


def _rate(ctx, param, value):
    if value is None:
        return None
    text = value.strip()
    try:
        number = float(text.removesuffix("%"))
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a hit rate (0.5, or 50%)") from None
    if text.endswith("%") or number > 1:
        number /= 100
    if not 0 <= number <= 1:
        raise click.BadParameter(f"{value!r}: a hit rate is between 0 and 1 (or 0% and 100%)")
    return number


def explain_options(function):
    options = [
        click.option("--per-request", "per_request", metavar="PATH",
                     help="Write one JSON object per request (index, request_id, prompt_tokens, cached_tokens,"
                     " causes) to PATH (JSON Lines; - for standard output)."),
        click.option("--fail-under", "fail_under", metavar="RATE", callback=_rate,
                     help="Exit 1 when the hit rate is below RATE (0.5 or 50%), 0 otherwise: a gate for CI."),
        click.option("--no-causes", "no_causes", is_flag=True,
                     help="Do not name the cause of each miss (faster on large logs; no --per-request, --rewrite)."),
        click.option("--rewrite", "rewrite_out", metavar="OUT.jsonl",
                     help="Write the log rewritten as check --fix fixes templates (volatile lines after the stable"
                     " part, tool schemas with sorted keys in a stable order, whitespace normalized), replay it,"
                     " and report the hit rate before and after."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


class Explaining:
    """The explanation of one replay: the hook's receiver, and its output."""

    def __init__(self, renderer: Any, per_request: str | None, stack: contextlib.ExitStack,
                 enabled: bool = True) -> None:
        if not enabled and per_request:
            raise click.UsageError("--per-request names the causes: drop --no-causes")
        self.renderer = renderer
        self.hook = self.observe if enabled else None
        self.stack = stack
        self.out = None
        if per_request == "-":
            import sys

            self.out = sys.stdout
        elif per_request:
            from prefixlint.load.files import open_error

            try:
                self.out = stack.enter_context(open(per_request, "w", encoding="utf-8"))
            except OSError as exc:
                raise open_error(exc, per_request) from None
        self.tally: Explained | None = None
        self.total: Any = None  # the replay's overall tally, set before --rewrite replays again

    def observe(self, request, outcome, context) -> None:
        if self.out is None and _token_ids_only(context):
            # A prompt logged as token ids has no text to name a cause from: by default it is
            # replayed at the speed of reading the log; --per-request still explains it.
            return
        if self.tally is None:
            from prefixlint.explain.tally import explained

            if self.renderer.tokenizer is None:
                self.renderer.load()
            self.tally = explained(self.renderer.tokenizer.token_text, self.out)
        miss = outcome.miss.kind if outcome.miss is not None else None
        self.tally.observe(request, outcome.cached_tokens, miss, context)

    def _rewrite(self, log: str, out: str, again: Callable[[str], Any]) -> dict:
        """--rewrite: the rewritten log written to `out`, replayed by `again`."""
        from prefixlint.explain.rewrite import rewrite_log

        counts = rewrite_log(log, out)
        before = self.total
        after = again(out).replay.stats.total
        return {"output": out, "requests_rewritten": counts.rewritten, "lines": counts.lines,
                "moved_lines": counts.moved_lines, "tools_sorted": counts.tools_sorted,
                "whitespace_fixed": counts.whitespace_fixed,
                "before": {"cached_tokens": before.cached_tokens, "prompt_tokens": before.prompt_tokens,
                           "hit_rate": round(before.hit_rate, 6)},
                "after": {"cached_tokens": after.cached_tokens, "prompt_tokens": after.prompt_tokens,
                          "hit_rate": round(after.hit_rate, 6)}}

    def json(self, log: str, rewrite_out: str | None, again: Callable[[str], Any]) -> dict:
        data: dict[str, Any] = {"causes": self.tally.to_dict() if self.tally is not None else None}
        if rewrite_out:
            data["rewrite"] = self._rewrite(log, rewrite_out, again)
        return data

    def text(self, log: str, rewrite_out: str | None, again: Callable[[str], Any]) -> str:
        lines = self.tally.to_lines() if self.tally is not None else []
        if rewrite_out:
            r = self._rewrite(log, rewrite_out, again)
            lines += ["", f"Rewritten log {r['output']}: {r['requests_rewritten']:,} of {r['lines']:,} requests changed"
                      f" ({r['moved_lines']:,} volatile lines moved after the stable part, {r['tools_sorted']:,} tool"
                      f" lists sorted, {r['whitespace_fixed']:,} messages with whitespace normalized)",
                      f"  hit rate before {r['before']['hit_rate']:.1%} ({r['before']['cached_tokens']:,} cached tokens),"
                      f" after {r['after']['hit_rate']:.1%} ({r['after']['cached_tokens']:,})"]
        return "\n\n" + "\n".join(lines) if lines else ""


def _token_ids_only(context) -> bool:
    """Whether a request came as token ids alone (a completions `prompt` list): no messages,
    no tools, nothing of its text in the log."""
    return context is not None and not context.messages and not context.tools_text and context.token_ids


def gate(ctx: click.Context, rate: float, fail_under: float | None) -> None:
    """--fail-under: exit 1 below the rate (after the report is printed)."""
    if fail_under is not None and rate < fail_under:
        click.echo(f"prefixlint: hit rate {rate:.1%} is below --fail-under {fail_under:.1%}", err=True)
        ctx.exit(1)
