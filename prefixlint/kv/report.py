"""Output of `prefixlint kv`: what the KV cache of one model costs, as a table or as JSON."""

from __future__ import annotations

import json
from typing import Sequence

from prefixlint.kv.layout import DTYPE_BYTES, KVLayout, format_bytes, format_tokens

_KIND_NAMES = {
    "full": "full attention", "sliding": "sliding window", "latent": "latent attention (MLA)",
    "linear": "linear attention", "mamba": "Mamba",
}


def to_dict(source: str, layout: KVLayout, naive: KVLayout, contexts: Sequence[int],
            memory: int | None) -> dict:
    return {
        "config": source,
        "dtype": layout.dtype,
        "bytes_per_value": DTYPE_BYTES[layout.dtype],
        "bytes_per_token": layout.bytes_per_token,
        "fixed_bytes": layout.fixed_bytes,
        "naive_bytes_per_token": naive.bytes_per_token,
        "layers": [
            {"kind": g.kind, "layers": g.layers, "bytes_per_token": g.per_token,  # in each layer (kept key)
             "bytes_per_token_per_layer": g.per_token, "bytes_per_token_all_layers": g.per_token * g.layers,
             "window": g.window, "state_bytes": g.state}
            for g in layout.groups
        ],
        "memory_bytes": memory,
        "contexts": [
            {
                "tokens": tokens,
                "bytes": layout.bytes_at(tokens),
                "conversations_fit": layout.conversations_fit(memory, tokens) if memory else None,
                "conversations_fit_growing_only":
                    layout.conversations_fit(memory, tokens, growing_only=True) if memory else None,
            }
            for tokens in contexts
        ],
    }


def to_json(*args, **kwargs) -> str:
    return json.dumps(to_dict(*args, **kwargs), indent=2)


def _layers_line(layout: KVLayout) -> str:
    parts = []
    for g in layout.groups:
        text = f"{g.layers} {_KIND_NAMES[g.kind]}"
        if g.kind == "sliding":
            text += f" ({g.window:,}-token window)"
        parts.append(text)
    return ", ".join(parts)


def to_text(source: str, layout: KVLayout, naive: KVLayout, contexts: Sequence[int],
            memory: int | None, *, si: bool = False, dtype_from: str = "config.json") -> str:
    size = lambda value: format_bytes(value, si=si)  # noqa: E731
    lines = [
        f"config    {source}",
        f"dtype     {layout.dtype} ({DTYPE_BYTES[layout.dtype]} byte{'' if DTYPE_BYTES[layout.dtype] == 1 else 's'}"
        f" per value, {dtype_from})",
        f"layers    {_layers_line(layout)}",
        f"growing   {size(layout.bytes_per_token)} per token ({layout.bytes_per_token:,} bytes)",
    ]
    if layout.fixed_bytes:
        lines.append(
            f"fixed     {size(layout.fixed_bytes)} per conversation ({layout.fixed_bytes:,} bytes):"
            " full sliding windows and recurrent states"
        )
    if naive.bytes_per_token != layout.bytes_per_token:
        lines.append(
            f"naive     {size(naive.bytes_per_token)} per token ({naive.bytes_per_token:,} bytes)"
            " if every layer is allocated as full attention (--naive)"
        )
    lines.append("")
    header = ["context", "cache per conversation"]
    if memory:
        header += [f"fit in {size(memory)}", "growing part only"]
    rows = [header]
    for tokens in contexts:
        row = [f"{format_tokens(tokens)} token{'' if tokens == 1 else 's'}", size(layout.bytes_at(tokens))]
        if memory:
            row += [f"{layout.conversations_fit(memory, tokens):,}",
                    f"{layout.conversations_fit(memory, tokens, growing_only=True):,}"]
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        lines.append("  ".join(cell.ljust(width) if i < 2 else cell.rjust(width)
                               for i, (cell, width) in enumerate(zip(row, widths))).rstrip())
    if memory:
        lines.append("")
        lines.append(
            f"`fit` counts each conversation's whole cache (growing part and fixed part);"
            f" `growing part only` leaves the fixed {size(layout.fixed_bytes)} out, as published figures often do."
            if layout.fixed_bytes else
            "`fit` counts each conversation's whole cache; this model has no fixed part."
        )
    return "\n".join(lines)
