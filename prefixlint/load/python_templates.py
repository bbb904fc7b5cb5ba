"""Template objects in Python source: `jinja2.Template("...{{ x }}...")`,
`Environment(...).from_string(...)` and `string.Template("...$x...")`.

A Jinja template written in a Python string has `{{ x }}` placeholders (not str.format's
escaped braces) and is filled where it is rendered: `.render(x=...)` is its fill site, as
`.format(x=...)` is a format string's. A `string.Template` has `$x` / `${x}` fields, filled by
`.substitute(...)` / `.safe_substitute(...)`. Which `Template` a module means is read from its
imports (`from jinja2 import Template`, `import string`), else from the text itself (`{{` or
`{%`: Jinja; `$name`: string.Template).
"""

from __future__ import annotations

import ast
import re

JINJA = "jinja"
DOLLAR = "dollar"
#: What fills each kind of template object, by method name.
FILL_METHODS = {JINJA: ("render",), DOLLAR: ("substitute", "safe_substitute")}
_DOLLAR_FIELD = re.compile(r"\$(?:\{[A-Za-z_]\w*\}|[A-Za-z_]\w*)")


def template_imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> "jinja" / "dollar" for the module's imports of a template class or module
    (`from jinja2 import Template as T`, `import jinja2`, `from string import Template`)."""
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            kind = JINJA if node.module.split(".")[0] == "jinja2" else DOLLAR if node.module == "string" else ""
            for alias in node.names if kind else ():
                found[alias.asname or alias.name] = kind
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "jinja2":
                    found[alias.asname or alias.name] = JINJA
                elif alias.name == "string":
                    found[alias.asname or alias.name] = DOLLAR
    return found


def template_kind(imports: dict[str, str], call: ast.AST | None) -> str | None:
    """"jinja" / "dollar" when `call` makes a template object of its first argument, else None."""
    if not isinstance(call, ast.Call) or not call.args:
        return None
    func = call.func
    last = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if last == "from_string":  # a Jinja Environment's (the only `from_string` taking a template text)
        return JINJA
    if last != "Template":
        return None
    if isinstance(func, ast.Attribute):
        root = func.value.id if isinstance(func.value, ast.Name) else None
        kind = imports.get(root) if root else None
        if kind:
            return kind
    elif isinstance(func, ast.Name) and func.id in imports:
        return imports[func.id]
    return _by_text(call.args[0])


def _by_text(node: ast.AST) -> str | None:
    texts = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    if any("{{" in t or "{%" in t for t in texts):
        return JINJA
    if any(_DOLLAR_FIELD.search(t) for t in texts):
        return DOLLAR
    return None


def fill_arguments(call: ast.Call) -> ast.AST:
    """What a `.render(...)` / `.substitute(...)` call fills the fields with: its keywords, or
    the mapping passed as its one positional argument (`render({"date": today})`)."""
    if not call.keywords and len(call.args) == 1 and isinstance(call.args[0], ast.Dict):
        return call.args[0]
    return call
