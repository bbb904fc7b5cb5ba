"""What a TypeScript/JavaScript expression in a prompt is: the text it builds, or a placeholder.

`Values.text_of(node)` follows a prompt's text through string and template literals (escapes
decoded, each character kept with its file offset), constants of the file, `+`, `.join()`,
`.trim()`, calls of functions that return a template literal (their last `return`), a
constant imported from a module of the repository (`ts_imports`);
and what code adds to a declared prompt afterwards (`ts_assembly`: `+=`, `push` then `join`,
`.replace('{var}', value)`); every other expression is a placeholder, made by
`FillSites.field` (`ts_fill_sites`: named by its words, classified by what fills it).
tree-sitter positions are bytes; they are mapped to characters in `FillSites`.
"""

from __future__ import annotations

from dataclasses import replace

from prefixlint.load.source_prompts import Text
from prefixlint.load.source_text import dedent_pieces, strip_pieces
from prefixlint.load.ts_assembly import additions, assigned, replaced_field
from prefixlint.load.ts_callers import parameter_nodes
from prefixlint.load.ts_fill_sites import FillSites
from prefixlint.load.ts_imports import imported_text
from prefixlint.load.ts_scopes import function_around, node_key

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0", "\n": "", "\r\n": ""}
_DEPTH = 8


class Values(FillSites):
    # -- texts ---------------------------------------------------------------------------------
    def text_of(self, node, depth: int, function: bool = False) -> list | None:
        if node is None or depth > _DEPTH:
            return None
        kind = node.type
        if kind in ("string", "template_string"):
            self.touched.append(node_key(node))
            return self.literal(node, depth)
        if kind in ("identifier", "shorthand_property_identifier"):
            return self.variable_text(node, depth)
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
        if kind == "ternary_expression":
            return self.either(node, depth)
        if function and kind in ("arrow_function", "function_expression", "function_declaration"):
            return self.returned(node, depth)
        return None

    def variable_text(self, node, depth: int) -> list | None:
        """A name's text by the declaration it reads (`ts_scopes`): a variable's value where
        declared, then what code adds to it (`+=`, `x = x + ...`); a parameter's argument while a
        call's text is read (`applied`)."""
        binding = self.binding(node)
        argument = self.given(binding)
        if argument is not None:
            return self.text_of(argument, depth + 1)
        if binding is not None and binding.kind == "import":  # `import { SYSTEM } from "./prompts"`
            pieces = imported_text(self, binding, depth + 1, self.at(node.start_byte))
            if pieces is not None:
                self.touched.append(node_key(binding.node))
            return pieces
        if binding is None or binding.declarator is None:
            return None
        # read where it is written in the declaring function; a function defined there reads it when called
        same = node_key(function_around(node) or self.root) == node_key(function_around(binding.node) or self.root)
        return self.declared(binding, depth + 1, until=node.start_byte if same else None)

    def declared(self, binding, depth: int, function: bool = False, until: int | None = None) -> list | None:
        """A variable's text where it is read (byte `until`, else the end of its scope): its value
        and what the statements before that place add (`ts_assembly.assigned`)."""
        declarator = binding.declarator
        value, added = assigned(binding, self.scopes, until) if _reassignable(declarator) else (
            declarator.child_by_field_name("value"), [])
        if value is not None and value.type == "array":
            return None
        pieces = self.text_of(value, depth, function) if value is not None else []
        if pieces is None and not added:
            return None
        out = list(pieces) if pieces is not None else [self.field(value)]
        for item in added:
            out += self.text_of(item, depth + 1) or [self.field(item)]
        return out

    def either(self, node, depth: int) -> list | None:
        """`c ? a : b` where both branches are texts: the one with more text, the prompt as sent
        whenever its condition holds (`custom ? base + custom : base`: the base prompt and its
        optional section); None when a branch is no text (the value is then a placeholder)."""
        branches = []
        for field in ("consequence", "alternative"):
            mark = len(self.touched)
            pieces = self.text_of(node.child_by_field_name(field), depth + 1)
            if pieces is None:
                del self.touched[mark:]
                return None
            branches.append((sum(len(p.chars) for p in pieces if isinstance(p, Text)), pieces, self.touched[mark:]))
            del self.touched[mark:]
        _, chosen, read = max(branches, key=lambda branch: branch[0])
        self.touched += read
        return chosen

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
            items = self.array_items(target)
            if method == "join" and items is not None:
                separator = self.text_of(arguments.named_children[0], depth + 1) if arguments.named_children else [
                    Text(",", (self.at(arguments.start_byte),))]
                out: list = []
                for number, item in enumerate(items):
                    out += ((separator or []) if number else []) + (self.text_of(item, depth + 1) or [self.field(item)])
                return out
            if method in ("replace", "replaceAll") and arguments is not None and len(arguments.named_children) == 2:
                return self.replaced(node, target, arguments.named_children, method == "replaceAll", depth)
        if arguments is not None and arguments.type == "template_string" and callee is not None:
            pieces = self.text_of(arguments, depth + 1)  # a tagged template: dedent`...`
            dedent = callee.text.decode().lower().endswith(("dedent", "outdent", "stripindent"))
            return dedent_pieces(pieces) if dedent and pieces is not None else None  # None: past the depth bound
        if callee is not None and callee.type == "identifier":
            function = self.function_of(callee)
            if function is not None and function.type in ("arrow_function", "function_expression", "function_declaration"):
                return self.applied(function, arguments, depth)
        return None

    def array_items(self, node) -> list | None:
        """The items of an array literal, or of a declared array with what `push` adds to it."""
        if node.type == "array":
            return list(node.named_children)
        if node.type != "identifier":
            return None
        binding = self.binding(node)
        value = binding.value if binding is not None else None
        if value is None or value.type != "array":
            return None
        return [*value.named_children, *additions(binding, self.scopes)]

    def replaced(self, call, target, arguments, every: bool, depth: int) -> list | None:
        """`text.replace('{var}', value)`: the text with its `{var}` filled by `value`."""
        placeholder = replaced_field(arguments[0])
        if placeholder is None:
            return None
        pieces = self.text_of(target, depth + 1)
        if pieces is None:
            return None
        self.touched.append(node_key(call))  # the filled text outranks the template it fills
        value = arguments[1]
        out: list = []
        done = False
        for piece in pieces:
            while isinstance(piece, Text) and not done and placeholder in piece.chars:
                at = piece.chars.index(placeholder)
                end = at + len(placeholder)
                if at:
                    out.append(Text(piece.chars[:at], piece.offsets[:at]))
                offset = piece.offsets[at]
                if piece.offsets[end - 1] == offset and end - at > 1:  # a text not written here (imported):
                    offset = self.at(arguments[0].start_byte) + 1  # the pattern this call fills, `'{{input}}'`
                out.append(replace(self.field(value), offset=offset, text=placeholder))
                piece = Text(piece.chars[end:], piece.offsets[end:])
                done = not every
            if not isinstance(piece, Text) or piece.chars:
                out.append(piece)
        return out

    def applied(self, function, arguments, depth: int) -> list | None:
        """The text a call returns, its parameters bound to the call's arguments (`frame(`...`)`)."""
        given = list(arguments.named_children) if arguments is not None else []
        parameters = parameter_nodes(function)
        saved = {node_key(p): self.arguments.get(node_key(p)) for p in parameters if p is not None}
        for parameter, value in zip(parameters, given):
            if parameter is not None:
                self.arguments[node_key(parameter)] = value
        try:
            return self.returned(function, depth + 1)
        finally:
            for name, value in saved.items():
                if value is None:
                    self.arguments.pop(name, None)
                else:
                    self.arguments[name] = value

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


def _reassignable(declarator) -> bool:
    """Whether a declarator is a `let` or `var` (a `const` string cannot grow)."""
    holder = declarator.parent
    return holder is not None and (holder.type == "variable_declaration" or holder.type == "lexical_declaration"
                                   and holder.children[0].type == "let")


def _hex(raw: str) -> str:
    digits = raw[2:].strip("{}")
    try:
        return chr(int(digits, 16))
    except ValueError:
        return raw
