"""Operations on the pieces of a prompt in source, keeping every character's file offset.

`template_fields` finds the fields of a template text (str.format `{x}`, printf-style
`%(x)s`, string.Template `$x`, Jinja `{{ x }}`) in its Text pieces; `strip_pieces` and `dedent_pieces` do what
`str.strip` and `textwrap.dedent` (or `.trim()`) do to the text, a Field counting as content.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable

from prefixlint.load.source_prompts import PROMPT_NAME, Field, SourcePrompt, Text, variable_name
from prefixlint.load.template import Variable

# -- template fields inside a text: str.format, printf-style %, string.Template -----------------

_STYLES = {
    "format": re.compile(r"(?P<escape>\{\{|\}\})|\{(?P<name>[A-Za-z_]\w*(?:\.\w+|\[[^\]{}]*\])*|\d*)"
                         r"(?:![rsa])?(?::[^{}]*)?\}"),
    "percent": re.compile(r"(?P<escape>%%)|%(?:\((?P<name>\w+)\))?[#0\- +]*\d*(?:\.\d+)?[sdifrxXeEgGc]"),
    "dollar": re.compile(r"(?P<escape>\$\$)|\$(?:\{(?P<braced>[A-Za-z_]\w*)\}|(?P<name>[A-Za-z_]\w*))"),
    # a Jinja template in a Python string: `{{ x }}`, `{{ x.y | filter }}` (other expressions and
    # `{% %}` tags stay text; nothing is an escape)
    "jinja": re.compile(r"(?P<escape>(?!))|\{\{-?\s*(?P<name>[A-Za-z_]\w*(?:\.\w+|\[[^\]{}]*\])*)\s*"
                        r"(?:\|[^{}]*?)?-?\}\}"),
}
#: A str.format field in a constant text, which its caller fills later (`{transcript}`; not `{{x}}`,
#: `${x}` or a JSON example): such a text is a template (`ts_source`'s constant prompts).
FORMAT_FIELD = re.compile(r"(?<![{$])\{[A-Za-z_]\w*\}(?!\})")
_PATH = re.compile(r"\w+")


def template_fields(pieces: list, style: str, source: str, positional: Callable[[int], Field | None] | None = None,
                    named: Callable[[str], Variable | None] | None = None) -> list:
    """`pieces` with the fields of a `style` template text (format, percent, dollar) made Fields.
    `named(variable)` gives a declared variable (a `.format(date=datetime.now())` argument);
    `positional(i)` the Field for the i-th positional field (`{}`, `{0}`, `%s`)."""
    pattern = _STYLES.get(style)
    if pattern is None:
        return pieces
    out: list = []
    count = 0
    for piece in pieces:
        if not isinstance(piece, Text):
            out.append(piece)
            continue
        last = 0
        for match in pattern.finditer(piece.chars):
            _append_text(out, piece, last, match.start())
            last = match.end()
            if match.group("escape"):
                out.append(Text(match.group("escape")[0], (piece.offsets[match.start()],)))
                continue
            path = match.groupdict().get("braced") or match.group("name") or ""
            start, end = piece.offsets[match.start()], piece.offsets[match.end() - 1] + 1
            if source[start : start + 2] == "{{" and source[end - 1 : end + 1] == "}}":
                end += 1  # an f-string's `{{time}}`, the `{time}` field of a later `.format()`
            if not path or path.isdigit():
                index = int(path) if path else count
                count += 1
                given = positional(index) if positional else None
                out.append(replace(given, offset=start, text=source[start:end]) if given else
                           Field(start, source[start:end], f"arg{index}"))
                continue
            segments = _PATH.findall(path)
            name = variable_name(segments, keyed="[" in path) if len(segments) > 1 else segments[0]
            out.append(Field(start, source[start:end], name, named(segments[0]) if named else None))
        _append_text(out, piece, last, len(piece.chars))
    return out


def _append_text(out: list, piece: Text, start: int, end: int) -> None:
    if end > start:
        out.append(Text(piece.chars[start:end], piece.offsets[start:end]))


# -- what Python's textwrap.dedent and str.strip do, on pieces ---------------------------------

def strip_pieces(pieces: list, left: bool = True, right: bool = True) -> list:
    pieces = list(pieces)
    if left:
        while pieces and isinstance(pieces[0], Text):
            kept = pieces[0].chars.lstrip()
            cut = len(pieces[0].chars) - len(kept)
            if kept:
                pieces[0] = Text(kept, pieces[0].offsets[cut:])
                break
            pieces.pop(0)
    if right:
        while pieces and isinstance(pieces[-1], Text):
            kept = pieces[-1].chars.rstrip()
            if kept:
                pieces[-1] = Text(kept, pieces[-1].offsets[: len(kept)])
                break
            pieces.pop()
    return pieces


def dedent_pieces(pieces: list) -> list:
    """textwrap.dedent: the margin common to the lines with content is removed from each line,
    and lines of only blanks become empty (a field counts as content)."""
    lines: list[list] = [[]]  # each: (char, offset) pairs or a Field
    for piece in pieces:
        if isinstance(piece, Field):
            lines[-1].append(piece)
            continue
        for char, offset in zip(piece.chars, piece.offsets):
            lines[-1].append((char, offset))
            if char == "\n":
                lines.append([])
    margins = [_margin(line) for line in lines if not _blank(line[len(_margin(line)):])]
    margin = _common_prefix(margins)
    out: list = []
    for line in lines:
        line = line[len(_margin(line)):] if _blank(line[len(_margin(line)):]) else line[len(margin):]
        for item in line:
            if isinstance(item, Field):
                out.append(item)
            elif out and isinstance(out[-1], Text):
                out[-1] = Text(out[-1].chars + item[0], out[-1].offsets + (item[1],))
            else:
                out.append(Text(item[0], (item[1],)))
    return out


def _margin(line: list) -> str:
    indent = 0
    while indent < len(line) and not isinstance(line[indent], Field) and line[indent][0] in " \t":
        indent += 1
    return "".join(item[0] for item in line[:indent])


def _blank(rest: list) -> bool:
    return not rest or (len(rest) == 1 and not isinstance(rest[0], Field) and rest[0][0] == "\n")


def _common_prefix(margins: list[str]) -> str:
    if not margins:
        return ""
    first, last = min(margins), max(margins)
    size = 0
    while size < len(first) and first[size] == last[size]:
        size += 1
    return first[:size]


#: A word of a prompt's own text: two letters in a row (any script).
_WORD = re.compile(r"[^\W\d_]{2}")
#: A prompt object or a name for one (`ChatPromptTemplate.from_messages`, `HELPDESK_PROMPT`):
#: its slots are the prompt, whatever text they hold; a message (`SystemMessage`) is not one.
_PROMPT_OBJECT = re.compile(r"prompt|template", re.IGNORECASE)


def has_content(prompt: SourcePrompt) -> bool:
    """Whether a prompt is worth measuring: some text with a blank in it (not a path or a key),
    with a word of its own unless it is a prompt object or one of its values is a prompt
    (`f"{SYSTEM_PROMPT}\n{now}"`) (a text of values and punctuation only,
    `content = f"{self.content}\n```{tool}```"`, formats a stored message: nothing of it is the
    program's prompt), and not a page of markup (an e-mail's or a web page's HTML, mostly tags:
    `is_markup`)."""
    text = "".join(p.chars for m in prompt.messages for p in m.pieces if isinstance(p, Text))
    if is_markup(text):
        return False
    if not _WORD.search(text) and not _PROMPT_OBJECT.search(prompt.name or "") and not any(
            isinstance(p, Field) and PROMPT_NAME.search(p.name) for m in prompt.messages for p in m.pieces):
        return False  # values and punctuation only, none a prompt, no prompt object's: a message being formatted
    return any(char.isspace() for char in text.strip()) or any(
        isinstance(p, Field) for m in prompt.messages for p in m.pieces)


#: An HTML or XML tag with its attributes (`<div style="...">`, `</td>`), not a prompt's
#: `<context>` section marker (no attribute) alone.
_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s+[\w:-]+(?:=(?:\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>")


def is_markup(text: str) -> bool:
    """A text that is mostly HTML tags (more than half its characters) and has tags with
    attributes: a page or an e-mail body the code renders, which no model is sent."""
    tags = _TAG.findall(text)
    return sum(map(len, tags)) * 2 > len(text.strip()) and any(" " in tag for tag in tags)
