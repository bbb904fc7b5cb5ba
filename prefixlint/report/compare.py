"""Output of `prefixlint compare`: a table a person reads, or the JSON shape tools read."""

from __future__ import annotations

import json
from typing import Sequence

from prefixlint.engines.profiles import EngineProfile
from prefixlint.engines.serve import Served
from prefixlint.numbers import percent
from prefixlint.report.style import head, paint, tail, visible

SHARED_WIDTH = 40  # characters of shared text shown before a break
AFTER_WIDTH = 24  # characters shown after each side's first differing token


def to_dict(results: Sequence[Served], tokenizer: str, profile: EngineProfile) -> dict:
    requests = []
    for item in results:
        divergence = None
        if item.divergence is not None:
            d = item.divergence
            divergence = {
                "token_index": d.token_index,
                "char_offset": d.char_offset,
                "other_source": results[d.other_index].prompt.source,
                "other_char_offset": d.other_char_offset,
                "token": d.token,
                "other_token": d.other_token,
            }
        requests.append({
            "source": item.prompt.source,
            "tokens": item.tokens,
            "shared_prefix_tokens": item.shared_prefix_tokens,
            "reusable_tokens": item.reusable_tokens,
            "shared_prefix_ratio": round(item.ratio(item.shared_prefix_tokens), 6),
            "reusable_ratio": round(item.ratio(item.reusable_tokens), 6),
            "divergence": divergence,
        })
    total = sum(item.tokens for item in results)
    reusable = sum(item.reusable_tokens for item in results)
    return {
        "tokenizer": tokenizer,
        "engine": {
            "name": profile.name,
            "block_size": profile.unit,
            "whole_blocks_only": profile.whole_units_only,
            "last_token_recomputed": profile.last_token_recomputed,
            "min_tokens": profile.min_tokens,
            "increment": profile.increment,
            "verified": profile.verified,
        },
        "requests": requests,
        "totals": {
            "tokens": total,
            "shared_prefix_tokens": sum(item.shared_prefix_tokens for item in results),
            "reusable_tokens": reusable,
            "reusable_ratio": round(reusable / total, 6) if total else 0.0,
        },
    }


def to_json(results: Sequence[Served], tokenizer: str, profile: EngineProfile) -> str:
    return json.dumps(to_dict(results, tokenizer, profile), indent=2, ensure_ascii=False)


def _line_col(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}, col {column}"


def _break(item: Served, results: Sequence[Served], color: bool | None) -> list[str]:
    """The break at a glance: the end of the shared text, then each side's first own token."""
    d = item.divergence
    if d is None:
        return []
    mine, theirs = item.prompt, results[d.other_index].prompt
    shared = tail(mine.text[: d.char_offset], SHARED_WIDTH)
    width = max(len(mine.source), len(theirs.source))

    def side(request, offset: int, token: str | None, fg: str) -> str:
        if token is None:
            shown = paint("[end of request]", color, fg=fg)
            after = ""
        else:
            shown = paint(f"[{visible(token)}]", color, fg=fg, bold=True)
            rest = request.text[offset:]
            # (a SentencePiece token may carry a dummy-prefix space that the text does not have)
            after = head(rest[len(token) if rest.startswith(token) else len(token.lstrip(" ")):], AFTER_WIDTH)
        return (f"      {request.source:>{width}} | {paint(shared, color, fg='green')}{shown}"
                f"{paint(after, color, dim=True)}")

    nothing = " (nothing shared)" if not d.token_index else ""
    return [
        f"    diverges at token {d.token_index:,}{nothing}: char {d.char_offset:,}"
        f" ({_line_col(mine.text, d.char_offset)}) here, char {d.other_char_offset:,} in {theirs.source}",
        side(mine, d.char_offset, d.token, "red"),
        side(theirs, d.other_char_offset, d.other_token, "yellow"),
    ]


def _tokens(count: int) -> str:
    return f"{count:,} token" + ("" if count == 1 else "s")


def to_text(results: Sequence[Served], tokenizer: str, profile: EngineProfile, color: bool | None) -> str:
    lines = [f"tokenizer {tokenizer} · engine {profile.describe()}", ""]
    width = max(len(item.prompt.source) for item in results)
    for number, item in enumerate(results, 1):
        if number == 1:
            note = "  cold: nothing cached yet"
        elif item.divergence is None and item.shared_prefix_tokens == item.tokens:
            note = "  whole request cached"
        else:
            note = ""
        lines.append(
            f"{number:>2}. {item.prompt.source:<{width}}  {_tokens(item.tokens):>14}"
            f"  shared {item.shared_prefix_tokens:>7,} ({percent(item.shared_prefix_tokens, item.tokens):>6})"
            f"  reusable {item.reusable_tokens:>7,} ({percent(item.reusable_tokens, item.tokens):>6}){note}"
        )
        lines += _break(item, results, color)
    total = sum(item.tokens for item in results)
    reusable = sum(item.reusable_tokens for item in results)
    shared = sum(item.shared_prefix_tokens for item in results)
    lines += ["", f"{len(results)} request{'s' if len(results) != 1 else ''} · {_tokens(total)}"
              f" · shared {shared:,} ({percent(shared, total)})"
              f" · reusable after rounding {reusable:,} ({percent(reusable, total)})"]
    return "\n".join(lines)
