"""What a TypeScript/JavaScript expression in a prompt is: the text it builds, or a placeholder.

`Values.text_of(node)` follows a prompt's text through string and template literals (escapes
decoded, each character kept with its file offset), constants of the file, `+`, `.join()`,
`.trim()`, and calls of functions that return a template literal (their last `return`);
`Values.field(node)` makes the placeholder a `${...}` becomes: named by its words, volatile by
construction when it reads the clock (`new Date()`, `Date.now()`), `crypto.randomUUID()` or
`Math.random()`. tree-sitter positions are bytes; they are mapped to characters here.
"""

from __future__ import annotations

from typing import Any

from prefixlint.load.source_prompts import CLOCK_CALLS, Field, Text, clock_variable, filled_by, variable_name
from prefixlint.load.source_text import dedent_pieces, strip_pieces
from prefixlint.load.template import Variable

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0", "\n": "", "\r\n": ""}
DAY_METHODS = {"toLocaleDateString", "toDateString"}
YEAR_METHODS = {"getFullYear", "getUTCFullYear", "getMonth", "getYear"}
_DEPTH = 8


def node_key(node) -> tuple[int, int, str]:
    return node.start_byte, node.end_byte, node.type


class Values:
    def __init__(self, text: str) -> None:
        self.text = text
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
        self.bindings: dict[str, Any] = {}  # name -> its tree-sitter node
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

    # -- texts ---------------------------------------------------------------------------------
    def text_of(self, node, depth: int, function: bool = False) -> list | None:
        if node is None or depth > _DEPTH:
            return None
        kind = node.type
        if kind in ("string", "template_string"):
            self.touched.append(node_key(node))
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
        if arguments is not None and arguments.type == "template_string" and callee is not None:
            pieces = self.text_of(arguments, depth + 1)  # a tagged template: dedent`...`
            dedent = callee.text.decode().lower().endswith(("dedent", "outdent", "stripindent"))
            return dedent_pieces(pieces) if dedent and pieces is not None else None  # None: past the depth bound
        if callee is not None and callee.type == "identifier":
            bound = self.bindings.get(callee.text.decode())
            if bound is not None and bound.type in ("arrow_function", "function_expression", "function_declaration"):
                return self.applied(bound, arguments, depth)
        return None

    def applied(self, function, arguments, depth: int) -> list | None:
        """The text a call returns, its parameters bound to the call's arguments (`frame(`...`)`)."""
        names = [_parameter_name(p) for p in _parameters(function)]
        given = list(arguments.named_children) if arguments is not None else []
        saved = {name: self.bindings.get(name) for name in names if name}
        for name, value in zip(names, given):
            if name:
                self.bindings[name] = value
        try:
            return self.returned(function, depth + 1)
        finally:
            for name, value in saved.items():
                if value is None:
                    self.bindings.pop(name, None)
                else:
                    self.bindings[name] = value

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
        if clock is None and expression is not None and not _in_function(where):  # evaluated once, at load
            value = self.written(expression)
            return Field(offset, written, variable_name(segments, keyed), filled_by(
                Variable("value", "per_request", (value,)), value, where.start_point[0] + 1, True))
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
        return filled_by(clock_variable(name, frequency, generate), self.written(node), node.start_point[0] + 1,
                         not _in_function(node))

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


def _parameters(function) -> list:
    single = function.child_by_field_name("parameter")
    if single is not None:
        return [single]
    listed = function.child_by_field_name("parameters")
    return list(listed.named_children) if listed is not None else []


def _parameter_name(node) -> str | None:
    if node.type == "identifier":
        return node.text.decode()
    pattern = node.child_by_field_name("pattern")
    return pattern.text.decode() if pattern is not None and pattern.type == "identifier" else None


def _hex(raw: str) -> str:
    digits = raw[2:].strip("{}")
    try:
        return chr(int(digits, 16))
    except ValueError:
        return raw


#: Node types whose body runs when called, not when the module is loaded.
_FUNCTIONS = frozenset({"function_declaration", "function_expression", "arrow_function", "method_definition",
                        "generator_function_declaration", "function"})


def _in_function(node) -> bool:
    """Whether `node` runs inside a function (else once, when the module is loaded)."""
    while node is not None:
        if node.type in _FUNCTIONS:
            return True
        node = node.parent
    return False
