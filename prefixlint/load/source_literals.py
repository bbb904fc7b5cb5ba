"""Python string literals read character by character, each character kept with its file offset.

`ast` says which expression is a prompt, but not where each character of a string's value is
written (escapes, implicit concatenation, f-string fields; Python 3.11 does not even locate
the expressions inside an f-string). So the literals of an `ast` string node are scanned here
from the source: prefixes (`r`, `f`, `rf`, `b`, `u`), all four quote kinds, escape sequences
(each decoded character points at its backslash), `{{`/`}}` in f-strings, and each f-string
field with its expression text, `!conversion` and `:format_spec` (nested quotes of either kind,
as Python 3.12 allows). Adjacent literals (`"a" "b"`, across lines, parentheses and comments)
are one value, as Python concatenates them.
"""

from __future__ import annotations

import codecs
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from prefixlint.load.source_prompts import Text

_SIMPLE_ESCAPES = {"\n": "", "\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t", "v": "\v"}
_NUMERIC_ESCAPE = re.compile(r"x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|N\{[^}]*\}")


@dataclass
class RawField:
    """An f-string field as written: `{expression!conversion:spec}` from `start` to `end`."""

    start: int
    end: int
    expression: str
    expression_start: int
    conversion: str | None
    spec: str


def scan(text: str, start: int, end: int) -> list[Text | RawField] | None:
    """The pieces of the string literals in text[start:end] (one `ast` string node); None for bytes."""
    pieces: list[Text | RawField] = []
    p = start
    while p < end:
        p = _skip_between(text, p, end)
        if p >= end:
            break
        p = _literal(text, p, pieces)
        if p < 0:
            return None
    return _merged(pieces)


def _skip_between(text: str, p: int, end: int) -> int:
    while p < end:
        char = text[p]
        if char in " \t\r\n\f()":
            p += 1
        elif char == "\\" and text.startswith("\n", p + 1):
            p += 2
        elif char == "#":
            newline = text.find("\n", p)
            p = end if newline < 0 else newline + 1
        else:
            break
    return p


def _literal(text: str, p: int, pieces: list) -> int:
    prefix_start = p
    while text[p] in "rRbBuUfF":
        p += 1
    prefix = text[prefix_start:p].lower()
    if "b" in prefix:
        return -1
    raw, fstring = "r" in prefix, "f" in prefix
    quote = text[p : p + 3] if text[p : p + 3] in ('"""', "'''") else text[p]
    p += len(quote)
    chars: list[str] = []
    offsets: list[int] = []

    def flush() -> None:
        if chars:
            pieces.append(Text("".join(chars), tuple(offsets)))
            chars.clear()
            offsets.clear()

    while not text.startswith(quote, p):
        char = text[p]
        if char == "\\":
            if raw:
                chars.append("\\")
                offsets.append(p)
                p += 1
                if p < len(text):
                    chars.append(text[p])
                    offsets.append(p)
                    p += 1
                continue
            value, length = _escape(text, p, fstring)
            chars.extend(value)
            offsets.extend([p] * len(value))
            p += length
        elif fstring and char in "{}" and text.startswith(char * 2, p):
            chars.append(char)
            offsets.append(p)
            p += 2
        elif fstring and char == "{":
            flush()
            field = _field(text, p)
            pieces.append(field)
            p = field.end
        else:  # a run of plain characters up to the next backslash, brace or quote, at once
            stop = _special(quote[0], fstring).search(text, p + 1)
            run_end = stop.start() if stop else len(text)
            chars.append(text[p:run_end])
            offsets.extend(range(p, run_end))
            p = run_end
    flush()
    return p + len(quote)


@lru_cache(maxsize=8)
def _special(quote: str, fstring: bool) -> re.Pattern:
    """Where a run of plain characters of a literal ends: a backslash, its quote, an f-string's brace."""
    return re.compile("[\\\\" + re.escape(quote) + ("{}" if fstring else "") + "]")


def _escape(text: str, p: int, fstring: bool) -> tuple[str, int]:
    """The decoded value of the escape at text[p] (a backslash) and its length in the source."""
    code = text[p + 1]
    if code in _SIMPLE_ESCAPES:
        return _SIMPLE_ESCAPES[code], 2
    match = _NUMERIC_ESCAPE.match(text, p + 1)
    if match is None:
        return "\\" + code, 2  # an unknown escape stays as written
    sequence = match.group(0)
    if sequence.startswith("N{"):
        try:
            return unicodedata.lookup(sequence[2:-1]), 1 + len(sequence)
        except KeyError:
            return "\\" + sequence, 1 + len(sequence)
    return codecs.decode("\\" + sequence, "unicode_escape"), 1 + len(sequence)


def _field(text: str, p: int) -> RawField:
    """The f-string field starting at text[p] (`{`): brackets and nested strings are skipped."""
    depth, q = 0, p + 1
    conversion_at = spec_at = None
    while q < len(text):
        char = text[q]
        if char in "'\"" and spec_at is None:
            q = _skip_string(text, q)
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            if not depth:
                break  # the field's closing brace
            depth -= 1
        elif depth == 0 and spec_at is None:
            if char == "!" and not text.startswith("!=", q) and conversion_at is None:
                conversion_at = q
            elif char == ":":
                spec_at = q
        q += 1
    expression_end = conversion_at or spec_at or q
    expression = text[p + 1 : expression_end]
    conversion = text[conversion_at + 1 : (spec_at or q)].strip() if conversion_at else None
    spec = text[spec_at + 1 : q] if spec_at else ""
    if expression.rstrip().endswith("=") and not expression.rstrip().endswith(("==", "!=", "<=", ">=")):
        expression = expression.rstrip()[:-1]  # `{x=}` (self-documenting): the value is what counts
    return RawField(p, q + 1, expression, p + 1, conversion, spec)


def _skip_string(text: str, q: int) -> int:
    quote = text[q : q + 3] if text[q : q + 3] in ('"""', "'''") else text[q]
    q += len(quote)
    while q < len(text) and not text.startswith(quote, q):
        q += 2 if text[q] == "\\" else 1
    return q + len(quote)


def _merged(pieces: list) -> list:
    """Adjacent Text pieces joined into one. Each run is joined once at its end: adding the pieces
    one by one copied the run so far for each (150,000 concatenated lines took minutes)."""
    out: list = []
    run: list[Text] = []

    def flush() -> None:
        if len(run) == 1:
            out.append(run[0])
        elif run:
            out.append(Text("".join(t.chars for t in run), tuple(o for t in run for o in t.offsets)))
        run.clear()

    for piece in pieces:
        if isinstance(piece, Text):
            run.append(piece)
        else:
            flush()
            out.append(piece)
    flush()
    return out
