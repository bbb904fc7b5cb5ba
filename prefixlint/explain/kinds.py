"""What one place where a request and the cached side differ is: the cause of that `Region`.

In this order: whitespace only; the same characters in another order in JSON (tool schemas
serialized with another key or tool order); text the model generated that the chat template
renders otherwise once it is history (a dropped reasoning block); the user's new message, or text
past the end of what was cached (new content); text no message holds (the template wrote it: a
date); a value named by `check`'s classifier (timestamp, identifier, user data, counter); a
block with stable text after it (a few-shot example, else a retrieved document); other.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

from prefixlint.explain.align import Region, same_chars
from prefixlint.explain.causes import _MARKUP, name_value, widen
from prefixlint.explain.context import Context, _canonical

#: A region with less equal text than this after it is the tail of the prompt.
STABLE_CHARS = 40
#: A single-line difference up to this long is a value, longer is a block.
VALUE_CHARS = 120
#: A single-line difference shorter than this is not a document (unless labelled as one).
BLOCK_CHARS = 60
_RETRIEVED = re.compile(r"(?i)\b(context|document|documents|retrieved|source|sources|passage|snippet|search results?)\b")
_FEW_SHOT = re.compile(
    r"(?im)(\bexamples?\b|\bfew[- ]shot\b|\bdemonstrations?\b|^\s*(q|a|question|answer|input|output|human|ai|"
    r"user|assistant|sample)\s*\d*\s*[:：])")


@dataclass
class Sides:
    """The two texts a region is read in, and what is known of each."""

    text: str
    other: str
    context: Context = field(default_factory=Context)
    other_context: Context = field(default_factory=Context)
    #: Character where the cached side's generated tokens start (its prompt's length).
    other_generated: int | None = None


def _line(text: str, start: int) -> tuple[str, int]:
    begin = text.rfind("\n", 0, start) + 1
    end = text.find("\n", start)
    return text[begin: len(text) if end < 0 else end], begin


def _moved(piece: str, elsewhere: str) -> bool:
    piece = piece.strip()
    return len(piece) >= 8 and piece in elsewhere


def _jsonish(text: str) -> bool:
    return '"' in text and any(c in text for c in "{[:")


#: Opening brackets tried, nearest first, when looking for the JSON value around a region.
JSON_TRIES = 40
_DECODER = json.JSONDecoder()


def json_around(text: str, start: int, end: int) -> tuple[int, int, Any] | None:
    """The innermost JSON object or array of `text` that holds [start, end): its span and value."""
    tries, at = 0, start + 1
    while tries < JSON_TRIES:
        at = max(text.rfind("{", 0, at), text.rfind("[", 0, at))
        if at < 0:
            return None
        tries += 1
        try:
            value, stop = _DECODER.raw_decode(text, at)
        except ValueError:
            continue
        if stop >= end and isinstance(value, (dict, list)):
            return at, stop, value
    return None


def reordered_json(region: Region, sides: Sides) -> int | None:
    """Where the JSON around the region ends in the request's text when both sides hold the same
    JSON value serialized in another key order; else None."""
    mine = json_around(sides.text, region.start, region.end)
    if mine is None:
        return None
    theirs = json_around(sides.other, region.other_start, region.other_end)
    if theirs is None or _canonical(mine[2]) != _canonical(theirs[2]):
        return None
    return mine[1]


def kind_of(region: Region, sides: Sides) -> str | tuple[str, int, str]:
    """The cause of `region`, or (cause, character where its value starts, the value)."""
    mine = sides.text[region.start: region.end]
    theirs = sides.other[region.other_start: region.other_end]
    if "".join(mine.split()) == "".join(theirs.split()):
        return "whitespace"
    if "{" in sides.text[max(0, region.start - 2000): region.end + 1] and reordered_json(region, sides) is not None:
        return "tool-order"
    ours, others = sides.context, sides.other_context
    if ours.tools_text != others.tools_text and ours.tools_canonical == others.tools_canonical \
            and _jsonish(mine or theirs):
        return "tool-order"  # the request's tools are the cached side's, serialized in another order
    if same_chars(mine, theirs) and _jsonish(mine):
        return "tool-order"
    if (not theirs and _moved(mine, sides.other)) or (not mine and _moved(theirs, sides.text)):
        return "tool-order" if _jsonish(mine or theirs) else "other"
    generated = sides.other_generated
    if generated is not None and region.other_start >= generated and theirs:
        return "template"  # what the model generated, rendered otherwise as history
    if region.other_start >= len(sides.other):
        return "new-content"  # past everything cached
    last_user = sides.context.last_user
    if last_user:
        at = sides.text.rfind(last_user[:200].strip())
        if 0 <= at <= region.start:
            return "new-content"
    single = "\n" not in mine.strip("\n") and "\n" not in theirs.strip("\n")
    if single and mine and theirs:
        line, begin = _line(sides.text, region.start)
        other_line, other_begin = _line(sides.other, region.other_start)
        s, e = widen(line, region.start - begin, region.end - begin)
        os_, oe = widen(other_line, region.other_start - other_begin, region.other_end - other_begin)
        if sides.context.messages and not sides.context.holds(line[s:e]) \
                and not sides.other_context.holds(other_line[os_:oe]) and re.search(r"\w", line[s:e]):
            return "template", begin + s, " ".join(_MARKUP.sub(" ", line).split())
        if len(line) <= VALUE_CHARS * 4 or e - s <= VALUE_CHARS:
            cause, value = name_value(line, region.start - begin, region.end - begin, other_line[os_:oe])
            if cause is not None and len(mine.strip()) > max(2 * len(value), len(value) + 24):
                cause = None  # a value inside a longer differing text: the text is the place (a document)
            if cause is not None:
                at = line.find(value, max(0, s - len(value))) if value else -1
                return cause, begin + (at if at >= 0 else s), value
    if region.stable_after >= STABLE_CHARS:
        before = sides.text[max(0, sides.text.rfind("\n", 0, max(0, region.start - 1)) ): region.start]
        if _FEW_SHOT.search(before + mine) or _FEW_SHOT.search(theirs):
            return "few-shot"
        if not single or max(len(mine), len(theirs)) > BLOCK_CHARS or _RETRIEVED.search(before):
            return "retrieved"
        return "other"  # a few words the classifier cannot name (another company's name)
    if sides.context.messages:
        return "new-content"
    return "new-content" if region.stable_after < STABLE_CHARS else "other"


def kinds(found: Sequence[Region], sides: Sides) -> list[tuple[Region, str, int, str]]:
    """(region, cause, character where the place starts, its text) of every region; runs of one
    cause that are one place (a CRLF on every line, a schema's reordered keys) are named once."""
    named: list[tuple[Region, str, int, str]] = []
    inside = -1  # the end of a reordered JSON value: its other differences are the same place
    for region in found:
        if region.start < inside:
            continue
        cause = kind_of(region, sides)
        if cause == "tool-order":
            inside = reordered_json(region, sides) or -1
        start, text = region.start, sides.text[region.start: region.end]
        if isinstance(cause, tuple):
            cause, start, text = cause
        if named and cause in ("whitespace", "tool-order", "retokenized", "template") and named[-1][1] == cause:
            continue
        named.append((region, cause, start, text))
    return named
