"""A fix as edits of the file: the one move plan (`prefixlint.match.variants.plan_moves`)
applied to the template as written, in the file's own syntax.

Each moved piece is taken from the file as it is written (its escapes, quoting and braces
stay as they were) and inserted at the end of the target message in the file; a line of an
indented block (a YAML block scalar, a dedented literal) takes the target's indentation. The
newline a sentence needs is spelled as the target spells its newlines (a real one, or `\\n` in
a quoted string). Nothing outside the cut and insertion points changes. Every fix is checked
before it is offered: the edited text is loaded again with the same loader, and each
message's content must be exactly the planned one; otherwise there is no fix (`reason`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache

from prefixlint.fix.edits import Edit, apply_edits
from prefixlint.fix.new_message import CannotAdd, added_message
from prefixlint.fix.source import SourceMessage, source_messages, spelled_length
from prefixlint.load.registry import loader_for
from prefixlint.load.template import SLOT_ROLE
from prefixlint.match.units import BLOCK, SENTENCE, UNSAFE_MARK, applicability
from prefixlint.match.variants import apply_plan, plan_moves

#: Block tags a moved line must not leave or enter (Jinja/Nunjucks, Handlebars sections).
_BLOCK_OPEN = re.compile(r"\{%-?\s*(if|for|macro|call|filter|raw|block|with|set\s+\w+\s*-?%\})|\{\{[#^]")
_BLOCK_CLOSE = re.compile(r"\{%-?\s*end\w*|\{\{/")


@dataclass(frozen=True)
class Fix:
    edits: tuple[Edit, ...]
    #: "safe" (whole units holding only the value and its label, moved where the format puts
    #: late content) or "unsafe" (a cut sentence, changed wording, another literal): decided
    #: here once, read by `[*]`, the JSON `fix`, `--fix`, `--unsafe-fixes` and the hook.
    applicability: str
    message: str


class NoFix(Exception):
    """Why a value cannot be moved automatically in this file."""


class Builder:
    """The fixes of one template, each set of moves built once: a finding's fix is asked for
    when the file's loads are planned, when it is offered and when the fixes are combined."""

    def __init__(self, template, placeholders) -> None:
        self.template, self.placeholders = template, placeholders
        self._built: dict[tuple, _Built | str] = {}  # moves -> the fix, or why there is none

    def __call__(self, modes: dict[int, str], reload=None) -> Fix:
        """The edits that move every placeholder of `modes`; NoFix when it cannot be written.
        `reload(text)` loads an edited text as the same template (None: no check)."""
        built = self._get(modes)
        if reload is not None:
            _verify(reload(built.text()), built.expected)
        return built.fix

    def text(self, modes: dict[int, str]) -> str:
        """The file's text with the fix of `modes` made, one string for every load asked of it."""
        return self._get(modes).text()

    def _get(self, modes: dict[int, str]) -> _Built:
        key = tuple(modes.items())  # in their order: the move plan follows it
        if key not in self._built:
            try:
                self._built[key] = _build(self.template, self.placeholders, modes)
            except NoFix as exc:
                self._built[key] = str(exc)
        built = self._built[key]
        if isinstance(built, str):
            raise NoFix(built)
        return built


@dataclass
class _Built:
    fix: Fix
    source: str
    expected: list[str]  # each message's content after the fix, as loading the fixed text must give
    overlap_is_no_fix: bool  # edits that overlap in the source: no fix (else the ValueError goes up)
    _text: str | None = None

    def text(self) -> str:
        if self._text is None:
            try:
                self._text = apply_edits(self.source, self.fix.edits)
            except ValueError as exc:  # the moves' spans overlap in the source (escapes, odd offsets)
                if not self.overlap_is_no_fix:
                    raise
                raise NoFix(f"the moves overlap in the file's source ({exc})") from None
        return self._text


def _build(template, placeholders, modes: dict[int, str]) -> _Built:
    traits = loader_for(template.format)
    if traits.assembled:
        # text assembled from several fields (CrewAI's role/goal/backstory with its fixed text,
        # Semantic Kernel settings values): no single place in the file to move lines within
        raise NoFix("the prompt is assembled from several fields of the file: move the value by hand")
    if template.source and _composes(template.source):  # text of other files is not this file's to edit
        raise NoFix("the prompt brings in other templates (include, extends, a partial): move the value by hand")
    messages = source_messages(template, placeholders)
    found = {s.placeholder for m in messages for s in m.spans}
    if set(modes) - found:
        raise NoFix("the value is not written verbatim in a message of the file")
    # In program source a moved line stays in its string literal: the user message is usually
    # not a literal of the file.
    plan = plan_moves(messages, modes, traits.program_source)
    if plan.target < len(messages) and messages[plan.target].role == SLOT_ROLE:
        raise NoFix("no user message to move it into (only the conversation follows)")
    source = template.source
    edits: list[Edit] = []
    for message, cuts in zip(messages, plan.cuts):
        for start, end in cuts:
            _check_blocks(message.text, start, end)
            line_cut = message.text[start:end].endswith("\n") or end == len(message.text)
            cut_start = _file_start(source, message, start, extend=line_cut)
            cut_end = _file_end(source, message, end)
            if line_cut and end < len(message.files) and source[cut_start - 1 : cut_start] not in ("", "\n"):
                cut_end = message.files[end]  # cut from inside a file line: the next line's indentation too
            edits.append(Edit(cut_start, cut_end, ""))
    if plan.target == len(messages):  # no user message: a new one after the conversation
        try:
            edits.append(added_message(template, messages, plan))
        except CannotAdd as exc:
            raise NoFix(str(exc)) from None
        what = "value as its own sentence" if any(lead for lead, _ in plan.wraps) else "line"
        fix = Fix(tuple(_merged(edits)), "unsafe", f"Move the {what} to a new system message")  # a literal of its own
        return _Built(fix, source, apply_plan([m.text for m in messages], plan), False)
    target = messages[plan.target]
    if target.role == SLOT_ROLE:
        raise NoFix("no user message to move it into (only the conversation follows)")
    if all(m.role == "system" for m in messages):  # served with the conversation after it
        raise NoFix("a system prompt on its own: the value belongs in the user's message, which the application writes")
    _check_blocks(target.text, len(target.text), len(target.text))
    if target.text.rstrip().endswith(":"):  # `Return the JSON array:` introduces what the model writes
        raise NoFix("the prompt ends with a line that introduces what follows it: nothing can go after it")
    newline = _newline(source, target, template)
    indent = _indent(source, target) if newline != "\\n" else ""
    moved = []
    for (number, start, end), (lead, tail) in zip(plan.origins, plan.wraps):
        message = messages[number]
        if _newline(source, message, template) == newline:  # the same spelling: the text as written
            raw = source[_file_start(source, message, start, extend=True) : _file_end(source, message, end)]
            own = _indent(source, message, start) if newline != "\\n" else ""
        elif newline == "\\n":  # from a block into a quoted string: escaped as JSON/YAML/JS strings are
            raw, own = json.dumps(message.text[start:end], ensure_ascii=False)[1:-1], ""
        else:  # from a quoted string into a block: the text itself
            raw, own = message.text[start:end], ""
        raw = _quoted(source, target, template, lead, newline) + raw + tail
        lines = raw.splitlines(keepends=True)
        raw = "".join(indent + line.removeprefix(own) if line.strip() else line for line in lines)
        if not raw.endswith(("\n", "\\n")):
            raw += newline
        moved.append(raw)
    text = "".join(moved)
    if target.text.endswith("\n"):
        edits.append(Edit(target.end, target.end, text))
    else:
        text = text[: -len(newline)] if text.endswith(newline) else text.rstrip("\n")
        edits.append(Edit(target.end, target.end, newline + text))
    edits = _merged(edits)
    # In program source a move from one string literal into another changes every prompt that
    # uses the other literal too: unsafe. Within one literal (or between messages of a prompt
    # file) the move only reorders whole units.
    unsafe = any(applicability(mode) == "unsafe" for mode in modes.values()) or (
        loader_for(template.format).program_source and any(
            not _one_literal(source, messages[number], start, target, number == plan.target)
            for number, start, _ in plan.origins))
    where = "the last user message" if target.role == "user" else "the end"
    what = "value as its own sentence" if any(lead for lead, _ in plan.wraps) else _what(modes.values())
    fix = Fix(tuple(edits), "unsafe" if unsafe else "safe", f"Move the {what} to {where}")
    return _Built(fix, source, apply_plan([m.text for m in messages], plan), True)


@lru_cache(maxsize=4)
def _composes(source: str) -> bool:
    """`load.compose.composes`, once per text: a module's prompts share it (issue 19 item 9)."""
    from prefixlint.load.compose import composes

    return composes(source)


def _what(modes) -> str:
    kinds = {mode.rstrip(UNSAFE_MARK) for mode in modes}
    return "sentence" if SENTENCE in kinds else "lines" if BLOCK in kinds else "line"


def _quoted(source: str, target: SourceMessage, template, text: str, newline: str) -> str:
    """`text` (a lead-in) as the target's quoted string needs its quotes written."""
    closing = source[target.end : target.end + 1]
    if newline != "\\n" or closing not in ("'", '"') or source[target.end : target.end + 3] == closing * 3:
        return text
    if closing == "'" and ("yaml" in template.format or "prompty" in template.format):
        return text.replace("'", "''")
    return text.replace(closing, "\\" + closing)


def _one_literal(source: str, message: SourceMessage, start: int, target: SourceMessage, same: bool) -> bool:
    """Is the text from the moved piece to the target's end in one string literal of the file?
    (No unescaped closing delimiter of the target's literal in between.)"""
    if not same:
        return False
    first = message.files[start] if start < len(message.files) else message.end
    closing = source[target.end : target.end + 3]
    delimiter = closing if closing in ('"""', "'''") else closing[:1]
    if not delimiter or first > target.end:
        return False
    return not re.search(r"(?<!\\)" + re.escape(delimiter), source[first : target.end])


def _merged(edits: list[Edit]) -> list[Edit]:
    """Adjacent deletions as one; an insertion right after a deletion stays its own edit."""
    out: list[Edit] = []
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if out and not out[-1].content and not edit.content and edit.start <= out[-1].end:
            out[-1] = Edit(out[-1].start, max(out[-1].end, edit.end), "")
        else:
            out.append(edit)
    return out


def _char_length(source: str, message: SourceMessage, index: int) -> int:
    length = spelled_length(source, message.files, message.text, index)
    if length is None:
        raise NoFix("the file spells this text in a way the fix cannot move")
    return length


def _file_start(source: str, message: SourceMessage, index: int, *, extend: bool) -> int:
    if index >= len(message.text):
        return message.end
    at = message.files[index]
    if extend and (index == 0 or message.text[index - 1] == "\n"):
        line_start = source.rfind("\n", 0, at) + 1
        if not source[line_start:at].strip(" \t"):
            return line_start  # the line's indentation goes with it
    return at


def _file_end(source: str, message: SourceMessage, end: int) -> int:
    if end <= 0:
        return message.end if not message.files else message.files[0]
    return message.files[end - 1] + _char_length(source, message, end - 1)


def _indent(source: str, message: SourceMessage, index: int | None = None) -> str:
    """The indentation the file adds to a content line (a block scalar's), "" for none."""
    text = message.text
    if index is None:
        index = text.rfind("\n", 0, max(len(text) - 1, 0)) + 1
    if index >= len(message.files):
        return ""
    at = message.files[index]
    line_start = source.rfind("\n", 0, at) + 1
    prefix = source[line_start:at]
    return prefix[: len(prefix) - len(prefix.lstrip(" \t"))]  # a block's indentation, also after `<message>`


def _newline(source: str, target: SourceMessage, template) -> str:
    """How the target spells a newline: as it does in its text, else by its quoting."""
    for index, char in enumerate(target.text):
        if char == "\n":
            at = target.files[index]
            return source[at : at + _char_length(source, target, index)]
    after = source[target.end : target.end + 1]
    if after == '"' or (after == "'" and "yaml" not in template.format and "prompty" not in template.format):
        return "\\n"
    return "\r\n" if "\r\n" in source else "\n"


def _check_blocks(text: str, start: int, end: int) -> None:
    depth = len(_BLOCK_OPEN.findall(text, 0, start)) - len(_BLOCK_CLOSE.findall(text, 0, start))
    inner = text[start:end]
    if depth > 0 or _BLOCK_OPEN.search(inner) or _BLOCK_CLOSE.search(inner):
        raise NoFix("the value sits inside an {% if %}/{% for %} block")


def _verify(reloaded, expected: list[str]) -> None:
    if reloaded is None:
        raise NoFix("the edited file no longer loads")
    again = source_messages(reloaded, ())
    if [m.text for m in again] != expected:
        raise NoFix("the edit cannot be written in this file's syntax")
