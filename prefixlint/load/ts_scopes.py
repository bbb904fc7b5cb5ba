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
Built in one walk of the tree; the lookups of `ts_fill_sites`, `ts_values` and `ts_assembly` go
through it (before it, a name was looked up in one table for the whole module).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from prefixlint.load.ts_grammar import walk

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


class Scopes:
    def __init__(self, root) -> None:
        self._tables: dict[tuple, dict[str, Binding]] = {}
        self._root = root
        for node in walk(root):
            self._declare(node, root)

    def resolve(self, identifier) -> Binding | None:
        """The binding `identifier` reads where it is written; None when no scope around it declares it."""
        name = identifier.text.decode()
        node = identifier
        while node is not None:
            table = self._tables.get(node_key(node))
            if table is not None and name in table:
                return table[name]
            node = node.parent
        return None

    def declared_by(self, name_node) -> Binding | None:
        """The binding the identifier `name_node` declares (a second `var x` of a scope is a
        binding of its own, with its own value), else None when it declares nothing."""
        binding = self.resolve(name_node)
        if binding is None or node_key(binding.node) == node_key(name_node):
            return binding
        holder = name_node.parent
        while holder is not None and holder.type != "variable_declarator" and holder.type not in FUNCTIONS:
            holder = holder.parent
        if holder is None or holder.type != "variable_declarator" or node_key(binding.scope) != node_key(
                self._scope_of_declarator(holder)):
            return None
        return Binding(binding.name, "variable", name_node, holder, binding.scope)

    # -- declarations ---------------------------------------------------------------------------
    def _add(self, scope, kind: str, name_node, holder) -> None:
        if scope is None or name_node is None:
            return
        table = self._tables.setdefault(node_key(scope), {})
        name = name_node.text.decode()
        table.setdefault(name, Binding(name, kind, name_node, holder, scope))  # the first declaration wins

    def _scope_of_declarator(self, declarator):
        holder = declarator.parent
        if holder is not None and holder.type == "variable_declaration":  # `var`: the function's
            return _function_scope(holder, self._root)
        return _block_scope(holder, self._root)

    def _declare(self, node, root) -> None:
        kind = node.type
        if kind == "variable_declarator":
            scope = self._scope_of_declarator(node)
            for name in pattern_names(node.child_by_field_name("name")):
                self._add(scope, "variable", name, node)
        elif kind in _DECLARED_FUNCTIONS or kind in _CLASSES:
            self._add(_block_scope(node, root), "function" if kind in _DECLARED_FUNCTIONS else "class",
                      node.child_by_field_name("name"), node)
        elif kind in ("function_expression", "generator_function", "function", "class"):
            self._add(node, "function" if kind != "class" else "class", node.child_by_field_name("name"), node)
        if kind in FUNCTIONS:
            single = node.child_by_field_name("parameter")  # `x => ...`
            listed = node.child_by_field_name("parameters")
            for parameter in [single] if single is not None else listed.named_children if listed is not None else []:
                for name in pattern_names(parameter):
                    self._add(node, "parameter", name, node)
        elif kind == "catch_clause":
            for name in pattern_names(node.child_by_field_name("parameter")):
                self._add(node, "catch", name, node)
        elif kind == "for_in_statement":
            declared = node.child_by_field_name("kind")
            if declared is not None:  # `for (x of xs)` assigns a name declared elsewhere
                scope = _function_scope(node, root) if declared.type == "var" else node
                for name in pattern_names(node.child_by_field_name("left")):
                    self._add(scope, "loop", name, node)
        elif kind in ("import_clause", "import_require_clause"):
            statement = node.parent
            for child in walk(node):
                if child.type == "import_specifier":
                    self._add(root, "import", child.child_by_field_name("alias") or
                              child.child_by_field_name("name"), statement)
                elif child.type == "identifier" and child.parent is not None and child.parent.type in (
                        "import_clause", "namespace_import", "import_require_clause"):
                    self._add(root, "import", child, statement)


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


def _block_scope(node, root):
    """The block a `let`/`const`/`class`/`function` declaration is visible in: the nearest block
    around it, or the `for` whose head declares it."""
    child, node = node, node.parent if node is not None else None
    while node is not None:
        if node.type in BLOCKS:
            return node
        if node.type in ("for_statement", "for_in_statement") and child.type != "statement_block":
            return node
        child, node = node, node.parent
    return root


def _function_scope(node, root):
    """The function a `var` is visible in (hoisted out of its blocks), or the module."""
    node = node.parent if node is not None else None
    while node is not None:
        if node.type in FUNCTIONS:
            return node
        node = node.parent
    return root


def in_function(node) -> bool:
    """Whether `node` runs inside a function (else once, when the module is loaded)."""
    while node is not None:
        if node.type in FUNCTIONS:
            return True
        node = node.parent
    return False
