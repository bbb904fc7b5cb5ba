"""What fills a placeholder in Python source, by its fill site (issue 19 item 5).

A value read from the configuration, the environment or the command line (`os.environ[...]`,
`os.getenv(...)`, `settings.X`, `config.x`, `args.name`) or written as a literal is the same on
every request: a deployment constant, stable. What a function's arguments fill (its callers,
its defaults, the locals computed from them) is `python_arguments`. Each answer carries its
evidence (`filled by os.getenv("BOT_NAME") (bot.py:12)`).
"""

from __future__ import annotations

import ast
from typing import TypeGuard

from prefixlint.load.classify import name_words
from prefixlint.load.computed import filled_by
from prefixlint.load.python_imports import imported_value
from prefixlint.load.python_walk import SYSTEM_KEYWORDS, USER_KEYWORDS, walked
from prefixlint.load.template import Variable

#: The conversation's own state: LangGraph's `state`, a web or Streamlit session, a thread.
STATE_ROOTS = frozenset({"state", "session", "session_state", "conversation", "thread"})
#: First names of values a deployment sets once: the environment, settings, CLI options.
CONFIG_ROOTS = frozenset({"os", "environ", "getenv", "settings", "config", "conf", "cfg", "args", "options", "opts",
                          "env", "CONFIG", "SETTINGS"})


def stable_fill(resolver, node: ast.expr, depth: int = 0) -> Variable | None:
    """A stable variable with its evidence when `node` reads configuration or is a literal, or
    chooses between such values (`config.NAME if config.NAME else "the user"`, `NAME or "you"`),
    also through the local names it reads when every assignment of them is one."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float)):
        value = str(node.value)
    elif _config_read(node):
        value = resolver.source[slice(*resolver.span(node))]
    elif depth < 3 and isinstance(node, (ast.IfExp, ast.BoolOp)):
        choices = [node.body, node.orelse] if isinstance(node, ast.IfExp) else node.values
        found = [stable_fill(resolver, choice, depth + 1) for choice in choices]
        return found[0] if all(found) else None
    elif depth < 3 and isinstance(node, ast.Name) and \
            (values := resolver.scopes.assigned(node.id, resolver.offset(node.lineno, node.col_offset))):
        if len(values) != resolver.stores.get(node.id, 0):  # also bound by `+=`, a loop, `with`, ...
            return None
        found = [stable_fill(resolver, value, depth + 1) for value in values]
        return found[-1] if all(found) else None
    else:  # a value imported from a module of the repository: set once, at import
        return imported_value(resolver, node, "value") if isinstance(node, (ast.Name, ast.Attribute)) else None
    return deployment_constant(value, resolver.source[slice(*resolver.span(node))], node.lineno)


def deployment_constant(value: str, shown: str, line: int) -> Variable:
    """A value the deployment sets once (`shown` at `line`, in any source language): stable, with
    its evidence."""
    variable = filled_by(Variable("value", "per_deployment", (value,)), shown, line, False)
    return Variable(variable.name, "stable", (value,), variable.line,
                    f"{variable.evidence}: the same on every request")


def attribute_fill(resolver, node: ast.expr) -> Variable | None:
    """A value computed from an attribute of the object (`int(self.battery_soc * 100)`) that a
    method of its class other than `__init__` updates from itself (`self.battery_soc -= used`,
    `self.turn = self.turn + 1`): the object's state evolves while it lives, so the value changes
    between the requests it builds. An attribute a method only sets (`self.persona = persona`)
    shows no such thing."""
    reads = {n.attr for n in ast.walk(node) if _self_attribute(n) and isinstance(n.ctx, ast.Load)}
    owner = next((c for c in ast.walk(resolver.tree) if isinstance(c, ast.ClassDef)
                  and c.lineno <= node.lineno <= (c.end_lineno or c.lineno)), None) if reads else None
    for method in (owner.body if owner is not None else ()):
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) and method.name != "__init__":
            for target in _updated_from_itself(method):
                if target.attr in reads:
                    return Variable("value", "per_request", (), target.lineno,
                                    f"self.{target.attr}, which {method.name}() changes")
    return None


def _self_attribute(node: ast.AST) -> TypeGuard[ast.Attribute]:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def _updated_from_itself(method: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Attribute]:
    """The `self.x` the method updates from its own value: `self.x -= n`, `self.x = max(0, self.x)`."""
    found: list[ast.Attribute] = []
    for statement in ast.walk(method):
        if isinstance(statement, ast.AugAssign) and _self_attribute(statement.target):
            found.append(statement.target)
        elif isinstance(statement, ast.Assign):
            found += [t for t in statement.targets if _self_attribute(t)
                      and any(_self_attribute(n) and n.attr == t.attr for n in ast.walk(statement.value))]
    return found


def state_fill(resolver, node: ast.expr, name: str) -> Variable | None:
    """A value read from the conversation's own state (`state.project.path`, `session["plan"]`),
    directly or through a local variable its function assigns from it: the same on every turn of
    a conversation, another in the next one (per conversation). Only for a placeholder `name`
    that says nothing of its own (`{question}` read from the state stays request content)."""
    from prefixlint.load.classify import builtin_catalog, classify_variable

    read = _state_read(node)
    if read is None and isinstance(node, ast.Name):
        values = resolver.scopes.assigned(node.id, resolver.offset(node.lineno, node.col_offset))
        read = next(filter(None, map(_state_read, values)), None)
    if read is None or classify_variable(builtin_catalog(), name, None).cls is not None:
        return None
    shown = " ".join(resolver.source[slice(*resolver.span(read))].split())
    return Variable("value", "per_user", (), getattr(read, "lineno", None), f"filled by {shown[:60]}, the conversation's state")


#: Last words of a name holding the conversation's turns, and calls that print turns as text
#: (LangChain's `get_buffer_string(messages)`, a memory's `load_memory_variables(...)`).
_TURN_WORDS = frozenset({"history", "messages", "turns", "conversation", "dialogue", "dialog", "memory"})
_TURN_CALLS = frozenset({"get_buffer_string", "load_memory_variables", "buffer_as_str", "format_chat_history"})


def conversation_fill(resolver, node: ast.expr) -> Variable | None:
    """The conversation so far printed as text, by what fills it: a join over the turns
    (`"\n".join(f"{m.role}: {m.content}" for m in history)`), `get_buffer_string(messages)`, a
    memory's buffer (`memory.load_memory_variables({})["history"]`, `memory.buffer`), directly or
    through a local name of the function: earlier turns plus one more on every turn (`appended`,
    measured as `rules/signals.yaml`'s `generate: conversation`)."""
    values = [node]
    if isinstance(node, ast.Name):
        values += resolver.scopes.assigned(node.id, resolver.offset(node.lineno, node.col_offset))
    for value in values:
        inner = value.value if isinstance(value, ast.Subscript) else value
        call = inner if isinstance(inner, ast.Call) else None
        turns = False
        if call is not None and _called_name(call.func) in _TURN_CALLS:
            turns = True
        elif call is not None and _called_name(call.func) == "join" and call.args and \
                isinstance(call.args[0], (ast.GeneratorExp, ast.ListComp)):
            source = call.args[0].generators[0].iter
            source = source.value if isinstance(source, ast.Subscript) else source  # `history[-10:]`
            turns = (name_words(_called_name(source) or "") or [""])[-1] in _TURN_WORDS
        elif isinstance(inner, ast.Attribute) and inner.attr in ("buffer", "buffer_as_str", "chat_memory"):
            turns = "memory" in (_called_name(inner.value) or "").lower()
        if turns:
            shown = " ".join(resolver.source[slice(*resolver.span(value))].split())
            return Variable("value", "appended", (), value.lineno,
                            f"filled by {shown[:60]}: the conversation so far, one more turn each request")
    return None


def _state_read(node: ast.AST) -> ast.AST | None:
    """`node` when it reads a field of the state (`state.x`, `state["x"]`, `state.get("x")`)."""
    inner, depth = node, 0
    while isinstance(inner, (ast.Attribute, ast.Subscript, ast.Call)):
        inner = inner.func if isinstance(inner, ast.Call) else inner.value
        depth += 1
    if isinstance(inner, ast.Attribute) and inner.attr in STATE_ROOTS and isinstance(inner.value, ast.Name) \
            and inner.value.id == "self":
        return node if depth else None  # `self.state.x`
    return node if depth and isinstance(inner, ast.Name) and inner.id in STATE_ROOTS else None


def _config_read(node: ast.AST) -> bool:
    """`settings.X`, `os.environ["X"]`, `config.get("x")`, also through an object's configuration
    (`self.deck_config.get("level")`, `app.settings.MODEL`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        if isinstance(node, ast.Attribute) and node.attr.lower().endswith(_CONFIG_ATTRIBUTES) \
                and not isinstance(node.ctx, ast.Store) and "user" not in node.attr.lower():
            return True
        node = node.func if isinstance(node, ast.Call) else node.value
    return isinstance(node, ast.Name) and node.id in CONFIG_ROOTS


#: The last word of an attribute that holds configuration (`self.deck_config`, `app.settings`).
_CONFIG_ATTRIBUTES = ("config", "settings", "cfg", "options")


def _called_name(func: ast.AST) -> str | None:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def calls_named(resolver, name: str) -> list[ast.Call]:
    """The module's calls of `name` (`f(...)`, `obj.f(...)`), in order."""
    return module_index(resolver)[1].get(name, [])


def module_index(resolver):
    """The module's functions and its calls by called name, built once per module (linear cost)."""
    index = getattr(resolver, "_fill_index", None)
    if index is None:
        functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        calls: dict[str | None, list[ast.Call]] = {}
        for node in walked(resolver.tree)[0]:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions.append(node)
            elif isinstance(node, ast.Call):
                calls.setdefault(_called_name(node.func), []).append(node)
        index = resolver._fill_index = (functions, calls)
    return index


#: Calls whose result is text the resolver reads (a literal list joined, a dedented literal).
_TEXT_CALLS = frozenset({"dedent", "strip", "lstrip", "rstrip", "format", "Field"})


def computed_here(resolver, name: str, at: int) -> bool:
    """Whether the function whose local `name` (read at file offset `at`) is assigns it a value it
    computes (a call, a join over a parameter, a subscript), not only text literals: the name is
    then a value of each call (`chunk_text = "\\n".join(...)` or, when there are none, `"No
    chunks."`), not the words of one of its branches (`python_scopes`: none for a module name)."""
    return any(not _text_like(value) for value in resolver.scopes.assigned(name, at))


def assigned_before(resolver, name: str, at: int) -> list[ast.expr]:
    """The values the function whose local `name` (read at `at`) is assigns it up to that line."""
    line = resolver.line(at)
    return [value for value in resolver.scopes.assigned(name, at) if value.lineno <= line]


def _text_like(value: ast.expr) -> bool:
    if isinstance(value, ast.Constant):
        return isinstance(value.value, str)
    if isinstance(value, (ast.JoinedStr, ast.BinOp)):
        return True
    if isinstance(value, ast.Call) and isinstance(value.func, (ast.Attribute, ast.Name)):
        method = _called_name(value.func)
        first = value.args[0] if value.args else None
        return method in _TEXT_CALLS or method == "join" and isinstance(first, (ast.List, ast.Tuple))
    return False


#: A call that sends a request to a model: a request method (`client.chat.completions.create`,
#: `model.generate_content`, litellm's `completion`) given the prompt by keyword (`messages=` ...);
#: an object built with `messages=[]` (a group chat, an agent) sends nothing.
_REQUEST_KEYWORDS = frozenset({*SYSTEM_KEYWORDS, "messages", *USER_KEYWORDS, "contents"})  # Gemini: `contents`
_REQUEST_METHODS = frozenset({"create", "generate_content", "generate", "invoke", "chat", "complete", "completion",
                              "stream", "send_message", "predict"})


def sends_at_top_level(tree: ast.Module) -> bool:
    """Whether the module's own top level (outside functions, classes and loops: a script) calls
    a model (`client.chat.completions.create(messages=...)`): it then runs once per request, and
    so do its module-level values; a loop at top level serves many requests from one process."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While)):
            continue
        if isinstance(node, (ast.If, ast.With, ast.AsyncWith, ast.Try)):
            stack += [*node.body, *getattr(node, "orelse", []), *getattr(node, "finalbody", []),
                      *(s for h in getattr(node, "handlers", []) for s in h.body)]
            continue
        if any(isinstance(n, ast.Call) and _called_name(n.func) in _REQUEST_METHODS
               and any(k.arg in _REQUEST_KEYWORDS for k in n.keywords) for n in ast.walk(node)):
            return True
    return False
