"""Prompts in TypeScript and JavaScript (`.ts .tsx .mts .cts .js .jsx .mjs .cjs`), read with tree-sitter.

A text is a prompt when it is
- declared under a prompt-like name (`systemPrompt`, `SYSTEM_PROMPT`, `researchInstructions`;
  a function so named gives the text it returns, its last `return`);
- passed where a prompt goes: an object with `system`, `instructions`, `prompt`, `input` or
  `messages: [{role, content}]` (Vercel AI SDK `generateText`/`streamText`, OpenAI and Anthropic
  Node SDKs): one chat per object, `system`/`instructions` as the system message; an array of
  `{role, content}` objects anywhere is a chat too.
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
from prefixlint.load.registry import NotATemplate
from prefixlint.load.source_prompts import (
    PROMPT_NAME,
    Field,
    PromptMessage,
    SourcePrompt,
    Text,
    has_content,
    to_template,
    variable_name,
)
from prefixlint.load.source_text import template_fields
from prefixlint.load.template import Template
from prefixlint.load.ts_assembly import returned_expression
from prefixlint.load.ts_grammar import parse, parser, source_kind
from prefixlint.load.ts_langchain import is_prompt_object, prompt_object
from prefixlint.load.ts_scopes import FUNCTIONS, node_key
from prefixlint.load.ts_values import Values

FORMAT = "typescript"
#: `CHATGPT_SYSTEM_MESSAGE`, `systemMessage`, `generateSystemMessage`: a system message by its name.
SYSTEM_MESSAGE_NAME = re.compile(r"system_?(?:message|msg)", re.IGNORECASE)
HINT = ("prefixlint reads texts declared under prompt-like names (*Prompt*, SYSTEM*, *instructions*, *template*)"
        " and `system`/`prompt`/`instructions`/`messages` properties of SDK calls")
_SNIFF = re.compile(r"prompt|system|instruction|template|messages", re.IGNORECASE)
ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
TEXT_KEYS = {"system": "system", "instructions": "system", "prompt": "user", "input": "user"}


def sniff(text: str) -> bool:
    return True


def sniff_walked(text: str) -> bool:
    return _SNIFF.search(text) is not None


_QUERY = """
(variable_declarator name: (identifier) @name) @decl
(function_declaration name: (identifier) @name) @decl
(pair key: [(property_identifier) (string)] @key) @pair
(shorthand_property_identifier) @short
(call_expression function: (member_expression property: (property_identifier) @method)) @call
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
    if not prompts:
        raise NotATemplate(f"no prompt found in this {fmt.title()} module", path=path, line=1, hint=HINT)
    return [to_template(path, text, fmt, prompt) for prompt in prompts]


class _Source(Values):
    def __init__(self, text: str, path: str, root, cursor) -> None:
        super().__init__(text, path)
        self.root = root
        self.candidates: dict[tuple, Any] = {}  # declarations, objects, arrays: where prompts may be
        captures = cursor.captures(root)
        for node in captures.get("decl", ()):
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value") or node
            if PROMPT_NAME.search(name.text.decode()) or SYSTEM_MESSAGE_NAME.search(name.text.decode()) and \
                    value.type in ("string", "template_string", *FUNCTIONS):  # a text, or a function returning it,
                # named as a system message (`CHATGPT_SYSTEM_MESSAGE`, `generateSystemMessage = (...) => ...`)
                self.candidates[node_key(node)] = node
        for node in captures.get("call", ()):
            if is_prompt_object(node):  # LangChain.js `ChatPromptTemplate.fromMessages([...])`
                self.candidates[node_key(node)] = node
        for node in [*captures.get("pair", ()), *captures.get("short", ())]:
            key = node.child_by_field_name("key") if node.type == "pair" else node
            name = key.text.decode().strip("'\"`")
            holder = node.parent
            if name == "role" and holder.parent is not None and holder.parent.type == "array":
                self.candidates[node_key(holder.parent)] = holder.parent
            elif name == "role" and _unshift(holder) is not None:
                self.candidates[node_key(holder.parent.parent)] = holder.parent.parent
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
            if node.type == "object" and node_key(node) not in consumed:
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

    def sdk_object(self, node, consumed: set) -> SourcePrompt | None:
        pairs = self.pairs(node)
        if not ({"system", "instructions", "messages", "prompt"} & set(pairs)) or "role" in pairs:
            return None
        messages: list[PromptMessage] = []
        for key in ("system", "instructions"):
            if key in pairs:
                messages += self.content(pairs[key], "system")
        if pairs.get("messages") is not None and pairs["messages"].type == "array":
            consumed.add(node_key(pairs["messages"]))
            messages += self.role_messages(pairs["messages"])
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

    def pairs(self, node) -> dict:
        out = {}
        for child in node.named_children:
            if child.type == "pair":
                key = child.child_by_field_name("key")
                name = key.text.decode().strip("'\"`") if key is not None else ""
                out[name] = child.child_by_field_name("value")
            elif child.type == "shorthand_property_identifier":
                out[child.text.decode()] = child
        return out

    def role_messages(self, array, depth: int = 0) -> list[PromptMessage]:
        return self.role_messages_of(array.named_children, depth, array)

    def role_messages_of(self, items, depth: int = 0, array=None) -> list[PromptMessage]:
        messages: list[PromptMessage] = []
        for item in items:
            if item.type == "spread_element":  # `...MESSAGES` (a constant list) or `...history` after the system message
                spread = item.named_children[0] if item.named_children else item
                declarator = self.bound(spread) if spread.type == "identifier" else None
                value = declarator.child_by_field_name("value") if declarator is not None else None
                if value is not None and value.type == "array" and value is not array and depth < 4:
                    messages += self.role_messages(value, depth + 1)
                elif messages:
                    messages.append(self.slot(spread))
                continue
            pairs = self.pairs(item) if item.type == "object" else {}
            role = pairs.get("role")
            if role is None or "content" not in pairs or role.type != "string":
                continue
            name = role.text.decode().strip("'\"")
            messages += self.content(pairs["content"], ROLES.get(name, name))
        return messages

    def returned_message(self, node) -> list[PromptMessage]:
        """The message a function returns as a `{role, content}` object, else []."""
        function = node if node.type == "function_declaration" else node.child_by_field_name("value")
        if function is None or function.type not in ("function_declaration", "arrow_function", "function_expression"):
            return []
        body = returned_expression(function)
        return self.role_messages_of([body]) if body is not None and body.type == "object" else []

    def unshifted_into(self, target) -> list[PromptMessage]:
        """What follows a message unshifted into `target`: the messages of a list declared in the
        module with no spread in it (a request built here), else the conversation so far."""
        declarator = self.bound(target) if target.type == "identifier" else None
        value = declarator.child_by_field_name("value") if declarator is not None else None
        if value is not None and value.type == "array" and not any(
                item.type == "spread_element" for item in value.named_children):
            return self.role_messages(value)
        return [self.slot(target)]

    def slot(self, node) -> PromptMessage:
        """The conversation so far, where the code puts it (`...history`, the array unshifted into)."""
        start = self.at(node.start_byte)
        name = variable_name(self.segments(node)[0]) if node.type in ("identifier", "member_expression") else "history"
        return PromptMessage("(conversation)", [Field(start, self.written(node), name)], start, slot=name)

    def content(self, node, role: str | None) -> list[PromptMessage]:
        if node.type == "array":  # `content: [{type: 'text', text: p}, {type: 'image_url', ...}]`
            parts = [self.pairs(item) for item in node.named_children if item.type == "object"]
            texts = [part["text"] for part in parts if "text" in part and part["text"] is not None]
            if texts and len(texts) == len(node.named_children):
                return [message for text in texts for message in self.content(text, role)]
        pieces = self.text_of(node, 0)
        if pieces is None:
            pieces = [self.field(node)]
        return [PromptMessage(role, pieces, self.at(node.start_byte))]


def _unshift(holder):
    """The `x.unshift(...)` call an object literal is an argument of, else None."""
    arguments = holder.parent
    call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
    callee = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
    if callee is None or callee.type != "member_expression":
        return None
    return call if callee.child_by_field_name("property").text == b"unshift" else None


def _has_blank(pieces) -> bool:
    return pieces is not None and any(isinstance(p, Text) and " " in p.chars for p in pieces)


LOADER = Loader(FORMAT, sniff, load, hint=HINT, walked=sniff_walked, many=load_all, also=("javascript",),
                program_source=True, declared=False)
