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
from pathlib import PurePath

from prefixlint.load.registry import NotATemplate
from prefixlint.load.source_prompts import (CLOCK_CALLS, PROMPT_NAME, Field, PromptMessage, SourcePrompt, Text,
                                            clock_variable, has_content, strip_pieces, to_template, variable_name)
from prefixlint.load.template import Template

FORMAT = "typescript"
HINT = ("prefixlint reads texts declared under prompt-like names (*Prompt*, SYSTEM*, *instructions*, *template*)"
        " and `system`/`prompt`/`instructions`/`messages` properties of SDK calls")
_SNIFF = re.compile(r"prompt|system|instruction|template|messages", re.IGNORECASE)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0", "\n": "", "\r\n": ""}
ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}
DAY_METHODS = {"toLocaleDateString", "toDateString"}
YEAR_METHODS = {"getFullYear", "getUTCFullYear", "getMonth", "getYear"}
TEXT_KEYS = {"system": "system", "instructions": "system", "prompt": "user", "input": "user"}
_DEPTH = 8


def sniff(text: str) -> bool:
    return True


def sniff_walked(text: str) -> bool:
    return _SNIFF.search(text) is not None


def source_kind(path: str) -> tuple[str, str]:
    """(format name, grammar) of a file by its extension."""
    suffix = PurePath(path).suffix.lower()
    if suffix in (".ts", ".mts", ".cts"):
        return "typescript", "typescript"
    if suffix == ".tsx":
        return "typescript", "tsx"
    return "javascript", "javascript"


@lru_cache(maxsize=None)
def _parser(grammar: str):
    import tree_sitter

    if grammar == "javascript":
        import tree_sitter_javascript as module

        language = module.language()
    else:
        import tree_sitter_typescript as module

        language = module.language_tsx() if grammar == "tsx" else module.language_typescript()
    return tree_sitter.Parser(tree_sitter.Language(language))


_QUERY = """
(variable_declarator name: (identifier) @name) @decl
(function_declaration name: (identifier) @name) @decl
(pair key: [(property_identifier) (string)] @key) @pair
(shorthand_property_identifier) @short
"""


@lru_cache(maxsize=None)
def _cursor(grammar: str):
    import tree_sitter

    return tree_sitter.QueryCursor(tree_sitter.Query(_parser(grammar).language, _QUERY))


def load(path: str, text: str) -> Template:
    return load_all(path, text)[0]


def load_all(path: str, text: str) -> list[Template]:
    fmt, grammar = source_kind(path)
    source = _Source(text, _parser(grammar).parse(text.encode("utf-8")).root_node, _cursor(grammar))
    prompts = source.prompts()
    if not prompts:
        raise NotATemplate(f"no prompt found in this {fmt.title()} module", path=path, line=1, hint=HINT)
    return [to_template(path, text, fmt, prompt) for prompt in prompts]


def _key(node) -> tuple[int, int, str]:
    return node.start_byte, node.end_byte, node.type


class _Source:
    def __init__(self, text: str, root, cursor) -> None:
        self.text, self.root = text, root
        data = text.encode("utf-8")
        self._chars: list[int] | None = None
        if len(data) != len(text):  # byte offsets -> character offsets
            self._chars = [0] * (len(data) + 1)
            at = 0
            for index, char in enumerate(text):
                width = len(char.encode("utf-8"))
                for b in range(width):
                    self._chars[at + b] = index
                at += width
            self._chars[at] = len(text)
        self.bindings: dict[str, object] = {}
        self.candidates: dict[tuple, object] = {}  # declarations, objects, arrays: where prompts may be
        captures = cursor.captures(root)
        for node in captures.get("decl", ()):
            name = node.child_by_field_name("name")
            value = node.child_by_field_name("value") or node
            self.bindings.setdefault(name.text.decode(), value)
            if PROMPT_NAME.search(name.text.decode()):
                self.candidates[_key(node)] = node
        for node in [*captures.get("pair", ()), *captures.get("short", ())]:
            key = node.child_by_field_name("key") if node.type == "pair" else node
            name = key.text.decode().strip("'\"`")
            holder = node.parent
            if name == "role" and holder.parent is not None and holder.parent.type == "array":
                self.candidates[_key(holder.parent)] = holder.parent
            elif name in TEXT_KEYS or name == "messages":
                self.candidates[_key(holder)] = holder
        self.touched: list[tuple] = []

    @staticmethod
    def _walk(root):
        stack = [root]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def at(self, byte: int) -> int:
        return self._chars[byte] if self._chars is not None else byte

    def written(self, node) -> str:
        return self.text[self.at(node.start_byte) : self.at(node.end_byte)]

    # -- where prompts are --------------------------------------------------------------------
    def prompts(self) -> list[SourcePrompt]:
        found: list[tuple[int, frozenset, SourcePrompt]] = []
        consumed: set[tuple] = set()
        for node in sorted(self.candidates.values(), key=lambda n: n.start_byte):
            prompt = None
            self.touched = []
            if node.type == "object" and _key(node) not in consumed:
                prompt = self.sdk_object(node, consumed)
            elif node.type == "array" and _key(node) not in consumed:
                messages = self.role_messages(node)
                prompt = SourcePrompt(None, messages, is_chat=True) if messages else None
            elif node.type in ("variable_declarator", "function_declaration"):
                name = node.child_by_field_name("name")
                pieces = self.text_of(node.child_by_field_name("value") or node, 0, function=True)
                if pieces is not None:
                    label = name.text.decode()
                    role = "system" if label.lstrip("_").lower().startswith("system") else None
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
            consumed.add(_key(pairs["messages"]))
            messages += self.role_messages(pairs["messages"])
        for key in ("prompt", "input"):
            if key in pairs:
                messages += self.content(pairs[key], "user" if messages else None)
        if not messages:
            return None
        call = node.parent.parent if node.parent is not None and node.parent.type == "arguments" else None
        name = call.child_by_field_name("function").text.decode() if call is not None else None
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

    def role_messages(self, array) -> list[PromptMessage]:
        messages: list[PromptMessage] = []
        for item in array.named_children:
            pairs = self.pairs(item) if item.type == "object" else {}
            role = pairs.get("role")
            if role is None or "content" not in pairs or role.type != "string":
                continue
            name = role.text.decode().strip("'\"")
            messages += self.content(pairs["content"], ROLES.get(name, name))
        return messages

    def content(self, node, role: str | None) -> list[PromptMessage]:
        pieces = self.text_of(node, 0)
        if pieces is None:
            pieces = [self.field(node)]
        return [PromptMessage(role, pieces, self.at(node.start_byte))]

    # -- texts ---------------------------------------------------------------------------------
    def text_of(self, node, depth: int, function: bool = False) -> list | None:
        if node is None or depth > _DEPTH:
            return None
        kind = node.type
        if kind in ("string", "template_string"):
            self.touched.append(_key(node))
            return self.literal(node, depth)
        if kind in ("identifier", "shorthand_property_identifier"):
            bound = self.bindings.get(node.text.decode())
            return self.text_of(bound, depth + 1) if bound is not None and bound.type != "function_declaration" else None
        if kind in ("parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression"):
            return self.text_of(node.named_children[0], depth + 1) if node.named_children else None
        if kind == "binary_expression" and node.child_by_field_name("operator").type == "+":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            a, b = self.text_of(left, depth + 1), self.text_of(right, depth + 1)
            if a is None and b is None:
                return None
            return (a if a is not None else [self.field(left)]) + (b if b is not None else [self.field(right)])
        if kind == "call_expression":
            return self.call_text(node, depth)
        if function and kind in ("arrow_function", "function_expression", "function_declaration"):
            return self.returned(node, depth)
        return None

    def returned(self, function, depth: int) -> list | None:
        body = function.child_by_field_name("body")
        if body is None:
            return None
        if body.type != "statement_block":
            return self.text_of(body, depth + 1)
        returns = [n for n in self._walk(body) if n.type == "return_statement" and n.named_children]
        return self.text_of(returns[-1].named_children[0], depth + 1) if returns else None

    def call_text(self, node, depth: int) -> list | None:
        callee = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        if callee is not None and callee.type == "member_expression":
            method = callee.child_by_field_name("property").text.decode()
            target = callee.child_by_field_name("object")
            if method in ("trim", "trimStart", "trimEnd"):
                pieces = self.text_of(target, depth + 1)
                return strip_pieces(pieces, method != "trimEnd", method != "trimStart") if pieces is not None else None
            if method == "join" and target.type == "array":
                separator = self.text_of(arguments.named_children[0], depth + 1) if arguments.named_children else [
                    Text(",", (self.at(arguments.start_byte),))]
                out: list = []
                for number, item in enumerate(target.named_children):
                    out += ((separator or []) if number else []) + (self.text_of(item, depth + 1) or [self.field(item)])
                return out
        if callee is not None and callee.type == "identifier":
            bound = self.bindings.get(callee.text.decode())
            if bound is not None and bound.type in ("arrow_function", "function_expression", "function_declaration"):
                return self.returned(bound, depth + 1)
        return None

    def literal(self, node, depth: int) -> list:
        pieces: list = []
        at = node.start_byte + 1
        for child in node.named_children:
            if child.type not in ("escape_sequence", "template_substitution"):
                continue
            self._text(pieces, at, child.start_byte)
            if child.type == "escape_sequence":
                raw = child.text.decode()
                value = _ESCAPES.get(raw[1:], raw[1:]) if not raw.startswith(("\\x", "\\u")) else _hex(raw)
                offset = self.at(child.start_byte)
                if value:
                    pieces.append(Text(value, (offset,) * len(value)))
            else:
                pieces += self.substitution(child, depth)
            at = child.end_byte
        self._text(pieces, at, node.end_byte - 1)
        return pieces

    def _text(self, pieces: list, start: int, end: int) -> None:
        if end > start:
            first, last = self.at(start), self.at(end)
            pieces.append(Text(self.text[first:last], tuple(range(first, last))))

    def substitution(self, node, depth: int) -> list:
        expression = node.named_children[0] if node.named_children else None
        if expression is not None and expression.type in ("identifier", "call_expression", "member_expression"):
            inlined = self.text_of(expression, depth + 1)
            if inlined is not None:
                return inlined
        return [self.field(expression, node)]

    # -- values ---------------------------------------------------------------------------------
    def field(self, expression, where=None) -> Field:
        where = where or expression
        offset, written = self.at(where.start_byte), self.written(where)
        clock = self.clock(expression) if expression is not None else None
        if clock is None and expression is not None and expression.type == "identifier":
            bound = self.bindings.get(expression.text.decode())
            clock = self.clock(bound) if bound is not None else None
        segments, keyed = self.segments(expression)
        if clock is not None:  # named by the code's own name for it (`today`), else by the call
            name = variable_name(segments, keyed) if expression.type == "identifier" else clock.name
            return Field(offset, written, name, clock)
        return Field(offset, written, variable_name(segments, keyed))

    def clock(self, node):
        names = []
        found = None
        for child in self._walk(node):
            if child.type == "new_expression":
                constructor = child.child_by_field_name("constructor")
                arguments = child.child_by_field_name("arguments")
                if constructor is not None and constructor.text == b"Date" and (
                        arguments is None or not arguments.named_children):
                    found = found or CLOCK_CALLS["new Date()"]
            elif child.type == "call_expression":
                callee = child.child_by_field_name("function").text.decode()
                found = found or CLOCK_CALLS.get(".".join(callee.split(".")[-2:])) or CLOCK_CALLS.get(
                    callee.split(".")[-1] + "()")
            elif child.type == "property_identifier":
                names.append(child.text.decode())
        if found is None:
            return None
        name, frequency, generate = found
        if DAY_METHODS & set(names) or "toISOString" in names and {"split", "slice", "substring"} & set(names):
            frequency, generate = "per_day", "iso_date"
        if YEAR_METHODS & set(names):
            frequency = "per_deployment"
        return clock_variable(name, frequency, generate)

    def segments(self, node) -> tuple[list[str], bool]:
        if node is None:
            return ["value"], False
        if node.type in ("identifier", "this", "property_identifier", "shorthand_property_identifier"):
            return [node.text.decode()], False
        if node.type == "member_expression":
            inner, keyed = self.segments(node.child_by_field_name("object"))
            return inner + [node.child_by_field_name("property").text.decode()], keyed
        if node.type == "subscript_expression":
            inner, _ = self.segments(node.child_by_field_name("object"))
            index = node.child_by_field_name("index")
            return inner + [index.text.decode().strip("'\"`")], True
        if node.type == "call_expression":
            arguments = node.child_by_field_name("arguments")
            if arguments is not None and arguments.named_children:
                return self.segments(arguments.named_children[0])
            return self.segments(node.child_by_field_name("function"))
        names = [n.text.decode() for n in self._walk(node) if n.type == "identifier"]
        return (names[:1] or ["value"]), False


def _hex(raw: str) -> str:
    digits = raw[2:].strip("{}")
    try:
        return chr(int(digits, 16))
    except ValueError:
        return raw
