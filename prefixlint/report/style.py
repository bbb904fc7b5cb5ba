"""Small helpers for human output: escaped snippets, colour (percentages: prefixlint.numbers)."""

from __future__ import annotations

import click


def visible(text: str) -> str:
    """Show whitespace that matters at a token boundary: newlines and tabs as escapes."""
    return text.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")


def tail(text: str, width: int = 48) -> str:
    shown = visible(text)
    return shown if len(shown) <= width else "…" + shown[-width:]


def head(text: str, width: int = 24) -> str:
    shown = visible(text)
    return shown if len(shown) <= width else shown[:width] + "…"


def paint(text: str, color: bool | None, **style) -> str:
    # click.echo strips these codes again when the output is not a terminal.
    return click.style(text, **style) if color is not False else text


def plural(count: int, noun: str) -> str:
    """`1 token`, `2 tokens`: the count with its noun in the right number."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
