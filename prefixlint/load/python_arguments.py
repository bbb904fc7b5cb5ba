"""What a function's arguments fill in Python source (issue 19 item 5): a parameter is followed
to the calls of its function, in its module and in the modules importing it; when every caller
passes a constant value (`stable_fill`), the parameter is stable; when one passes a clock call, it
is that clock value; a call that leaves it out takes the default. With no caller saying, a
parameter, or a local computed from the parameters at each call, is evidence that the value
changes between calls (how often, its name says).
"""

from __future__ import annotations

import ast
from typing import Any

from prefixlint.load.fill_sites import module_index, stable_fill
from prefixlint.load.python_callers import UNKNOWN, argument, callers_elsewhere, default
from prefixlint.load.template import Variable


def from_callers(resolver, name: ast.Name, line: int, parameter: bool = False) -> Variable | None:
    """The variable of the parameter `name` (used at `line`) by what the callers of its function
    pass; None when a caller passes anything else, or no caller is in the module (`parameter`:
    then the parameter's own evidence, as `parameter_fill` gives it)."""
    function = enclosing_function(resolver, line, line, name.id)
    if function is None:
        return None
    found = _passed(resolver, function, name.id, module_index(resolver)[1])
    return _parameter(function) if found is None and parameter else found


def _passed(resolver, function, parameter: str, calls) -> Variable | None:
    """What every call of `function` passes for `parameter`, when each says: the calls in its
    module and in the modules that import it (`python_callers`); a call that passes nothing
    takes the function's default."""
    sites: list[tuple[Any, ast.Call, str | None]] = [(resolver, call, None) for call in calls.get(function.name, ())]
    sites += callers_elsewhere(resolver, function)
    found: list[Variable] = []
    for caller, call, where in sites:
        passed = argument(function, parameter, call)
        if passed is UNKNOWN:
            return None
        if not isinstance(passed, ast.expr):
            variable = _default(resolver, function, parameter)
        else:
            variable = caller.clock(passed) or stable_fill(caller, passed)
            if variable is not None and where is not None:
                variable = Variable(variable.name, variable.kind, variable.samples, None,
                                    f"{variable.evidence} ({where}:{variable.line or call.lineno})")
        if variable is None:
            return None
        found.append(variable)
    volatile = [v for v in found if v.kind != "stable"]
    return (volatile or found)[0] if found else None


def _default(resolver, function, parameter: str) -> Variable | None:
    """The variable of `function`'s default for `parameter`, for a call that leaves it out."""
    value = default(function, parameter)
    variable = (resolver.clock(value) or stable_fill(resolver, value)) if value is not None else None
    if variable is None:
        return None
    once = variable.kind != "stable" and function in resolver.tree.body  # evaluated where the function is defined
    return Variable(variable.name, "stable" if once else variable.kind, variable.samples[:1] if once else variable.samples,
                    variable.line, f"{variable.evidence}{' once per process, at import' if once else ''}, the default of"
                    f" {function.name}()'s `{parameter}`: a call that leaves it out")


def parameter_fill(resolver, name: ast.Name, line: int) -> Variable | None:
    """A parameter of the function that builds the prompt, no caller saying it is constant: its
    caller fills it at each call. That is evidence the value changes between calls (how often
    its name says), stronger than the name alone."""
    function = enclosing_function(resolver, line, line, name.id)
    return _parameter(function) if function is not None else None


def local_fill(resolver, name: ast.Name) -> Variable | None:
    """A local of the function that fills the prompt, computed at each call from the function's
    arguments (`username = profile.get("username")` after `profile = load(user.id)` and `user =
    update.effective_user`, `update` a parameter), through at most three assignments: like a
    parameter, evidence that the value changes between calls (how often its name says)."""
    function = enclosing_function(resolver, name.lineno, name.lineno)
    if function is None:
        return None
    parameters = set(_parameters(function)) - {"self", "cls"}  # an object's attributes: often its settings
    names, seen = [(name.id, resolver.offset(name.lineno, name.col_offset))], set()
    for _ in range(3):
        reads = []
        for local, at in names:
            if local in seen:
                continue
            seen.add(local)
            for value in resolver.scopes.assigned(local, at):
                read = [n for n in ast.walk(value) if isinstance(n, ast.Name)]
                if any(n.id in parameters for n in read):
                    return Variable("value", None, (), value.lineno,
                                    f"computed in {function.name}() from its arguments, at each call")
                reads += [(n.id, resolver.offset(n.lineno, n.col_offset)) for n in read]
        names = reads
    return None


def _parameter(function) -> Variable:
    return Variable("value", None, (), function.lineno, f"a parameter of {function.name}(), filled at each call")


def enclosing_function(resolver, first: int, last: int, parameter: str | None = None):
    """The innermost function of the module whose lines hold lines `first` to `last` (and that
    takes `parameter`, when given), or None."""
    best = None
    for node in module_index(resolver)[0]:
        if node.lineno <= first and last <= (node.end_lineno or 0) and (best is None or node.lineno > best.lineno) \
                and (parameter is None or parameter in _parameters(node)):
            best = node
    return best


def _parameters(function) -> list[str]:
    return [a.arg for a in function.args.posonlyargs + function.args.args + function.args.kwonlyargs]
