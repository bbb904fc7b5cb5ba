"""Which assignment a Python name reads, by Python's own scoping rules (issue 19 item 5).

A name used in a function reads the function's own binding when the function binds it anywhere
(an assignment, a parameter, a loop or `with` target, an import, a nested `def`), else the
binding of the enclosing functions, else the module's top level; a class body is no enclosing
scope for the functions in it; a comprehension's targets are its own, a `:=` in it binds in the
function around it; `global` and `nonlocal` send the name to the module or to the enclosing
function. A name no scope binds (a builtin, a star import) reads nothing. A module-level name
that a function rebinds with `global` holds, at request time, what the function assigned: a use
inside a function reads that rebinding; a use at top level (evaluated once, at import) reads
the top-level assignment. An attribute (`self.x`, `prompts.SYSTEM`) is never a function's local:
it reads the module's and the class bodies' names and the attribute assignments (`self.x = ...`).

Of several assignments of one scope, the first text is read (a prompt's words), else the last.
"""

from __future__ import annotations

import ast
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
#: The nodes `_step` does something with (a scope, a declaration, a binding); every other node
#: only has its children walked in its scope, and one without children (`Load`, `Add`) nothing.
_ACTIVE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, *_COMPREHENSIONS, ast.Global,
           ast.Nonlocal, ast.NamedExpr, ast.Assign, ast.AnnAssign, ast.Name, ast.Import, ast.ImportFrom,
           ast.ExceptHandler, ast.MatchAs, ast.MatchStar, ast.MatchMapping)
_NODES = [c for c in vars(ast).values() if isinstance(c, type) and issubclass(c, ast.AST)]
_PASSIVE = frozenset(c for c in _NODES if not issubclass(c, _ACTIVE) and c._fields)
_LEAVES = frozenset(c for c in _NODES if not issubclass(c, _ACTIVE) and not c._fields)


@dataclass
class _Scope:
    kind: str  # "module", "function", "class" or "comprehension"
    parent: _Scope | None
    start: int
    end: int
    local: set[str] = field(default_factory=set)  # every name this scope binds
    values: dict[str, list[ast.expr]] = field(default_factory=dict)
    declared: dict[str, str] = field(default_factory=dict)  # name -> "global" / "nonlocal"


class Scopes:
    """The scopes of one module; `offset(line, byte column)` places a node in the file."""

    def __init__(self, tree: ast.Module, offset: Callable[[int, int], int]) -> None:
        self._offset = offset
        self.module = _Scope("module", None, 0, 1 << 62)
        self._scopes = [self.module]
        self.runtime: dict[str, list[ast.expr]] = {}  # module names rebound by functions (`global`)
        self.attributes: dict[str, list[ast.expr]] = {}  # `self.x = ...`, `obj.x = ...`
        self._constants: dict[str, ast.expr] | None = None
        self._walk(tree.body, self.module)
        self._scopes.sort(key=lambda s: s.start)
        self._starts = [s.start for s in self._scopes]
        for scope in self._scopes:  # rebinding through `global` / `nonlocal`
            for name, how in scope.declared.items():
                owner = self.module if how == "global" else self._enclosing_function(scope, name)
                values = scope.values.pop(name, [])
                if owner is self.module:
                    self.module.local.add(name)
                    self.runtime.setdefault(name, []).extend(values)
                elif owner is not None:
                    owner.values.setdefault(name, []).extend(values)

    # -- reading -----------------------------------------------------------------------------
    def lookup(self, name: str, at: int) -> ast.expr | None:
        """What the name `name`, used at character offset `at`, reads (None: nothing known)."""
        owner, runtime = self._owner(name, at)
        if owner is self.module:
            return self._module_value(name, runtime)
        return _pick(owner.values.get(name, [])) if owner is not None else None

    def assigned(self, name: str, at: int, module: bool = False) -> list[ast.expr]:
        """Every value assigned to `name` in the function whose local the use at `at` reads
        (none when no scope binds it, or when it is the module's: its top-level ones if `module`)."""
        owner, _ = self._owner(name, at)
        return list(owner.values.get(name, [])) if owner is not None and (module or owner is not self.module) else []

    def _owner(self, name: str, at: int) -> tuple[_Scope | None, bool]:
        """The scope whose binding the use reads, and whether the use runs in a function."""
        origin = self._innermost(at)
        scope: _Scope | None = origin
        runtime = False
        while scope is not None:
            runtime = runtime or scope.kind == "function"
            how = scope.declared.get(name)
            if how == "global":
                return self.module, True
            if how is None and name in scope.local and (scope is origin or scope.kind != "class"):
                return scope, runtime
            scope = scope.parent
            while scope is not None and scope.kind == "class":  # no enclosing scope for what is inside
                scope = scope.parent
        return None, runtime

    def module_reads(self, name: str, at: int) -> bool:
        """Whether `name`, used at offset `at`, reads the module's own binding (an import's)."""
        return self._owner(name, at)[0] is self.module

    def module_constants(self) -> dict[str, ast.expr]:
        """The module's top-level names bound to a value, that no function rebinds (`global`)."""
        if self._constants is None:
            self._constants = {name: value for name, values in self.module.values.items()
                               if name not in self.runtime and (value := _pick(values)) is not None}
        return self._constants

    def attribute(self, name: str) -> ast.expr | None:
        """What `obj.name` reads: an attribute assignment, a class body's or the module's name."""
        return _pick(self.attributes.get(name, []))

    def _module_value(self, name: str, runtime: bool) -> ast.expr | None:
        rebound = self.runtime.get(name) if runtime else None
        return rebound[-1] if rebound else _pick(self.module.values.get(name, []))

    def _innermost(self, at: int) -> _Scope:
        scope: _Scope | None = self._scopes[max(bisect_right(self._starts, at) - 1, 0)]
        while scope is not None and not scope.start <= at < scope.end:
            scope = scope.parent
        return scope or self.module

    def _enclosing_function(self, scope: _Scope, name: str) -> _Scope | None:
        outer = scope.parent
        while outer is not None and not (outer.kind == "function" and name in outer.local):
            outer = outer.parent
        return outer

    # -- building ----------------------------------------------------------------------------
    def _open(self, node: ast.AST, kind: str, parent: _Scope) -> _Scope:
        start = self._offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end = self._offset(node.end_lineno or node.lineno, node.end_col_offset or 0)  # type: ignore[attr-defined]
        scope = _Scope(kind, parent, start, max(end, start + 1))
        self._scopes.append(scope)
        return scope

    def _bind(self, scope: _Scope, name: str, value: ast.expr | None) -> None:
        scope.local.add(name)
        if value is not None:
            scope.values.setdefault(name, []).append(value)
            if scope.kind in ("module", "class"):
                self.attributes.setdefault(name, []).append(value)

    def _walk(self, body: list, scope: _Scope) -> None:
        """Every node in source order, each with the scope it is evaluated in (a stack, not
        recursion: a long `+` chain is as deep as it is long)."""
        stack = [(node, scope) for node in reversed(body)]
        while stack:
            node, scope = stack.pop()
            if type(node) in _PASSIVE:  # as `_step` would: its children, in its scope
                stack.extend((child, scope) for child in reversed(list(ast.iter_child_nodes(node)))
                             if type(child) not in _LEAVES)
            elif type(node) not in _LEAVES and not (type(node) is ast.Name and type(node.ctx) is ast.Load):  # (reads)
                stack.extend(reversed(self._step(node, scope)))

    def _step(self, node: ast.AST, scope: _Scope) -> list[tuple[ast.AST, _Scope]]:
        """Bind what `node` binds; the nodes under it, each with its scope."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            outside = [*node.decorator_list, *getattr(node, "bases", ()), *(k.value for k in getattr(node, "keywords", ()))]
            if not isinstance(node, ast.ClassDef):
                outside += self._defaults(node.args)
            self._bind(scope, node.name, None)
            inner = self._open(node, "class" if isinstance(node, ast.ClassDef) else "function", scope)
            if not isinstance(node, ast.ClassDef):
                self._parameters(node.args, inner)
            return [(n, scope) for n in outside] + [(n, inner) for n in node.body]
        if isinstance(node, ast.Lambda):
            inner = self._open(node, "function", scope)
            self._parameters(node.args, inner)
            return [*((n, scope) for n in self._defaults(node.args)), (node.body, inner)]
        if isinstance(node, _COMPREHENSIONS):
            inner = self._open(node, "comprehension", scope)
            out: list[tuple[ast.AST, _Scope]] = [(node.generators[0].iter, scope)]  # the first iterable: outside
            for number, generator in enumerate(node.generators):
                out += [(generator.target, inner)] + ([(generator.iter, inner)] if number else [])
                out += [(condition, inner) for condition in generator.ifs]
            parts = ("key", "value") if isinstance(node, ast.DictComp) else ("elt",)
            return out + [(getattr(node, part), inner) for part in parts]
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                scope.declared[name] = "global" if isinstance(node, ast.Global) else "nonlocal"
            return []
        self._binding(node, scope)
        if isinstance(node, ast.NamedExpr):  # its target is bound in the function (above)
            return [(node.value, scope)]
        return [(child, scope) for child in ast.iter_child_nodes(node)]

    def _binding(self, node: ast.AST, scope: _Scope) -> None:
        """The names `node` binds in `scope`, with the value assigned when one is written."""
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._assign(target, node.value, scope, len(node.targets) == 1)
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            self._assign(node.target, node.value, scope, True)
        elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            owner = scope
            while owner.kind == "comprehension" and owner.parent is not None:
                owner = owner.parent
            self._bind(owner, node.target.id, node.value)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)) and node.id not in scope.local:
            self._bind(scope, node.id, None)  # a loop, `with`, `+=` target, `del`, a bare annotation
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    self._bind(scope, alias.asname or alias.name.split(".")[0], None)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self._bind(scope, node.name, None)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            self._bind(scope, node.name, None)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            self._bind(scope, node.rest, None)

    def _assign(self, target: ast.expr, value: ast.expr, scope: _Scope, single: bool) -> None:
        if isinstance(target, ast.Name):
            self._bind(scope, target.id, value if single else None)
        elif isinstance(target, ast.Attribute) and single:
            self.attributes.setdefault(target.attr, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            pairs = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts) \
                and not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts))
            for number, item in enumerate(target.elts):
                item = item.value if isinstance(item, ast.Starred) else item
                self._assign(item, value.elts[number] if pairs else value, scope, single)  # type: ignore[attr-defined]

    @staticmethod
    def _defaults(args: ast.arguments) -> list[ast.expr]:
        """Defaults: evaluated where the function is defined."""
        return [*args.defaults, *(d for d in args.kw_defaults if d is not None)]

    def _parameters(self, args: ast.arguments, scope: _Scope) -> None:
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
            if arg is not None:
                self._bind(scope, arg.arg, None)


def _pick(values: list[ast.expr]) -> ast.expr | None:
    """The first text among a scope's values for a name (a prompt's words), else the last."""
    return next((v for v in values if isinstance(v, ast.JoinedStr) or isinstance(v, ast.Constant)
                 and isinstance(v.value, str)), values[-1] if values else None)
