r"""How TypeScript/JavaScript code assembles a prompt after declaring it (issue 19 item 4).

A prompt is rarely one literal. Code declares a variable and then grows it, in source order:
`let prompt = \`...\`; prompt += \`...\`` (or `prompt = prompt + ...`), `const parts = [...];
parts.push(a, b)` then `parts.join('\\n')`. `additions(declarator)` gives the expressions added
to a declared variable after its declaration in the same scope (a conditional section counts:
it is part of the prompt whenever the condition holds). `declaration(identifier, candidates)`
picks, among the file's declarations of a name, the one in scope where the name is used
(the innermost enclosing block that declares it before the use). `replaced_field(pattern)`
reads the `{var}` / `{{var}}` a `.replace('{var}', value)` fills.

Everything here is a plain walk of tree-sitter nodes; no grammar is imported.
"""

from __future__ import annotations

import re

from prefixlint.load.ts_grammar import walk

#: Node types that open a scope for `let`/`const`.
_SCOPES = frozenset({"statement_block", "program", "class_body", "switch_body"})
#: Node types whose body is a function of its own.
FUNCTIONS = frozenset({"function_declaration", "function_expression", "arrow_function", "method_definition",
                       "generator_function_declaration", "generator_function", "function"})
#: How many additions to one variable are followed (a bound on the walk's output, not its cost).
_MAX_ADDITIONS = 64
#: `{var}`, `{{var}}`, `{{ var }}`, `[var]`-free: the placeholder a `.replace(...)` fills.
_PLACEHOLDER = re.compile(r"^\{\{?\s*([A-Za-z_][\w.-]*)\s*\}?\}$")


def scope_of(node):
    node = node.parent
    while node is not None and node.type not in _SCOPES:
        node = node.parent
    return node


def _is_name(node, name: str) -> bool:
    return node is not None and node.type == "identifier" and node.text.decode() == name


def additions(declarator) -> list:
    """The expressions added to `declarator`'s variable after it, in source order: the right side
    of `name += x` and `name = name + x`, the arguments of `name.push(x, ...)`."""
    name_node = declarator.child_by_field_name("name")
    scope = scope_of(declarator)
    if name_node is None or name_node.type != "identifier" or scope is None:
        return []
    name = name_node.text.decode()
    found: list = []
    for node in walk(scope):
        if node.start_byte < declarator.end_byte or len(found) >= _MAX_ADDITIONS:
            continue
        kind = node.type
        if kind == "augmented_assignment_expression":
            operator = node.child_by_field_name("operator")
            if _is_name(node.child_by_field_name("left"), name) and operator is not None and operator.type == "+=":
                found.append(node.child_by_field_name("right"))
        elif kind == "assignment_expression" and _is_name(node.child_by_field_name("left"), name):
            operands = _sum(node.child_by_field_name("right"))
            if len(operands) > 1 and _is_name(operands[0], name):
                found += operands[1:]
        elif kind == "call_expression":
            callee = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if callee is not None and callee.type == "member_expression" and arguments is not None and _is_name(
                    callee.child_by_field_name("object"), name) and callee.child_by_field_name(
                    "property").text == b"push":
                found += [a for a in arguments.named_children if a.type != "spread_element"]
    return [node for node in found if node is not None and not _shadowed(node, name, scope)]


def _sum(node) -> list:
    """The operands of `a + b + c` in order (`[node]` when it is no sum)."""
    if node is None:
        return []
    operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    if operator is None or operator.type != "+":
        return [node]
    return _sum(node.child_by_field_name("left")) + [node.child_by_field_name("right")]


def _shadowed(node, name: str, scope) -> bool:
    """Whether `node` sits in a function between it and `scope` that declares `name` itself."""
    node = node.parent
    while node is not None and node is not scope and node != scope:
        if node.type in FUNCTIONS:
            for child in walk(node):
                if child.type == "variable_declarator" and _is_name(child.child_by_field_name("name"), name):
                    return True
        node = node.parent
    return False


def declaration(use, declarators: list):
    """The declarator among `declarators` (all declaring `use`'s name) in scope at `use`: the one
    in the innermost block enclosing `use`, declared before it; None when none encloses it."""
    best, best_start = None, -1
    for declarator in declarators:
        scope = scope_of(declarator)
        if scope is None or not (scope.start_byte <= use.start_byte < scope.end_byte):
            continue
        if scope.type != "program" and declarator.start_byte > use.start_byte:
            continue
        if scope.start_byte > best_start:
            best, best_start = declarator, scope.start_byte
    return best


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
