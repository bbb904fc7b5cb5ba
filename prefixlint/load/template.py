"""The in-memory shape every template format is loaded into, with a way back to the file.

A loader (one module per format, see `prefixlint.load.registry`) turns a file into a
`Template`: its messages (or one prompt), the variables it declares, the placeholder syntax of
its text, and optional tokenizer/engine overrides. Every character of every message's content
keeps the offset in the file it came from (`Message.offsets`), so a position found in the
rendered text can be reported at its 1-based line and column in the file as written.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import accumulate
from typing import Any

#: A role line of a conversation kept in one text (Prompt flow): `# system:`, `# user:` ...
ROLE_LINE = re.compile(r"^[ \t]*#[ \t]*(system|user|assistant)[ \t]*:[ \t]*\r?$", re.MULTILINE | re.IGNORECASE)
#: `conversation` marks the conversation slot (chat history, a messages placeholder): it
#: changes every turn but grows by appending, so the turns already in it are a reusable prefix.
KINDS = ("stable", "per_day", "per_user", "per_request", "conversation")
#: Placeholder syntaxes the renderer knows: Jinja2 (also Nunjucks), Python str.format `{x}`,
#: JavaScript/shell `${x}`, Mustache, Handlebars and Semantic Kernel's `{{$x}}`.
SYNTAXES = ("jinja", "format", "dollar", "mustache", "handlebars", "sk")
#: The role of a message that IS the conversation slot (LangChain's MessagesPlaceholder,
#: Dotprompt's `{{history}}` between role sections): it renders as earlier turns, each framed
#: as a message of its own. Its `content` is the slot as written in the file.
SLOT_ROLE = "(conversation)"
#: Variable names that are the conversation slot when a format has no marker of its own for it.
SLOT_NAMES = frozenset({
    "history", "chat_history", "conversation", "conversation_history", "messages", "chat_messages",
    "past_messages", "_conversation",
})


@dataclass(frozen=True)
class Variable:
    """A variable the file declares: how often its value changes, and example values."""

    name: str
    #: one of KINDS, or None when the file does not say; "appended": the conversation so far
    #: written as text, by what the code fills it with (`fill_sites.conversation_fill`)
    kind: str | None = None
    samples: tuple[Any, ...] = ()
    line: int | None = None  # where it is declared (or filled, with `evidence`), for diagnostics
    #: What fills it, when the program says (`filled by datetime.now()`), at `line`: a finding states it.
    evidence: str | None = None
    #: Its text is not in the file (a name defined elsewhere, or nowhere): measured as a stand-in,
    #: stable, and said so (`FileResult.unknown`), never reported.
    unknown: bool = False


@dataclass(frozen=True)
class Message:
    """One message of a chat file (role, content), or the whole prompt (role None)."""

    role: str | None
    content: str
    #: offsets[i] is the 0-based character offset in the file of content[i];
    #: len(offsets) == len(content).
    offsets: tuple[int, ...]
    #: Where the content starts in the file (used when the content is empty).
    start: int = 0
    #: Runs of the content that are another file's own text (a base template it extends:
    #: `prefixlint.load.compose.Origin`); `offsets` there point at the tag that brings it in.
    origins: tuple[Any, ...] = ()

    def file_offset(self, index: int) -> int:
        """File offset of content character `index` (the end of the content maps past its last char)."""
        if not self.offsets:
            return self.start
        if index < len(self.offsets):
            return self.offsets[max(index, 0)]
        return self.offsets[-1] + 1


@dataclass(frozen=True)
class Template:
    path: str
    format: str  # the loader's name: "native-yaml", "plain-text", ...
    source: str  # the file's text as read
    messages: tuple[Message, ...]
    syntax: str = "jinja"  # one of SYNTAXES
    variables: dict[str, Variable] = field(default_factory=dict)
    #: True when the file declares its variables (native YAML `variables:`): an undeclared
    #: name is then an error. Plain files declare nothing, so every free name is a variable.
    declares_variables: bool = False
    #: The conversation slot's variable name where the file has one (see SLOT_ROLE, KINDS).
    slot: str | None = None
    tokenizer: str | None = None
    engine: str | None = None
    #: Partial templates by name (Dotprompt's `{{> name}}` from `_name.prompt` files beside it).
    partials: dict[str, str] = field(default_factory=dict)
    #: The model the file names (Prompty `model`, Dotprompt `model`, ...): reported, not used
    #: to pick the tokenizer or engine (`tokenizer:`/`engine:` or the flags do that).
    model: str | None = None
    #: True for a conversation (messages with roles), False for a single prompt.
    is_chat: bool = False
    #: True when one text holds the whole conversation, its roles marked by lines such as
    #: `# system:` / `# user:` (Prompt flow); the render is split into messages at those lines.
    role_markers: bool = False
    #: The role-line pattern for `role_markers` when it is not Prompt flow's `# role:` (a
    #: regular expression source whose group 1 is the role; Prompty: `system:` lines).
    role_line: str | None = None
    #: True when the rendered text is a JSON list of `{role, content}` (promptfoo's Nunjucks JSON
    #: prompt files): the render is parsed into messages (`prefixlint.render.conversation.split_json`).
    json_messages: bool = False
    #: Where the code sends the file's messages, a system prompt on its own, as the whole request
    #: (`"agent.py:42"`: with one user message and no conversation), so no history is assumed
    #: after them (`prefixlint.check.served`, `load.python_turns`, `load.ts_turns`).
    sent_alone: str | None = None
    #: How a prompt file's text is sent there (`prefixlint.load.file_sends`): "user" (the user's
    #: message), "prompt" (a whole one-turn prompt) or "system" (with one user message); None for
    #: a template whose loader read the messages itself.
    sent_as: str | None = None
    _line_starts: list[int] = field(default_factory=list, repr=False, compare=False)

    def origin(self, message: int, index: int) -> tuple[str, int, int] | None:
        """(path, 1-based line, column) where content character `index` of message `message` is
        written when that is another file (a base template this one extends), else None. The
        path is shown as this file's is (relative stays relative)."""
        if not 0 <= message < len(self.messages) or index < 0:
            return None
        found = next((o for o in self.messages[message].origins if o.start <= index < o.end), None)
        if found is None:
            return None
        offset = found.offset + index - found.start
        starts = _starts(found.text)
        line = bisect_right(starts, offset)
        here = os.path.dirname(os.path.abspath(self.path))
        shown = os.path.relpath(found.path, here) if not os.path.isabs(self.path) else found.path
        return os.path.normpath(os.path.join(os.path.dirname(self.path), shown)), line, offset - starts[line - 1] + 1

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a 0-based character offset in the file."""
        if not self._line_starts:
            self._line_starts.extend(_starts(self.source))
        line = bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1


def line_starts(text: str) -> list[int]:
    """The offset where each line of `text` starts."""
    return list(_starts(text))


@lru_cache(maxsize=16)
def _starts(text: str) -> tuple[int, ...]:
    """`line_starts`, worked out once per text: the prompts of one module share its text (issue 19
    item 9), each asking for positions in it."""
    # each line's length and its newline, summed from 0 (all in C): [0, 2] for "a\nb"
    return tuple(accumulate(map((1).__add__, map(len, text.split("\n"))), initial=0))[:-1]


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The span text[start:end] with the blank space at either end left out."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def identity_message(role: str | None, text: str, start: int) -> Message:
    """A message whose content is the file's text from `start` on, character for character."""
    return Message(role, text, tuple(range(start, start + len(text))), start)


def align(content: str, raw: str, start: int, end: int, style: str | None = None) -> tuple[int, ...]:
    """File offsets for each character of `content`, a scalar that YAML read from raw[start:end].

    `style` is the scalar's style as PyYAML reports it (None plain, `'`, `"`, `|`, `>`).
    Every content line that appears verbatim in the region (the usual case) is mapped with
    str.find; other characters are matched one by one: whitespace to whitespace (folding,
    indentation), `''` in single-quoted and backslash escapes in double-quoted scalars to
    the one character they stand for, anything else by looking a few characters ahead.
    """
    offsets: list[int] = []
    p = start
    if style in ("'", '"'):  # past the opening quote
        p = start + 1
    elif style in ("|", ">"):  # past the header line (`|-`, `>2`, a comment)
        header_end = raw.find("\n", start, end)
        p = header_end + 1 if header_end >= 0 else end
    lines = content.split("\n")
    for number, line in enumerate(lines):
        # A quote in a quoted scalar is written doubled (`''`) or escaped (`\"`): a verbatim
        # match could pair it with the first half of its escape, so such lines go char by char.
        verbatim = line and not (style == "'" and "'" in line) and not (style == '"' and ('"' in line or "\\" in line))
        found = raw.find(line, p, end) if verbatim else -1
        if line and found >= 0 and not raw[p:found].strip():
            offsets.extend(range(found, found + len(line)))
            p = found + len(line)
        else:
            p = _align_chars(line, raw, p, end, offsets, style)
        if number < len(lines) - 1:  # the newline that ended this content line
            if style == '"':
                p = _skip_continuations(raw, p, end)
                if raw.startswith("\\n", p):  # an escaped newline
                    offsets.append(p)
                    p += 2
                    continue
            q = p
            while q < end and raw[q] in " \t\r":
                q += 1
            if q < end and raw[q] == "\n":
                p = q
            offsets.append(min(p, max(end - 1, start)))
            p = min(p + 1, end)
    return tuple(offsets)


def _skip_continuations(raw: str, p: int, end: int) -> int:
    """Past any backslash-newline line continuations (and the indentation after them)."""
    while raw.startswith("\\\n", p):
        p += 2
        while p < end and raw[p] in " \t":
            p += 1
    return p


def _escape_length(raw: str, p: int) -> int:
    """Length of the double-quoted escape sequence at raw[p] (a backslash)."""
    code = raw[p + 1 : p + 2]
    return {"x": 4, "u": 6, "U": 10}.get(code, 2)


def _align_chars(text: str, raw: str, p: int, end: int, offsets: list[int], style: str | None) -> int:
    for char in text:
        if style == '"':
            p = _skip_continuations(raw, p, end)
        if char.isspace() and not (style == '"' and raw.startswith("\\", p)):
            if p < end and raw[p].isspace():
                offsets.append(p)
                p += 1
            else:
                offsets.append(min(p, end))
            continue
        while p < end and raw[p].isspace() and raw[p] != char:
            p += 1
        if style == '"' and raw.startswith("\\", p):  # an escape sequence: one character
            offsets.append(p)
            p += _escape_length(raw, p)
        elif style == "'" and char == "'" and raw.startswith("''", p):
            offsets.append(p)
            p += 2
        elif p < end and raw[p] == char:
            offsets.append(p)
            p += 1
        else:
            ahead = raw.find(char, p, min(end, p + 12))
            offsets.append(ahead if ahead >= 0 else min(p, end))
            p = ahead + 1 if ahead >= 0 else p
    return p


def source_location(template: Template, message: Message, content_line: int, content_column: int = 1) -> tuple[int, int]:
    """File (line, column) of a 1-based (line, column) inside a message's content."""
    index = 0
    for _ in range(content_line - 1):
        found = message.content.find("\n", index)
        if found < 0:
            break
        index = found + 1
    return template.position(message.file_offset(index + content_column - 1))


_LOOPS = re.compile(r"\{%-?\s*for\s+[\w\s,()]+?\s+in\s+(?P<jinja>[A-Za-z_]\w*)\b"
                    r"|\{\{~?\s*#each\s+(?P<hbs>[A-Za-z_]\w*)\b")


def loop_slots(text: str) -> set[str]:
    """Conversation names a template loops over (`{% for m in history %}`, `{{#each history}}`):
    the conversation slot, rendered as earlier turns."""
    return {m.group("jinja") or m.group("hbs") for m in _LOOPS.finditer(text)} & SLOT_NAMES


def finding_tags(template: Template) -> dict[str, str]:
    """The keys `--format json` findings gain: the prompt's source kind and, where known, its name
    (`SourceTemplate.prompt_name`, a prompt in program source)."""
    name = getattr(template, "prompt_name", None)
    return {"source": template.format, **({"prompt": name} if name else {})}
