r"""How TypeScript/JavaScript code assembles a prompt after declaring it (issue 19 item 4).

A prompt is rarely one literal. Code declares a variable and then grows it, in source order:
`let prompt = \`...\`; prompt += \`...\`` (or `prompt = prompt + ...`), `const parts = [...];
parts.push(a, b)` then `parts.join('\\n')`. `additions(binding, scopes)` gives the expressions added
to a declared variable after its declaration, where the name written is that variable by the
scoping rules (`ts_scopes`; a conditional section counts: it is part of the prompt whenever the
condition holds). `assigned(binding, scopes, until)` is the value where it is read: the
statements before that place, in order, a plain `prompt = ...` of the declaring block replacing
what was built before it. `replaced_field(pattern)` reads the `{var}` / `{{var}}` a
`.replace('{var}', value)` fills.

Everything here is a plain walk of tree-sitter nodes; no grammar is imported.
"""

from __future__ import annotations

import re

from prefixlint.load.ts_grammar import walk
from prefixlint.load.ts_scopes import FUNCTIONS, node_key

#: How many additions to one variable are followed (a bound on the walk's output, not its cost).
_MAX_ADDITIONS = 64
#: `{var}`, `{{var}}`, `{{ var }}`, `[var]`-free: the placeholder a `.replace(...)` fills.
_PLACEHOLDER = re.compile(r"^\{\{?\s*([A-Za-z_][\w.-]*)\s*\}?\}$")


def _is_name(node, name: str) -> bool:
    return node is not None and node.type == "identifier" and node.text.decode() == name


def additions(binding, scopes, until: int | None = None) -> list:
    """The expressions added to `binding`'s variable after its declaration, in source order: the
    right side of `name += x` and `name = name + x`, the arguments of `name.push(x, ...)`, where
    `name` reads that variable (`scopes`: a same-named variable of another function is not it);
    only those written before the byte `until` (the place the value is read) when given."""
    return assigned(binding, scopes, until)[1]


def assigned(binding, scopes, until: int | None = None) -> tuple:
    """`(value, added)`: the value `binding`'s variable holds where it is read (at the byte
    `until`, else at the end of its scope), statement by statement in source order: the declared
    value, replaced by a later `name = ...` written in the declaring block itself (it runs
    whenever the block does; one under a condition may not, and is left out), then what
    `+=`, `name = name + ...` and `push` add after it."""
    declarator = binding.declarator
    if declarator is None:
        return None, []
    name = binding.name
    value = declarator.child_by_field_name("value")

    def reads(node) -> bool:
        found = scopes.resolve(node) if _is_name(node, name) else None
        return found is not None and node_key(found.node) == node_key(binding.node)

    found: list = []
    for node in walk(binding.scope):
        if node.start_byte < declarator.end_byte or len(found) >= _MAX_ADDITIONS or \
                until is not None and node.end_byte > until:
            continue
        kind = node.type
        if kind == "augmented_assignment_expression":
            operator = node.child_by_field_name("operator")
            if operator is not None and operator.type == "+=" and reads(node.child_by_field_name("left")):
                found.append(node.child_by_field_name("right"))
        elif kind == "assignment_expression" and _is_name(node.child_by_field_name("left"), name):
            operands = _sum(node.child_by_field_name("right"))
            if len(operands) > 1 and reads(operands[0]) and reads(node.child_by_field_name("left")):
                found += operands[1:]
            elif reads(node.child_by_field_name("left")) and _unconditional(node, declarator):
                value, found = node.child_by_field_name("right"), []  # `prompt = ...`: a new value
        elif kind == "call_expression":
            callee = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if callee is not None and callee.type == "member_expression" and arguments is not None and \
                    callee.child_by_field_name("property").text == b"push" and reads(callee.child_by_field_name("object")):
                found += [a for a in arguments.named_children if a.type != "spread_element"]
    return value, [node for node in found if node is not None]


def _unconditional(assignment, declarator) -> bool:
    """Whether an assignment is a statement of the block its variable is declared in."""
    statement = assignment.parent
    declaration = declarator.parent
    return statement is not None and statement.type == "expression_statement" and declaration is not None and \
        statement.parent is not None and declaration.parent is not None and \
        node_key(statement.parent) == node_key(declaration.parent)


def _sum(node) -> list:
    """The operands of `a + b + c` in order (`[node]` when it is no sum)."""
    if node is None:
        return []
    operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    if operator is None or operator.type != "+":
        return [node]
    return _sum(node.child_by_field_name("left")) + [node.child_by_field_name("right")]


def replaced_field(pattern) -> str | None:
    """The placeholder text a `.replace(pattern, ...)` fills (`{date}`), for a string pattern or a
    regular expression that only matches it literally (`/\\{date\\}/g`)."""
    if pattern is None:
        return None
    if pattern.type == "string":
        text = pattern.text.decode()[1:-1]
    elif pattern.type == "regex":
        body = pattern.child_by_field_name("pattern")
        text = body.text.decode().replace("\\{", "{").replace("\\}", "}") if body is not None else ""
        if re.search(r"[\\^$*+?()|\[\]]", text):
            return None
    else:
        return None
    return text if _PLACEHOLDER.match(text) else None


def returned_expression(function):
    """The expression a function returns (its last `return`, or an arrow's body)."""
    if function.type not in FUNCTIONS:
        return None
    body = function.child_by_field_name("body")
    if body is not None and body.type == "statement_block":
        returns = [n for n in walk(body) if n.type == "return_statement" and n.named_children]
        body = returns[-1].named_children[0] if returns else None
    while body is not None and body.type == "parenthesized_expression" and body.named_children:
        body = body.named_children[0]
    return body
