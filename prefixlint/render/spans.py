"""What a render produces: the text of each message and, for every substitution, its span.

A `Placeholder` is one `{{ ... }}` (or `{x}`, `${x}`) in the file: where it is (file offset,
1-based line and column), its source text, the variables it reads and the functions it calls.
A `Span` says which characters [start, end) of a rendered message one placeholder produced;
a placeholder inside a loop produces several spans. Every other rendered character is
template text, so each character maps back to the file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Protocol, Sequence


@dataclass(frozen=True)
class Placeholder:
    index: int
    message: int  # index of the message it sits in
    text: str  # as written, e.g. "{{ now }}"
    offset: int  # 0-based character offset in the file
    line: int
    column: int
    names: tuple[str, ...]  # template variables it reads
    calls: tuple[str, ...] = ()  # functions it calls: strftime_now, now, uuid4 ...
    call_args: tuple[str, ...] = ()  # constant string arguments of those calls (strftime formats)
    at: int = -1  # index in its message's content where it is written (-1: not known)


@dataclass(frozen=True)
class Span:
    placeholder: int
    start: int
    end: int


@dataclass(frozen=True)
class RenderedMessage:
    role: str | None
    text: str
    spans: tuple[Span, ...]


class CompiledTemplate(Protocol):
    """A template compiled once and rendered as often as the measurement needs."""

    placeholders: tuple[Placeholder, ...]
    #: Every free variable name the template reads (in placeholders, conditions, loops).
    variables: tuple[str, ...]
    #: Names the template calls as functions (strftime_now, now, uuid4 ...).
    functions: tuple[str, ...]

    def render(self, values: Mapping[str, Any], functions: Mapping[str, Callable]) -> tuple[RenderedMessage, ...]:
        ...


def last_user_turn(messages: Sequence[RenderedMessage], index: int, template: Any = None) -> bool:
    """Whether `messages[index]` is the last user message: a user message no user message follows,
    in a conversation, the only message of a chat program source sends (the user's turn:
    LangChain's `from_template`, `messages: [{role: 'user', content}]`), or a text program source
    sends with no role the code shows (a builder's returned f-string: the whole request), or a file
    the code sends as the user's message (`Template.sent_as`). Its
    system prompts are known by evidence (`system=`, a system role, a name that says so)."""
    from prefixlint.load.registry import loader_for

    if len(messages) == 1 and getattr(template, "sent_as", None) == "user":
        return True  # a prompt file the code sends as the user's message (`load.file_sends`), a CrewAI task
    alone = len(messages) == 1 and template is not None and loader_for(template.format).program_source
    if alone and messages[0].role is None and not template.is_chat:
        return True
    if messages[index].role != "user" or any(m.role == "user" for m in messages[index + 1:]):
        return False
    return len(messages) > 1 or bool(alone and template.is_chat)
