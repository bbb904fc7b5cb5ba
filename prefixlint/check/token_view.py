"""The tokens behind a file's numbers, for `check --format html`: the request as the engine sees
it, now and after the suggested fix, with where reuse stops and which placeholder stops it.

Built only when asked for (`Settings.token_view`): every other format needs the numbers alone.
"""

from __future__ import annotations

from typing import Any


def token_view(measurer, measured, moved: set[int], overall, fixed_ids=()) -> dict[str, Any]:
    """{"block_size", "now": side, "fixed": side, "moved": [placeholder texts]}; a side is
    {"tokens": [text of each token], "shared_prefix_tokens", "reusable_tokens", "stop": ...}.
    `fixed_ids`: the fixed file's request, as its figures were measured (`prefixlint.fix.attach`);
    without a fix, the fixed variant of the measurement."""
    base = measurer.render()
    texts = measurer.tokenizer.token_text
    first = min(measured, key=lambda m: m.now.shared_prefix_tokens, default=None)
    stop = None
    if first is not None and overall.shared_prefix_tokens < overall.tokens:
        placeholder = first.placeholder
        stop = {"token": overall.shared_prefix_tokens, "placeholder": placeholder.text,
                "line": placeholder.line, "column": placeholder.column, "variable": first.volatility.name}
    moved_texts = sorted({measurer.compiled.placeholders[i].text for i in moved})
    fixed_ids = list(fixed_ids) or measurer.fixed_ids(base, moved)
    fixed_stop = None
    if overall.fixed_shared_prefix_tokens < overall.fixed_tokens:
        fixed_stop = {"token": overall.fixed_shared_prefix_tokens,
                      "placeholder": ", ".join(moved_texts) if moved_texts else (stop or {}).get("placeholder")}
    tokens = [texts(i) for i in base.ids]
    return {
        "block_size": measurer.profile.unit,
        #: Token indexes of the conversation history prefixlint generated after a system prompt.
        "generated": generated_tokens(tokens, base.text, measurer.history),
        "engine": measurer.profile.name,
        "moved": moved_texts,
        "now": {"tokens": tokens, "shared_prefix_tokens": overall.shared_prefix_tokens,
                "reusable_tokens": overall.reusable_tokens, "stop": stop},
        "fixed": {"tokens": [texts(i) for i in fixed_ids],
                  "shared_prefix_tokens": overall.fixed_shared_prefix_tokens,
                  "reusable_tokens": overall.fixed_reusable_tokens, "stop": fixed_stop},
    }


def generated_tokens(tokens: list[str], text: str, history) -> list[int]:
    """The indexes of the tokens of the generated history turns found in the request's text
    (their contents are prefixlint's own text, so an exact search finds them)."""
    ranges, start = [], 0
    for turn in history:
        content = turn.get("content") if isinstance(turn, dict) else None
        if not content:
            continue
        at = text.find(content, start)
        if at >= 0:
            ranges.append((at, at + len(content)))
            start = at + len(content)
    if not ranges or "".join(tokens) != text:
        return []
    found, offset = [], 0
    for index, piece in enumerate(tokens):
        if any(a <= offset < b for a, b in ranges):
            found.append(index)
        offset += len(piece)
    return found
