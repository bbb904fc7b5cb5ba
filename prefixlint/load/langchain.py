"""LangChain serialized prompts (`.json`, `.yaml`): `_type: prompt`, `few_shot`, `chat`, and `lc` dumps.

    {"_type": "prompt", "input_variables": ["date", "question"], "template_format": "f-string",
     "template": "Today is {date}. ... Question: {question}"}

- `_type: prompt`: `template` (or `template_path`, relative to the file), `template_format`
  f-string (the default), jinja2 or mustache, `partial_variables` (their values are samples).
- `_type: few_shot`: `prefix`, `examples` (a list, or a path to a JSON/YAML list), each
  formatted with `example_prompt` (or `example_prompt_path`), joined with `example_separator`
  (default a blank line), then `suffix`: one prompt, as `FewShotPromptTemplate.format` builds
  it. The examples are the same in every request; their text points at the `examples` entry.
- `_type: chat`: `messages`, each `{role, content}` (or `template`/`prompt`), a `[role, text]`
  pair, or a placeholder (`{_type: placeholder, variable_name: history}`, `["placeholder",
  "{history}"]`): the placeholder is the conversation slot.
- The `lc` serialization (`langchain_core.load.dumpd`, as LangChain Hub stores prompts):
  `PromptTemplate`, `FewShotPromptTemplate` and `ChatPromptTemplate` with its
  System/Human/AI/ChatMessagePromptTemplate and `MessagesPlaceholder` messages.
- No `_type` at all (LangChain Hub files, `PromptTemplate.save` of old versions): read as
  `prompt`, as LangChain's `load_prompt` does, when the file has `template` (or
  `template_path`) and `input_variables` as a list of names (Semantic Kernel's are mappings)
  or a LangChain `template_format` (f-string, jinja2, mustache).
A variable named like a conversation (history, chat_history, messages...) used inside a text
is the conversation slot too.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Loader
from prefixlint.load.json_source import compose_json, looks_like_json, node_offsets
from prefixlint.load.langchain_chain import class_name, nested_prompts, prompt_kind
from prefixlint.load.langchain_sniff import sniff
from prefixlint.load.template import SLOT_NAMES, SLOT_ROLE, Message, Template, Variable, align
from prefixlint.load.yaml_source import compose, line_of, mapping_get, to_python

FORMAT = "langchain"
SYNTAX = {"f-string": "format", "jinja2": "jinja", "mustache": "mustache"}
ROLES = {"system": "system", "human": "user", "user": "user", "ai": "assistant", "assistant": "assistant",
         "SystemMessagePromptTemplate": "system", "HumanMessagePromptTemplate": "user",
         "AIMessagePromptTemplate": "assistant", "SystemMessage": "system", "HumanMessage": "user",
         "AIMessage": "assistant"}
HINT = "a LangChain prompt has `_type: prompt`, `few_shot` or `chat` (or is an `lc` serialization)"


class _Reader:
    def __init__(self, path: str, text: str) -> None:
        self.path, self.text = path, text
        self.json = looks_like_json(text)
        self.syntax: str | None = None
        self.variables: dict[str, Variable] = {}
        self.slot: str | None = None

    def error(self, message: str, node=None) -> PrefixlintError:
        return PrefixlintError(message, path=self.path, line=line_of(node) if node is not None else 1)

    def string(self, node, what: str) -> Message:
        if node is None or node.id != "scalar" or not node.tag.endswith(":str"):
            raise self.error(f"{what} must be text", node)
        start, end = node.start_mark.index, node.end_mark.index
        offsets = node_offsets(node, self.text) if self.json else align(node.value, self.text, start, end)
        return Message(None, node.value, offsets, start)

    def format_of(self, node) -> str:
        """The file's template syntax: the first `template_format` read decides it."""
        value = mapping_get(node, "template_format")
        name = value.value if value is not None else "f-string"
        if name not in SYNTAX:
            raise self.error(f"unknown template_format {name!r}", value)
        syntax = self.syntax or SYNTAX[name]
        self.syntax = syntax
        return syntax

    def template(self, node, what: str = "template") -> Message:
        """A PromptTemplate's text: `template`, or the file named by `template_path`."""
        if node is None or node.id != "mapping":
            raise self.error(f"{what} must be a mapping with `template`", node)
        node = _kwargs(node)
        self.format_of(node)
        partials = mapping_get(node, "partial_variables")
        if partials is not None and partials.id == "mapping":
            for key, value in partials.value:
                self.variables[key.value] = Variable(key.value, None, (to_python(value, self.path),), line_of(key))
        if mapping_get(node, "template") is None and mapping_get(node, "template_path") is not None:
            return self.referenced(mapping_get(node, "template_path"))
        return self.string(mapping_get(node, "template"), "`template`" if what == "template" else f"{what}: `template`")

    def referenced(self, node) -> Message:
        """Text from a file next to this one: every character points at the path as written."""
        from prefixlint.limits import confined
        from prefixlint.load.files import read_text

        target = Path(self.path).parent / str(node.value)
        try:
            content = read_text(confined(self.path, target, str(node.value)))
        except PrefixlintError as exc:
            raise PrefixlintError(f"cannot read {node.value}: {exc.message}", path=self.path, line=line_of(node),
                                  hint=exc.hint) from None
        return Message(None, content, (node.start_mark.index,) * len(content), node.start_mark.index)

    def few_shot(self, node) -> Message:
        node = _kwargs(node)
        syntax = self.format_of(node)
        example_prompt = mapping_get(node, "example_prompt")
        if example_prompt is None and mapping_get(node, "example_prompt_path") is not None:
            example_prompt = self.load_other(mapping_get(node, "example_prompt_path"))
        if example_prompt is None:
            raise self.error("a few_shot prompt needs `example_prompt`", node)
        example = self.template(example_prompt, "example_prompt")
        examples_node = mapping_get(node, "examples")
        examples = self.load_other(examples_node) if examples_node is not None and examples_node.id == "scalar" \
            else examples_node
        if examples is None or examples.id != "sequence":
            raise self.error("`examples` must be a list of examples (or a path to one)", examples_node or node)
        separator_node = mapping_get(node, "example_separator")
        separator = separator_node.value if separator_node is not None else "\n\n"
        pieces: list[Message] = []
        for key in ("prefix", "suffix"):
            piece = mapping_get(node, key) or mapping_get(node, f"{key}_path")
            if key == "suffix":
                for item in examples.value:
                    text = _escape(_fill(example.content, to_python(item, self.path), syntax, self), syntax)
                    at = (item if examples is examples_node else examples_node).start_mark.index
                    pieces.append(Message(None, text, (at,) * len(text), at))
            if piece is not None:
                message = self.referenced(piece) if mapping_get(node, key) is None else self.string(piece, key)
                if message.content:
                    pieces.append(message)
        content = ""
        offsets: tuple[int, ...] = ()
        for number, piece in enumerate(pieces):
            if number:
                content += separator
                offsets += (piece.start,) * len(separator)
            content += piece.content
            offsets += piece.offsets
        return Message(None, content, offsets, pieces[0].start if pieces else node.start_mark.index)

    def load_other(self, node):
        """The node tree of a JSON or YAML file named by a `*_path` value."""
        from prefixlint.limits import confined
        from prefixlint.load.files import read_text

        target = str(Path(self.path).parent / str(node.value))
        try:
            text = read_text(confined(self.path, target, str(node.value)))
            return compose_json(text, target) if looks_like_json(text) else compose(text, target)
        except PrefixlintError as exc:
            raise PrefixlintError(f"cannot read {node.value}: {exc}", path=self.path, line=line_of(node)) from None

    def chat(self, node) -> list[Message]:
        node = _kwargs(node)
        if mapping_get(node, "template_format") is not None:
            self.format_of(node)
        items = mapping_get(node, "messages")
        if items is None or items.id != "sequence" or not items.value:
            raise self.error("a chat prompt needs a non-empty `messages` list", node)
        return [self.chat_message(item) for item in items.value]

    def chat_message(self, item) -> Message:
        if item.id == "sequence" and len(item.value) == 2:  # ["system", "text"] / ["placeholder", "{history}"]
            role = item.value[0].value
            if role == "placeholder":
                return self.slot_message(item.value[1], item.value[1].value.strip("{}"))
            self.syntax = self.syntax or "format"
            return _with_role(self.string(item.value[1], "message text"), ROLES.get(role, role))
        if item.id != "mapping":
            raise self.error("a chat message is {role, content}, [role, text] or a placeholder", item)
        kind = class_name(item) or (mapping_get(item, "_type").value if mapping_get(item, "_type") else None)
        kwargs = _kwargs(item)
        if kind in ("MessagesPlaceholder", "placeholder", "messages_placeholder"):
            name_node = mapping_get(kwargs, "variable_name")
            return self.slot_message(name_node or item, name_node.value if name_node is not None else "history")
        role_node = mapping_get(kwargs, "role")
        role = ROLES.get(kind or "", role_node.value if role_node is not None else None)
        if role is None:
            raise self.error("a chat message without a role", item)
        prompt = mapping_get(kwargs, "prompt")
        if prompt is not None and prompt.id == "mapping":
            message = self.template(prompt, "message prompt")
        else:
            text = mapping_get(kwargs, "content") or mapping_get(kwargs, "template") or prompt
            self.syntax = self.syntax or "format"
            message = self.string(text, "message content")
        return _with_role(message, ROLES.get(role, role))

    def slot_message(self, node, name: str) -> Message:
        self.slot = self.slot or name
        self.variables[name] = Variable(name, "conversation", (), line_of(node))
        start = node.start_mark.index
        raw = self.text[start : node.end_mark.index]
        return Message(SLOT_ROLE, raw, tuple(range(start, start + len(raw))), start)


def _kwargs(node):
    """An `lc` constructor's `kwargs` mapping, or the node itself."""
    kwargs = mapping_get(node, "kwargs") if mapping_get(node, "lc") is not None else None
    return kwargs if kwargs is not None else node


def _with_role(message: Message, role: str) -> Message:
    return Message(role, message.content, message.offsets, message.start)


def _fill(template: str, example, syntax: str, reader: _Reader) -> str:
    """One example formatted with the example prompt (examples are data, not templates)."""
    if not isinstance(example, dict):
        raise reader.error("each example must be a mapping of variable -> value")
    if syntax == "format":
        return re.sub(r"\{\{|\}\}|\{(\w+)\}", lambda m: str(example.get(m.group(1), "")) if m.group(1) else m.group(0)[0],
                      template)
    if syntax == "jinja":
        from jinja2 import TemplateError

        from prefixlint.sandbox import RenderTimeout, time_limit

        try:
            with time_limit():
                return _jinja_example(template).render(example)
        except (TemplateError, RenderTimeout, TypeError, ValueError, ArithmeticError, LookupError) as exc:
            raise reader.error(f"cannot format an example: {type(exc).__name__}: {exc}") from None
    import pystache

    return pystache.Renderer(escape=lambda text: text, missing_tags="ignore", partials={}).render(template, example)


@lru_cache(maxsize=64)
def _jinja_example(template: str):
    """The example prompt compiled once (in one sandbox), however many examples it formats."""
    return _example_environment().from_string(template)


def _example_environment():
    from prefixlint.sandbox import environment

    return environment(strict=False)


def _escape(text: str, syntax: str) -> str:
    if syntax == "format":
        return text.replace("{", "{{").replace("}", "}}")
    if syntax == "jinja" and ("{{" in text or "{%" in text or "{#" in text):
        return "{% raw %}" + text + "{% endraw %}"
    return text


def load(path: str, text: str) -> Template:
    return load_all(path, text)[0]


def load_all(path: str, text: str) -> list[Template]:
    """The file's prompt, or each prompt of a serialized chain (`_type: llm_chain` ...).

    A chain (LangChain's `load_chain` reads it) holds its prompts as nested objects: `prompt` of
    an `llm_chain`, `llm_chain.prompt` of a documents chain, `initial_llm_chain` and
    `refine_llm_chain` of a refine chain ...; each is read as the prompt it is, in file order.
    """
    root = compose_json(text, path) if looks_like_json(text) else compose(text, path)
    if root is None or root.id != "mapping":
        raise PrefixlintError("a LangChain prompt is a mapping", path=path, line=line_of(root) if root else 1)
    kind_node = mapping_get(root, "_type")
    if prompt_kind(root) is not None:
        return [_template(path, text, root)]
    nested = list(nested_prompts(root))
    if not nested:
        raise PrefixlintError(f"unsupported LangChain prompt type {kind_node.value if kind_node else None!r}",
                              path=path, line=line_of(kind_node or root))
    return [_template(path, text, node) for node in nested]


def _template(path: str, text: str, root) -> Template:
    reader = _Reader(path, text)
    kind = prompt_kind(root)
    if kind == "prompt":
        messages = [reader.template(root)]
    elif kind == "few_shot":
        messages = [reader.few_shot(root)]
    else:
        messages = reader.chat(root)
    syntax = reader.syntax or "format"
    names = set(re.findall(r"[A-Za-z_]\w*", " ".join(m.content for m in messages if m.role != SLOT_ROLE)))
    for name in sorted(names & SLOT_NAMES):  # a conversation name used inside a text
        reader.variables.setdefault(name, Variable(name, "conversation"))
    return Template(path=path, format=FORMAT, source=text, messages=tuple(messages), syntax=syntax,
                    variables=reader.variables, is_chat=kind == "chat", slot=reader.slot)


LOADER = Loader(FORMAT, sniff, load, hint=HINT, many=load_all)
