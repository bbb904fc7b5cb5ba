"""Prompts found in program source (Python, TypeScript, JavaScript) become ordinary Templates.

A source loader (`python_source`, `ts_source`) finds the strings that are prompts and turns
each into pieces: `Text` (characters, each with its file offset) and `Field` (one placeholder:
an f-string field, a `${...}` substitution, a `{name}` / `%(name)s` / `$name` template field, or
a value the code passes in). This module turns those pieces into a `Template` the existing
pipeline measures unchanged: the text is written in str.format syntax (literal braces doubled),
each field becomes `{variable}`, and the placeholder's text as written in the file is kept for
messages (`SourceTemplate.placeholder_texts`).

Variables are named by the words of the expression (`{self.user.name}` -> `user_name`,
`${requestHints.city}` -> `city`, `{state['date']}` -> `state_date`): the longest run of
trailing words the volatility catalog recognises, else all of them. A value the code computes
from the clock, a UUID or a random generator (`datetime.now()`, `new Date()`, `uuid4()`) is
declared volatile by construction: a `Variable` with its kind and two realistic samples.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from prefixlint.load.template import SLOT_ROLE, Message, Template, Variable

#: Names that hold prompts: `*PROMPT*`, `SYSTEM*`, `*instruction*`, `*template*` (any case), and
#: LangChain's agent parts `*_PREFIX` / `*_SUFFIX` (`SQL_PREFIX`); a text without a blank in it
#: (a key, a path, a URL) is never a prompt (`source_text.has_content`).
#: What a module that talks to a model mentions, whatever its variables are called: an LLM SDK
#: or framework by name, a call that sends, a message's user role, a CrewAI task's
#: `expected_output`. A directory walk opens program source that says one of these, or a
#: prompt-like word (`python_source.sniff_walked`, `ts_source.sniff_walked`).
CALLS_A_MODEL = re.compile(
    r"\b(?:openai|anthropic|langchain|llama_index|llamaindex|crewai|litellm|ollama|mistralai|cohere|groq"
    r"|google\.generativeai|google\.genai|@google/genai|@google/generative-ai|@ai-sdk/|bedrock"
    r"|generate_?content|chat\.completions|expected_output)\b|[\"']?role[\"']?\s*[:=]\s*[\"'](?:user|human)[\"']",
    re.IGNORECASE)
PROMPT_NAME = re.compile(r"prompt|^_*system|instruction|template|(^|_)(prefix|suffix)$", re.IGNORECASE)
_SYSTEM_WHAT = ("prompt", "message", "msg", "instruction", "instructions")


def is_system_name(name: str) -> bool:
    """A name that says it holds the system prompt wherever its words sit and however they are
    joined (`system_prompt`, `ORCHESTRATOR_SYSTEM_PROMPT`, `DEFAULT_SYSTEM_MESSAGE`,
    `StrSystemMessage`, `SYSTEMPROMPT`), or that starts with `system`: a system message, served
    with the conversation after it. Not `SYSTEMATIC_REVIEW`, not `file_system_path`."""
    found = words(name)
    return bool(found) and (found[0] == "system" or message_role_by_name(name) == "system" or any(
        word.startswith(("systemprompt", "systemmessage")) or word == "system" and after in _SYSTEM_WHAT
        for word, after in zip(found, found[1:] + [""])))


def message_role_by_name(name: str) -> str | None:
    """The message a name's last word says it holds, "system" or "user" (`MEDIA_GATE_SYSTEM`,
    `QUICK_NARRATION_USER`, `prospectResearchUser`, `REVIEW_USER_MSG`), else None; a word alone
    (`user`, `user_message`: the request's own text) says nothing."""
    found = words(name)
    if len(found) > 2 and found[-1] in ("msg", "message"):
        found = found[:-1]
    if len(found) < 2 or found[-1] not in ("system", "user") or found[-2] in _NOT_A_MESSAGE:
        return None
    return found[-1]


#: Words that make `system` a thing, not a message (`OPERATING_SYSTEM`, `file_system`).
_NOT_A_MESSAGE = frozenset({"operating", "file", "type", "solar", "coordinate", "unit", "number", "metric",
                            "design", "immune", "nervous", "end"})


def is_prompt_name(name: str) -> bool:
    """A name that holds a prompt (`PROMPT_NAME`), a system prompt, or one message's text."""
    return bool(PROMPT_NAME.search(name)) or is_system_name(name) or message_role_by_name(name) is not None


#: Receivers that say nothing about a value (`self.user.name` is the user's name).
RECEIVERS = frozenset({"self", "cls", "this", "props"})
#: Single trailing words too generic to classify a longer name by (`config.model_name`).
GENERIC_WORDS = frozenset({"name", "title", "type", "kind", "value", "text", "label", "id", "key", "data",
                           "prompt", "prompts", "instructions", "template", "message", "content"})
_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")


@dataclass(frozen=True)
class Text:
    chars: str
    offsets: tuple[int, ...]


@dataclass(frozen=True)
class Field:
    """One placeholder: where it starts in the file, its text there, and its variable."""

    offset: int
    text: str
    name: str
    variable: Variable | None = None


@dataclass
class PromptMessage:
    role: str | None
    pieces: list
    start: int
    slot: str | None = None  # the conversation slot's variable (a MessagesPlaceholder)


@dataclass
class SourcePrompt:
    name: str | None
    messages: list[PromptMessage]
    is_chat: bool = False
    syntax: str = "format"  # "jinja" / "mustache" for LangChain templates in those formats


@dataclass(frozen=True)
class SourceTemplate(Template):
    #: The variable or call the prompt is (`SYSTEM_PROMPT`, `ChatPromptTemplate.from_messages`).
    prompt_name: str | None = None
    #: file offset of a placeholder -> its text as written (`{datetime.now():%Y-%m-%d}`)
    placeholder_texts: dict[int, str] = field(default_factory=dict)


def words(*segments: str) -> list[str]:
    """The lower-case words of identifiers: camelCase, PascalCase, snake, kebab, dotted."""
    return [w.lower() for segment in segments for w in _WORD.findall(segment)]


def variable_name(segments: list[str], keyed: bool = False) -> str:
    """A variable name for a value reached by `segments` (`self`, `user`, `name`), classified by
    its words: the longest run of trailing words the catalog knows, else all the words."""
    from prefixlint.load.classify import builtin_catalog

    kept = [s for s in segments if s.lower() not in RECEIVERS] or list(segments)
    found = words(*kept) or ["value"]
    if found[0].isdigit():
        found.insert(0, "value")  # a placeholder name is an identifier
    if "system" in found[:-1]:  # systemMessage, system_instructions: a fixed text
        return "_".join(found)
    catalog = builtin_catalog()
    for start in range(len(found)):
        candidate = "_".join(found[start:])
        if start == len(found) - 1 and (candidate in GENERIC_WORDS and not (keyed and len(kept) == 1)):
            continue
        # known by a name of the catalog (`question`, `user_id`), not only by a word in it
        if any(signal.matches_name(candidate) for signal in catalog.signals):
            return candidate
    return "_".join(found)


def foreign(pieces: list, module: str, offset: int) -> list:
    """The pieces of another module's text, imported where a name is used at `offset`: each
    character placed there (as an escape sequence's characters are at the escape), so a finding
    points at the use and no fix edits the other module; each value's evidence names `module`."""
    out: list = []
    for piece in pieces:
        if isinstance(piece, Text):
            out.append(Text(piece.chars, (offset,) * len(piece.chars)))
            continue
        variable = piece.variable
        if variable is not None:
            where = f" ({module}:{variable.line})" if variable.line else f" ({module})"
            variable = Variable(variable.name, variable.kind, variable.samples, None,
                                (variable.evidence or f"in {module}") + where, variable.unknown)
        out.append(Field(offset, piece.text, piece.name, variable))
    return out


def stable_variable(name: str, value: str) -> Variable:
    return Variable(name, "stable", (value,))


# -- the Template -------------------------------------------------------------------------------

def to_template(path: str, source: str, fmt: str, prompt: SourcePrompt) -> SourceTemplate:
    if not prompt.is_chat and len(prompt.messages) == 1 and prompt.messages[0].role is None \
            and prompt.name and is_system_name(prompt.name.split(".")[-1]):
        # a text built by `createSystemPrompt()`, `get_system_prompt()`: the system message
        prompt = replace(prompt, messages=[replace(prompt.messages[0], role="system")], is_chat=True)
    messages: list[Message] = []
    variables: dict[str, Variable] = {}
    texts: dict[int, str] = {}
    slot, asked = None, False
    for message in prompt.messages:
        if message.slot and asked:  # messages after the user's: this request's own steps (a scratchpad)
            raw = message.pieces[0].text if message.pieces else message.slot
            written = "{" + message.slot + "}" if prompt.syntax == "format" else "{{ " + message.slot + " }}"
            variables[message.slot] = Variable(message.slot, "per_request", line=None,
                                               evidence="messages after the user's message: this request's own steps")
            texts[message.start] = raw
            messages.append(Message("assistant", written, (message.start,) * len(written), message.start))
            continue
        asked = asked or message.role == "user"
        if message.slot:
            slot = slot or message.slot
            variables[message.slot] = Variable(message.slot, "conversation")
            raw = message.pieces[0].text if message.pieces else message.slot
            messages.append(Message(SLOT_ROLE, raw, (message.start,) * len(raw), message.start))
            continue
        chars: list[str] = []
        offsets: list[int] = []
        opening = message.role == "system"  # nothing but blanks before this piece in a system message
        for piece in message.pieces:
            if opening and isinstance(piece, Field):
                piece = own_text(piece)
            opening = opening and isinstance(piece, Text) and not piece.chars.strip()
            if isinstance(piece, Text):
                if prompt.syntax == "format" and ("{" in piece.chars or "}" in piece.chars):
                    for char, offset in zip(piece.chars, piece.offsets):
                        chars.append(char * 2 if char in "{}" else char)
                        offsets.extend([offset] * (2 if char in "{}" else 1))
                else:
                    chars.append(piece.chars)
                    offsets.extend(piece.offsets)
                continue
            name = _unique(piece, variables)
            written = "{" + name + "}"
            chars.append(written)
            offsets.extend([piece.offset] * len(written))
            texts[piece.offset] = piece.text
            if piece.variable is not None:
                variables[name] = replace(piece.variable, name=name)
        messages.append(Message(message.role, "".join(chars), tuple(offsets), message.start))
    return SourceTemplate(path=path, format=fmt, source=source, messages=tuple(messages), syntax=prompt.syntax,
                          variables=variables, slot=slot, is_chat=prompt.is_chat, prompt_name=prompt.name,
                          placeholder_texts=texts)


#: Words of a name that says the value is a prompt's own text (`prompt`, `custom_instructions`).
_OWN_TEXT_WORDS = frozenset({"prompt", "prompts", "instruction", "instructions", "persona", "system"})


def own_text(piece: Field) -> Field:
    """A value that opens a system message and is named as a prompt's text (`{prompt}` of
    `f"{prompt}\n\nCurrent time: ..."`, `content: prompt + memory`) is that message's own text:
    what the deployment or the user configured, the same for a whole conversation, not the
    user's request. Only with no better evidence (a clock, the state, configuration)."""
    from prefixlint.load.classify import builtin_catalog, classify_variable

    if piece.variable is not None and piece.variable.kind is not None or not _OWN_TEXT_WORDS & set(words(piece.name)) \
            or classify_variable(builtin_catalog(), piece.name, None).frequency != "per_request" or "(" in piece.text:
        return piece  # better evidence, another name, one that already says it is no request's, or a call's result
    line = piece.variable.line if piece.variable is not None else None  # the name is all the evidence: one severity lower
    return replace(piece, variable=Variable(piece.name, "per_user", (), line,
                                            f"its name ({piece.name}) where it opens the system message: its own text,"
                                            " set per deployment or conversation, not per request"))


def _unique(piece: Field, variables: dict[str, Variable]) -> str:
    """The piece's variable name, suffixed when the same name is declared as another value."""
    name, number = piece.name, 1
    while (piece.variable is not None and name in variables
           and variables[name] != replace(piece.variable, name=name)):
        number += 1
        name = f"{piece.name}_{number}"
    return name
