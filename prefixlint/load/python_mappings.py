"""A LangChain template's fields filled by the mapping a chain is run with (issue 19 item 5):
`prompt = ChatPromptTemplate.from_messages([("system", "Today is {today}. ...")])`, then
`chain.invoke({"today": datetime.now().strftime("%Y-%m-%d"), "question": q})` in the module or
in a module importing from it. The mapping's value is the field's fill site: a clock, the
conversation printed as text, or a constant (`fill_sites`).

A mapping counts for a template when its keys name at least two of the template's fields (or
its one field): a chain's input names its prompt's variables. Of the mappings that fit best,
every one that names a field must say what fills it, or the field keeps what its name says.
A `.partial(time=...)` of the prompt itself fills its field first: a value evaluated where the
call runs (at module level, once per process), or a clock function LangChain calls on every
format (`partial(time=datetime.now)`: per request).
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from prefixlint.load import fill_sites as fills
from prefixlint.load.template import Template, Variable

#: Methods that run a chain or a prompt with a mapping of its variables.
MAPPING_METHODS = frozenset({"invoke", "ainvoke", "run", "arun", "stream", "astream", "predict", "batch",
                             "format_messages", "format_prompt"})
MAX_MODULES = 50


def mapping_fills(template: Template, resolver) -> Template:
    """`template` with the fields a run's mapping fills given that mapping's evidence."""
    open_fields = {name for text in getattr(template, "placeholder_texts", {}).values()
                   if (name := text.strip("{} ")).isidentifier()
                   and (template.variables.get(name) is None or template.variables[name].evidence is None)}
    if not open_fields:
        return template
    template = _partially_filled(template, resolver, open_fields)
    open_fields -= {name for name, v in template.variables.items() if v.evidence}
    mappings = [(overlap, site) for site in _mappings(resolver)
                if (overlap := len(open_fields & site[2].keys())) >= min(2, len(open_fields))]
    if not mappings:
        return template
    best = max(overlap for overlap, _ in mappings)
    sites = [site for overlap, site in mappings if overlap == best]
    variables = dict(template.variables)
    for name in sorted(open_fields):
        said = [_value(other, shown, keys[name]) for other, shown, keys in sites if name in keys]
        found = [v for v in said if v is not None]
        if found and len(found) == len(said):
            variables[name] = replace(next((v for v in found if v.kind != "stable"), found[0]), name=name)
    return replace(template, variables=variables)


def _partially_filled(template: Template, resolver, fields: set[str]) -> Template:
    """The fields a `.partial(time=...)` of this very prompt fills (`ChatPromptTemplate
    .from_messages([...]).partial(time=datetime.now())`, or of the name bound to it): a value,
    evaluated where the call runs (at module level: once per process), or a function LangChain
    calls on every format (`partial(time=datetime.now)`: that clock, per request)."""
    start = min((m.start for m in template.messages), default=-1)
    variables = dict(template.variables)
    for call in fills.calls_named(resolver, "partial"):
        receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
        if isinstance(receiver, ast.Name):
            bound = resolver.scopes.assigned(receiver.id, resolver.offset(call.lineno, call.col_offset), module=True)
            receiver = next((v for v in reversed(bound) if v.lineno <= call.lineno), None)
        if not isinstance(receiver, ast.Call) or not (resolver.span(receiver)[0] <= start < resolver.span(receiver)[1]):
            continue
        for keyword in call.keywords:
            if keyword.arg in fields:
                found = _called_each_time(resolver, keyword.value) or _value(resolver, Path(resolver.path or "prompt.py")
                                                                             .name, keyword.value)
                if found is not None:
                    variables[keyword.arg] = replace(found, name=keyword.arg)
    return replace(template, variables=variables)


def _called_each_time(resolver, node: ast.expr) -> Variable | None:
    """A clock function given uncalled (`datetime.now`): called on every format, per request."""
    from prefixlint.load.computed import clock_call, clock_variable
    from prefixlint.load.python_walk import dotted

    if not isinstance(node, (ast.Name, ast.Attribute)) or (found := clock_call(dotted(node))) is None:
        return None
    shown = f"{Path(resolver.path or 'prompt.py').name}:{node.lineno}"
    variable = clock_variable(*found)
    return Variable(variable.name, variable.kind, variable.samples, None,
                    f"{dotted(node)}, called by .partial() on every format ({shown})")


def _value(resolver, shown: str, node: ast.expr) -> Variable | None:
    variable = resolver.clock(node) or fills.conversation_fill(resolver, node) or fills.stable_fill(resolver, node)
    if variable is None:
        return None
    line = variable.line or node.lineno
    return Variable(variable.name, variable.kind, variable.samples, None,
                    f"{variable.evidence} ({shown}:{line}, a mapping of its fields)")


def _mappings(resolver) -> list[tuple[object, str, dict[str, ast.expr]]]:
    """(resolver, file shown, key -> value) of every mapping a run call of the module, or of a
    module importing from it, passes (a dict literal, or a name bound to one)."""
    known = getattr(resolver, "_run_mappings", None)  # once per module: each of its prompts asks
    if known is not None:
        return known
    shown = Path(resolver.path or "prompt.py").name
    found = [(resolver, shown, keys) for keys in _module_mappings(resolver)]
    for other, where in _importers(resolver):
        found += [(other, where, keys) for keys in _module_mappings(other)]
    resolver._run_mappings = found
    return found


def _module_mappings(resolver) -> list[dict[str, ast.expr]]:
    found = []
    for call in sorted((c for m in MAPPING_METHODS for c in fills.calls_named(resolver, m)), key=lambda c: c.lineno):
        if not (isinstance(call.func, ast.Attribute) and call.args):
            continue
        mapping = call.args[0]
        if isinstance(mapping, ast.Name):
            bound = resolver.scopes.assigned(mapping.id, resolver.offset(call.lineno, call.col_offset), module=True)
            mapping = next((v for v in reversed(bound) if v.lineno <= call.lineno), mapping)
        if isinstance(mapping, ast.Dict) and None not in mapping.keys:
            keys = {k.value: v for k, v in zip(mapping.keys, mapping.values)
                    if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            if len(keys) == len(mapping.keys):
                found.append(keys)
    return found


def _importers(resolver) -> list[tuple[object, str]]:
    """(Resolver, file relative to the root) of the modules that import from the module and run a
    chain: at most MAX_MODULES."""
    from prefixlint.load.python_callers import repository_calls
    from prefixlint.load.python_index import module_place, module_tree
    from prefixlint.load.python_modules import import_name, imports_name, module_resolver

    place = module_place(resolver.path) if resolver.path else None
    if place is None:
        return []
    module, root = place
    index = repository_calls(root)
    candidates = dict.fromkeys(m for method in sorted(MAPPING_METHODS) for m in index.get(method, ()) if m != module)
    found = []
    for other in list(candidates)[:MAX_MODULES]:
        tree = module_tree(other)
        if tree is not None and imports_name(tree, import_name(module), None):
            found.append((module_resolver(other), other.relative_to(root).as_posix()))
    return found
