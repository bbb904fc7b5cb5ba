"""Prompts in TypeScript and JavaScript (`.ts .tsx .mts .cts .js .jsx .mjs .cjs`), read with tree-sitter.

A text is a prompt when it is
- declared under a prompt-like name (`systemPrompt`, `SYSTEM_PROMPT`, `researchInstructions`;
  a function so named gives the text it returns, its last `return`);
- passed where a prompt goes: an object with `system`, `instructions`, `prompt`, `input` or
  `messages: [{role, content}]` (Vercel AI SDK `generateText`/`streamText`, OpenAI and Anthropic
  Node SDKs): one chat per object, `system`/`instructions` as the system message; an array of
  `{role, content}` objects (or of `new SystemMessage(text)`, `OpenAIChatMessage.system(text)`)
  anywhere is a chat too, and so is a system (or developer) message
  object on its own (a constant, a returned value: `ts_messages`).
Texts are string literals and template literals; `${...}` substitutions that name another text
of the file (a constant, or a call of a function returning a template literal) are inlined,
`+`, `.join()`, `.trim()` followed; every other substitution is a placeholder at the line and
column of its `$`. A prompt that is part of a larger one is measured as part of that one.
tree-sitter and its grammars are imported only when such a file is checked.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from prefixlint.load.base import Loader
from prefixlint.load.files import TextElsewhere
from prefixlint.load.registry import NotATemplate
from prefixlint.load.source_prompts import (
    CALLS_A_MODEL,
    PROMPT_NAME,
    PromptMessage,
    SourcePrompt,
    Text,
    message_role_by_name,
    to_template,
)
from prefixlint.load.source_text import FORMAT_FIELD, has_content, template_fields
from prefixlint.load.template import Template
from prefixlint.load.ts_grammar import parse, parser, source_kind
from prefixlint.load.ts_langchain import is_prompt_object, prompt_object
from prefixlint.load.ts_messages import Messages, holder_name, message_call, outside, system_message, unshift_call
from prefixlint.load.ts_scopes import FUNCTIONS, node_key
from prefixlint.load.ts_turns import as_sent

FORMAT = "typescript"
#: `CHATGPT_SYSTEM_MESSAGE`, `systemMessage`, `generateSystemMessage`: a system message by its name.
SYSTEM_MESSAGE_NAME = re.compile(r"system_?(?:message|msg)", re.IGNORECASE)
HINT = ("prefixlint reads texts declared under prompt-like names (*Prompt*, SYSTEM*, *instructions*, *template*)"
        " and `system`/`prompt`/`instructions`/`messages` properties of SDK calls")
_SNIFF = re.compile(r"prompt|system|instruction|template|messages", re.IGNORECASE)
TEXT_KEYS = {"system": "system", "instructions": "system", "prompt": "user", "input": "user"}


def sniff(text: str) -> bool:
    return True


def sniff_walked(text: str) -> bool:
    return _SNIFF.search(text) is not None or CALLS_A_MODEL.search(text) is not None


_QUERY = """
(variable_declarator name: (identifier) @name) @decl
(function_declaration name: (identifier) @name) @decl
(pair key: [(property_identifier) (string)] @key) @pair
(shorthand_property_identifier) @short
(call_expression function: (member_expression property: (property_identifier) @method)) @call
(new_expression) @new
"""


@lru_cache(maxsize=None)
def _cursor(grammar: str):
    import tree_sitter

    return tree_sitter.QueryCursor(tree_sitter.Query(parser(grammar).language, _QUERY))


def load(path: str, text: str) -> Template:
    return load_all(path, text)[0]


def load_all(path: str, text: str) -> list[Template]:
    fmt, grammar = source_kind(path)
    source = _Source(text, path, parse(path, text), _cursor(grammar))
    prompts = source.prompts()
    elsewhere = source.imported_prompt() if not prompts else None
    if elsewhere is not None:
        raise TextElsewhere(f"its prompt `{elsewhere[0]}` is imported from the package {elsewhere[1]!r}:"
                            " nothing of it to measure in this file", path=path)
    if not prompts:
        raise NotATemplate(f"no prompt found in this {fmt.title()} module", path=path, line=1, hint=HINT)
    return [as_sent(to_template(path, text, fmt, prompt), source.root, path) for prompt in prompts]


class _Source(Messages):
    def __init__(self, text: str, path: str, root, cursor) -> None:
        super().__init__(text, path)
        self.root = root
        self.candidates: dict[tuple, Any] = {}  # declarations, objects, arrays: where prompts may be
        captures = cursor.captures(root)
        for node in captures.get("decl", ()):
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value") or node
            if PROMPT_NAME.search(name.text.decode()) or (SYSTEM_MESSAGE_NAME.search(name.text.decode())
                                                          or message_role_by_name(name.text.decode())) and \
                    value.type in ("string", "template_string", *FUNCTIONS):  # a text, or a function returning it,
                # named as a system message (`CHATGPT_SYSTEM_MESSAGE`, `generateSystemMessage = (...) => ...`)
                self.candidates[node_key(node)] = node
        for node in [*captures.get("call", ()), *captures.get("new", ())]:
            if node.type == "call_expression" and is_prompt_object(node):  # `ChatPromptTemplate.fromMessages([...])`
                self.candidates[node_key(node)] = node
            elif message_call(node) is not None and outside(node).parent is not None and \
                    outside(node).parent.type == "array":  # `[new SystemMessage(text), ...history]`
                self.candidates[node_key(outside(node).parent)] = outside(node).parent
        for node in [*captures.get("pair", ()), *captures.get("short", ())]:
            key = node.child_by_field_name("key") if node.type == "pair" else node
            name = key.text.decode().strip("'\"`")
            holder = node.parent
            wrapped = outside(holder)  # `{...} as const`
            if name == "role" and wrapped.parent is not None and wrapped.parent.type == "array":
                self.candidates[node_key(wrapped.parent)] = wrapped.parent
            elif name == "role" and unshift_call(wrapped) is not None:
                self.candidates[node_key(wrapped.parent.parent)] = wrapped.parent.parent
            elif name == "role" and system_message(node) and holder.type == "object":
                self.candidates[node_key(holder)] = holder  # a system message on its own: a constant, returned
            elif name in TEXT_KEYS or name == "messages":
                self.candidates[node_key(holder)] = holder
            elif node.type == "pair" and PROMPT_NAME.search(name):
                self.candidates[node_key(node)] = node  # `systemPrompt: "..."` in a preset or settings object

    # -- where prompts are --------------------------------------------------------------------
    def prompts(self) -> list[SourcePrompt]:
        found: list[tuple[int, frozenset, SourcePrompt]] = []
        consumed: set[tuple] = set()
        for node in sorted(self.candidates.values(), key=lambda n: n.start_byte):
            prompt = None
            self.touched = []
            if node.type == "object" and node_key(node) not in consumed and "role" in self.pairs(node):
                messages = self.role_messages_of([node])
                prompt = SourcePrompt(holder_name(node), messages, is_chat=True) if messages else None
            elif node.type == "object" and node_key(node) not in consumed:
                prompt = self.sdk_object(node, consumed)
            elif node.type == "call_expression" and is_prompt_object(node):
                prompt = prompt_object(self, node)
            elif node.type == "call_expression":  # `messages.unshift({role: 'system', ...})`: before the history
                messages = self.role_messages(node.child_by_field_name("arguments"))
                target = node.child_by_field_name("function").child_by_field_name("object")
                prompt = SourcePrompt(None, messages + self.unshifted_into(target), is_chat=True) if messages else None
            elif node.type == "array" and node_key(node) not in consumed:
                messages = self.role_messages(node)
                prompt = SourcePrompt(None, messages, is_chat=True) if messages else None
            elif node.type in ("variable_declarator", "function_declaration", "pair"):
                name = node.child_by_field_name("key" if node.type == "pair" else "name")
                declared = self.scopes.declared_by(name) if node.type == "variable_declarator" else None
                pieces = (self.declared(declared, 0, function=True) if declared is not None else None) \
                    if node.type == "variable_declarator" else \
                    self.text_of(node.child_by_field_name("value") or node, 0, function=True)
                if node.type == "pair":  # a property's value is a prompt when it is prose (has a blank);
                    # its `{NAME}` fields are the ones the application fills in (`{datetime}`)
                    pieces = template_fields(pieces, "format", self.text) if pieces and _has_blank(pieces) else None
                elif pieces and all(isinstance(p, Text) for p in pieces) and FORMAT_FIELD.search("".join(
                        p.chars for p in pieces)):  # a constant prompt with `{name}` fields, filled later as Python's
                    pieces = template_fields(pieces, "format", self.text)
                if pieces is None and node.type != "pair":  # `getSystemPrompt()` returning {role, content}
                    message = self.returned_message(node)
                    prompt = SourcePrompt(name.text.decode(), message, is_chat=True) if message else None
                if pieces is not None:
                    label = name.text.decode().strip("'\"`")
                    role = "system" if label.lstrip("_").lower().startswith("system") or \
                        SYSTEM_MESSAGE_NAME.search(label) else None
                    prompt = SourcePrompt(label, [PromptMessage(role, pieces, self.at(node.start_byte))],
                                          is_chat=role is not None)
            if prompt is not None and has_content(prompt) and any(
                    any(isinstance(p, Text) for p in m.pieces) for m in prompt.messages):
                found.append((self.at(node.start_byte), frozenset(self.touched), prompt))
        # A prompt whose texts are all part of another one is measured there: the larger one wins,
        # then the one with more messages (a call's system prompt and user turn), then the first.
        rank = {id(p): (-len(t), -len(p.messages), s) for s, t, p in found}
        kept = [(start, touched, prompt) for start, touched, prompt in found
                if not any(touched <= other and rank[id(p)] < rank[id(prompt)]
                           for s, other, p in found if p is not prompt)]
        return [prompt for _, _, prompt in sorted(kept, key=lambda item: item[0])]

    def imported_prompt(self) -> tuple[str, str] | None:
        """`(name, package)` of a prompt passed where a prompt goes (`prompt:`, `system:`,
        `instructions:`) that is a name imported from a package, not from a module of the
        repository (`import { TEMPLATE } from "langchain/memory"`), else None."""
        for node in self.candidates.values():
            pairs = self.pairs(node) if node.type == "object" else {}
            for key in ("system", "instructions", "prompt"):
                value = pairs.get(key)
                binding = self.binding(value) if value is not None and value.type in (
                    "identifier", "shorthand_property_identifier") else None
                source = binding.holder.child_by_field_name("source") if binding is not None and \
                    binding.kind == "import" else None
                package = source.text.decode().strip("'\"`") if source is not None else ""
                if value is not None and package and not package.startswith((".", "/", "~", "@/")):
                    return value.text.decode(), package
        return None

    def sdk_object(self, node, consumed: set) -> SourcePrompt | None:
        pairs = self.pairs(node)
        if not ({"system", "instructions", "messages", "prompt"} & set(pairs)) or "role" in pairs:
            return None
        messages: list[PromptMessage] = []
        for key in ("system", "instructions"):
            if key in pairs:
                messages += self.content(pairs[key], "system")
        listed = pairs.get("messages")
        if listed is not None and listed.type == "array":
            consumed.add(node_key(listed))
            messages += self.role_messages(listed)
        elif listed is not None and messages and listed.type in (
                "identifier", "shorthand_property_identifier", "member_expression", "call_expression",
                "await_expression"):  # `system: rules, messages: history` (or `convertToModelMessages(m)`)
            messages += self.listed(listed)  # the conversation after it
        for key in ("prompt", "input"):
            if key in pairs:
                messages += self.content(pairs[key], "user" if messages else None)
        if not messages:
            return None
        call = node.parent.parent if node.parent is not None and node.parent.type == "arguments" else None
        # `f({...})` names its function; `new Agent({...})` its constructor
        callee = call and (call.child_by_field_name("function") or call.child_by_field_name("constructor"))
        name = callee.text.decode() if callee is not None else None
        return SourcePrompt(name, messages, is_chat=any(m.role for m in messages))


def _has_blank(pieces) -> bool:
    return pieces is not None and any(isinstance(p, Text) and " " in p.chars for p in pieces)


LOADER = Loader(FORMAT, sniff, load, hint=HINT, walked=sniff_walked, many=load_all, also=("javascript",),
                program_source=True, declared=False)
