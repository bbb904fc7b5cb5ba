"""Which declaration a TypeScript/JavaScript name reads, by the language's scoping rules (issue 19 item 5).

`Scopes(root).resolve(identifier)` gives the `Binding` a name reads where it is written: the
innermost scope around it that declares the name, else None (a global, or undeclared). The scopes:
- a block (`{ ... }`, the module, a `switch` body, a `for (let ...)` head) holds its `let`,
  `const`, `class` and `function` declarations, wherever in the block they are written;
- a function holds its parameters (also destructured, with defaults, `...rest`), its own name
  when it is a named function expression, and every `var` of its body (hoisted out of blocks);
- a `catch (e)` clause holds `e`; a `for (const x of xs)` loop holds `x`;
- the module holds its imports (`import a, { b as c } from`, `import * as ns`, `import x = require()`).
A name declared by another function, or in a block that does not enclose the read, is never read.
`in_function(node)` and `evaluated(node)` say when code runs: at load, or when a function is
called (a function written inside an expression is not run by it). Built in one walk of the
tree; the lookups of `ts_fill_sites`, `ts_values` and `ts_assembly` go through it (before
it, a name was looked up in one table for the whole module).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from prefixlint.load.ts_grammar import parser, walk

#: Node types whose body is a function of its own.
FUNCTIONS = frozenset({"function_declaration", "function_expression", "arrow_function", "method_definition",
                       "generator_function_declaration", "generator_function", "function"})
#: Node types that hold `let`/`const`/`class`/`function` declarations written in them.
BLOCKS = frozenset({"statement_block", "program", "switch_body", "class_static_block"})
_DECLARED_FUNCTIONS = ("function_declaration", "generator_function_declaration")
_CLASSES = ("class_declaration", "abstract_class_declaration")


@dataclass(frozen=True)
class Binding:
    """A name and where it is declared. `kind`: variable (`let`/`const`/`var`), parameter,
    function, class, import, catch or loop; `node` the identifier declaring it; `holder` the
    `variable_declarator`, the function (of a parameter, or the function declared), the class,
    the import statement, the catch clause or the loop; `scope` the node it is visible in."""

    name: str
    kind: str
    node: Any
    holder: Any
    scope: Any

    @property
    def destructured(self) -> bool:
        """Whether the name is one of a pattern's (`const { a } = ...`, `function f({ a })`)."""
        node = self.node.parent
        while node is not None and node_key(node) != node_key(self.holder):
            if node.type in ("object_pattern", "array_pattern"):
                return True
            node = node.parent
        return False

    @property
    def declarator(self):
        """The `variable_declarator` of a variable declared by its whole name (`const x = ...`), else None."""
        if self.kind != "variable" or self.holder.type != "variable_declarator" or self.destructured:
            return None
        return self.holder

    @property
    def constant(self) -> bool:
        """Whether the name is a `const` (its declared value is the only one it ever has)."""
        declaration = self.holder.parent if self.kind == "variable" else None
        return declaration is not None and declaration.type == "lexical_declaration" and \
            declaration.children[0].type == "const"

    @property
    def value(self):
        """The expression a variable declared by its whole name is declared with, else None."""
        declarator = self.declarator
        return declarator.child_by_field_name("value") if declarator is not None else None


def node_key(node) -> tuple[int, int, str]:
    """A node's identity across lookups (tree-sitter makes a new object each time a node is reached)."""
    return node.start_byte, node.end_byte, node.type


#: Captures of the query that finds scopes and declarations (run in C: a Python walk of every
#: node, or a climb of `.parent`, which tree-sitter answers by descending from the root, was most
#: of the time of reading a 2,000-line module). A node type a grammar lacks is left out.
_CAPTURES = {
    "block": (*sorted(BLOCKS), "for_statement", "for_in_statement"),
    "function": tuple(sorted(FUNCTIONS)),
    "declared": (*_DECLARED_FUNCTIONS, *_CLASSES),
    "named": ("function_expression", "generator_function", "function", "class"),
    "catch": ("catch_clause",),
    "import": ("import_clause", "import_require_clause"),
}


@lru_cache(maxsize=None)
def _cursor(grammar: str):
    import tree_sitter

    language = parser(grammar).language
    patterns = ["(variable_declaration (variable_declarator) @var)", "(lexical_declaration (variable_declarator) @let)"]
    for capture, kinds in _CAPTURES.items():
        known = [kind for kind in kinds if language.id_for_node_kind(kind, True) is not None]
        patterns.append("[" + " ".join(f"({kind})" for kind in known) + f"] @{capture}")
    return tree_sitter.QueryCursor(tree_sitter.Query(language, "\n".join(patterns)))


class Scopes:
    def __init__(self, root, grammar: str) -> None:
        self._names: dict[str, list[Binding]] = {}  # every declaration of a name, in source order
        roles: dict[tuple, tuple] = {}
        for capture, nodes in _cursor(grammar).captures(root).items():
            for node in nodes:
                known = roles.get(node_key(node))
                roles[node_key(node)] = (node, (known[1] if known else frozenset()) | {capture})
        blocks, functions = [root], [root]  # the scopes open where the sweep is, innermost last
        for node, captured in sorted(roles.values(), key=lambda item: (item[0].start_byte, -item[0].end_byte)):
            for stack in (blocks, functions):
                while len(stack) > 1 and stack[-1].end_byte <= node.start_byte:
                    stack.pop()
            self._declare(node, captured, blocks[-1], functions[-1], root)
            if "block" in captured:
                blocks.append(node)
            if "function" in captured:
                functions.append(node)
            self._declare_inside(node, captured, functions[-1] if "function" not in captured else functions[-2])

    def resolve(self, identifier) -> Binding | None:
        """The binding `identifier` reads where it is written: the first declaration of its name in
        the innermost scope around it; None when no scope around it declares it."""
        at = identifier.start_byte
        best = None
        for binding in self._names.get(identifier.text.decode(), ()):
            scope = binding.scope
            if scope.start_byte <= at < scope.end_byte and (
                    best is None or scope.end_byte - scope.start_byte < best.scope.end_byte - best.scope.start_byte):
                best = binding
        return best

    def module_constant(self, name: str) -> Binding | None:
        """The `const name = ...` of the module's top level, else None."""
        return next((b for b in self._names.get(name, ()) if b.constant and b.declarator is not None
                     and b.scope.type == "program"), None)

    def declared_by(self, name_node) -> Binding | None:
        """The binding the identifier `name_node` declares (a second `var x` of a scope is a
        binding of its own, with its own value), else None when it declares nothing."""
        here = node_key(name_node)
        return next((b for b in self._names.get(name_node.text.decode(), ()) if node_key(b.node) == here), None)

    # -- declarations ---------------------------------------------------------------------------
    def _add(self, scope, kind: str, name_node, holder) -> None:
        if name_node is not None:
            name = name_node.text.decode()
            self._names.setdefault(name, []).append(Binding(name, kind, name_node, holder, scope))

    def _declare(self, node, captured, block, function, root) -> None:
        """The names `node` declares in the scopes around it."""
        if "var" in captured or "let" in captured:
            for name in pattern_names(node.child_by_field_name("name")):
                self._add(function if "var" in captured else block, "variable", name, node)
        if "declared" in captured:
            self._add(block, "function" if node.type in _DECLARED_FUNCTIONS else "class",
                      node.child_by_field_name("name"), node)
        if "import" in captured:
            statement = node.parent
            for child in walk(node):
                if child.type == "import_specifier":
                    self._add(root, "import", child.child_by_field_name("alias") or
                              child.child_by_field_name("name"), statement)
                elif child.type == "identifier" and child.parent is not None and child.parent.type in (
                        "import_clause", "namespace_import", "import_require_clause"):
                    self._add(root, "import", child, statement)

    def _declare_inside(self, node, captured, around) -> None:
        """The names `node` declares in its own extent: a function's parameters and its name as a
        named expression, a catch clause's parameter, a loop's variable (`var`: the function around)."""
        if "named" in captured:
            self._add(node, "function" if node.type != "class" else "class", node.child_by_field_name("name"), node)
        if "function" in captured:
            single = node.child_by_field_name("parameter")  # `x => ...`
            listed = node.child_by_field_name("parameters")
            for parameter in [single] if single is not None else listed.named_children if listed is not None else []:
                for name in pattern_names(parameter):
                    self._add(node, "parameter", name, node)
        if "catch" in captured:
            for name in pattern_names(node.child_by_field_name("parameter")):
                self._add(node, "catch", name, node)
        if node.type == "for_in_statement":
            declared = node.child_by_field_name("kind")
            if declared is not None:  # `for (x of xs)` assigns a name declared elsewhere
                for name in pattern_names(node.child_by_field_name("left")):
                    self._add(around if declared.type == "var" else node, "loop", name, node)


def pattern_names(pattern) -> list:
    """The identifiers a declaration's name or a parameter binds, in source order: `x`,
    `{ a, b: c, d = 1 }`, `[e, ...f]`, `g = 2`, TypeScript's `h?: T`."""
    out: list = []
    stack = [pattern]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        kind = node.type
        if kind in ("identifier", "shorthand_property_identifier_pattern"):
            out.append(node)
        elif kind in ("required_parameter", "optional_parameter"):
            stack.append(node.child_by_field_name("pattern"))
        elif kind == "pair_pattern":
            stack.append(node.child_by_field_name("value"))
        elif kind in ("assignment_pattern", "object_assignment_pattern"):
            stack.append(node.child_by_field_name("left"))
        elif kind in ("object_pattern", "array_pattern", "rest_pattern"):
            stack.extend(reversed(node.named_children))
    return out


def in_function(node) -> bool:
    """Whether `node` runs inside a function (else once, when the module is loaded)."""
    while node is not None:
        if node.type in FUNCTIONS:
            return True
        node = node.parent
    return False


def evaluated(root):
    """The nodes under `root` that run when `root` is evaluated, in source order: a function
    written inside it runs only when called, so its body is left out (`() => new Date()` is no
    clock read), unless it is called right there (`(() => new Date())()`) or passed to a call."""
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(child for child in reversed(node.children) if child.type not in FUNCTIONS or _invoked(child))


def _invoked(function) -> bool:
    """Whether a function is run where it is written: called right there, or passed to a call
    (`items.map(item => ...)`: a callback the call runs)."""
    holder = function.parent
    while holder is not None and holder.type == "parenthesized_expression":
        function, holder = holder, holder.parent
    return holder is not None and (holder.type == "arguments" or holder.type == "call_expression" and
                                   node_key(holder.child_by_field_name("function")) == node_key(function))


def function_around(node):
    """The innermost function `node` is written in, else None (the module)."""
    node = node.parent
    while node is not None and node.type not in FUNCTIONS:
        node = node.parent
    return node
