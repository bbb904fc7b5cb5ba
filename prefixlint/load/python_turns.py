"""How the code sends a prompt, read from the code that uses it (issue 19 items 4 and 7).

`sent_as`: which turn a prompt a function returns is sent as, by the code that calls the function:
`{"role": "user", "content": build_prompt(...)}`, `prompt = build_prompt(...)` then `{"role":
"user", "content": prompt}` or `HumanMessage(prompt)`, or `ask(client, prompt)` where `ask` puts
that parameter in such a message. Read in the function's module and the modules beside it that
mention its name (`python_modules`); the first turn found is the answer.

`sent_alone`: whether a system prompt (a constant, or a function returning it) is sent as the
whole request, one user message after it and no conversation: every place of the repository
that uses it builds such a request (`messages=[{"role": "system", "content": SYSTEM}, {"role":
"user", "content": question}]` passed as it is, `system=SYSTEM, messages=[{"role": "user", ...}]`,
`[SystemMessage(SYSTEM), HumanMessage(question)]`), directly or through a name it is assigned
to. One place that adds more (`*history`, `+ history`, a list appended to, a user message
built from a history), or uses it where this cannot be seen (a helper, an attribute, a
configuration field), and the prompt is served as a chat server serves a system prompt: with
the conversation after it (`check.served`).
"""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

from prefixlint.load.python_walk import SYSTEM_KEYWORDS, dotted, walked
from prefixlint.load.sends import first_site_if_all_alone, reads_a_conversation
from prefixlint.load.source_prompts import SourceTemplate

_MESSAGE_CLASSES = {"HumanMessage": "user", "SystemMessage": "system"}
_ROLES = {"user": "user", "human": "user", "system": "system", "developer": "system"}


def sent_as(path: str | None, tree: ast.Module, function: str) -> str | None:
    """"user" / "system" when a call of `function` reaches a message of that role, else None."""
    role = _in_module(tree, function)
    if role is None and path is not None:
        from prefixlint.load.python_modules import beside

        for _, other in beside(path, function):
            role = _in_module(other, function)
            if role is not None:
                break
    return role


def _in_module(tree: ast.Module, function: str) -> str | None:
    parents, defs, calls = _index(tree)
    for call in calls.get(function, ()):
        role = _carried(call, parents, defs, 0)
        if role is not None:
            return role
    return None


def _index(tree: ast.Module) -> tuple[dict, dict, dict[str, list[ast.Call]]]:
    """A module's parent links, first function of each name and calls by the last part of their
    name, built once per tree (kept on it, as `walked` is): a module of n prompt functions asks
    once for each (was n walks)."""
    found = getattr(tree, "_prefixlint_turns", None)
    if found is None:
        nodes, parents = walked(tree)
        defs: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        calls: dict[str, list[ast.Call]] = {}
        for node in nodes:  # breadth first: the calls in the order they were searched before
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                defs.setdefault(node.name, node)
            elif isinstance(node, ast.Call):
                calls.setdefault(dotted(node.func).rsplit(".", 1)[-1], []).append(node)
        found = tree._prefixlint_turns = (parents, defs, calls)  # type: ignore[attr-defined]
    return found


def calls_named(tree: ast.Module, function: str) -> list[ast.Call]:
    """The calls of `function` (by the last part of their name) in a module."""
    return list(_index(tree)[2].get(function, ()))


def _carried(value: ast.expr, parents: dict, defs: dict, depth: int) -> str | None:
    """The role of the message `value` ends up in: directly, through the name it is assigned to
    in its function, or through the parameter of a module function it is passed to."""
    role = message_role(value, parents)
    if role is not None or depth > 2:
        return role
    parent = parents.get(id(value))
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name):
        scope: ast.AST | None = parent
        while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
            scope = parents.get(id(scope))
        target = parent.targets[0]
        for use in (n for n in ast.walk(scope or parent) if isinstance(n, ast.Name) and n.id == target.id and n is not target):
            role = _carried(use, parents, defs, depth + 1)
            if role is not None:
                return role
    if isinstance(parent, ast.Call) and value in parent.args:
        called = defs.get(dotted(parent.func).rsplit(".", 1)[-1])
        if called is not None:
            index = parent.args.index(value)
            params = [a.arg for a in called.args.posonlyargs + called.args.args]
            shift = 1 if params[:1] in (["self"], ["cls"]) and isinstance(parent.func, ast.Attribute) else 0
            if index + shift < len(params):
                param = params[index + shift]
                for use in (n for n in ast.walk(called) if isinstance(n, ast.Name) and n.id == param):
                    role = _carried(use, parents, defs, depth + 1)
                    if role is not None:
                        return role
    return None


def message_role(value: ast.expr, parents: dict) -> str | None:
    """The role of the message whose content `value` is: `{"role": "user", "content": value}`,
    `HumanMessage(value)` / `HumanMessage(content=value)`, `("human", value)`."""
    parent = parents.get(id(value))
    if isinstance(parent, ast.keyword):
        parent = parents.get(id(parent)) if parent.arg == "content" else None
    return _role(parent) if parent is not None and _content(parent) is value else None


_TEXT_METHODS = frozenset({"format", "strip", "render", "substitute", "safe_substitute", "replace"})


def as_sent(template: SourceTemplate, tree: ast.Module, path: str | None) -> SourceTemplate:
    """A system prompt on its own (a constant, a function) marked `sent_alone` when the code
    sends it with one user message and no conversation: no history is assumed after it."""
    if not (template.prompt_name and template.messages and all(m.role == "system" for m in template.messages)):
        return template
    alone = sent_alone(path, tree, template.prompt_name.rsplit(".", 1)[-1])
    return replace(template, sent_alone=alone) if alone else template


def sent_alone(path: str | None, tree: ast.Module, name: str, depth: int = 0) -> str | None:
    """`"agent.py:42"`, where the code sends the prompt, when every use of the system prompt
    `name` in its module and the repository's modules that import from it and mention it sends
    it as a whole request of two messages (a function of the module returning it: every use of
    that function); None when one use does not, or none is found."""
    from prefixlint.load.python_modules import beside, import_name

    stem = import_name(Path(path or "x.py"))
    others = [(shown, t) for shown, t in (beside(path, name, package=False) if path else ()) if _imports(t, stem)]
    def verdicts(module: ast.Module) -> list[int | str | None]:
        parents, _, _ = _index(module)
        uses = [node for node in walked(module)[0] if isinstance(node, (ast.Name, ast.Attribute))
                and isinstance(node.ctx, ast.Load) and (node.id if isinstance(node, ast.Name) else node.attr) == name]
        return [single_turn(node, parents, 0) for node in sorted(uses, key=lambda n: (n.lineno, n.col_offset))]

    def follow(function: str) -> str | None:  # a function of the module returns it: where its callers send it
        return sent_alone(path, tree, function, depth + 1) if depth < 2 and function != name else None

    shown = (path or "").replace("\\", "/").rsplit("/", 1)[-1]
    return first_site_if_all_alone([(shown, True, verdicts(tree)), *((s, False, verdicts(t)) for s, t in others)], follow)


def _imports(tree: ast.Module, stem: str) -> bool:
    """Whether a module imports from the module `stem` (`from app.prompts import X`, `import prompts`)."""
    return any(isinstance(node, ast.ImportFrom) and (stem in (node.module or "").split(".")
                                                     or any(a.name == stem for a in node.names))
               or isinstance(node, ast.Import) and any(stem in a.name.split(".") for a in node.names)
               for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom)))


def single_turn(value: ast.AST, parents: dict, depth: int) -> int | str | None:
    """The line of the request `value` (the system prompt, or a text made of it) is sent in
    when that request is one system and one user message; the name of the function that
    returns it; else None."""
    parent = parents.get(id(value))
    if isinstance(parent, ast.Return):
        function = function_of(parent, parents)
        return function.name if function is not None else None
    if isinstance(parent, ast.Attribute) and parent.attr in _TEXT_METHODS:  # SYSTEM.format(...), SYSTEM.strip()
        call = parents.get(id(parent))
        return single_turn(call, parents, depth) if isinstance(call, ast.Call) and call.func is parent else None
    if isinstance(parent, ast.Call) and parent.func is value:  # build_system_prompt(...)
        return single_turn(parent, parents, depth)
    if isinstance(parent, ast.keyword):
        holder = parents.get(id(parent))
        if parent.arg in SYSTEM_KEYWORDS and isinstance(holder, ast.Call):  # system=, messages=[one user turn]
            messages = next((k.value for k in holder.keywords if k.arg == "messages"), None)
            return holder.lineno if _user_turns(messages, parents) == 1 else None
        if parent.arg == "content" and isinstance(holder, ast.Call) and _role(holder) == "system":
            return _in_request(holder, parents)
        return None
    if isinstance(parent, ast.Call) and value in parent.args and _role(parent) == "system":  # SystemMessage(SYSTEM)
        return _in_request(parent, parents)
    if isinstance(parent, (ast.Dict, ast.Tuple)) and _role(parent) == "system" and _content(parent) is value:
        return _in_request(parent, parents)  # {"role": "system", "content": SYSTEM}, ("system", SYSTEM)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name) \
            and depth < 2:  # system_prompt = build_system_prompt(...); then sent
        uses = name_reads(parent, parent.targets[0].id, parents)
        lines = [single_turn(use, parents, depth + 1) for use in uses]
        return lines[0] if lines and None not in lines else None
    return None


def function_of(node: ast.AST, parents: dict) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    found: ast.AST | None = node
    while found is not None and not isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)):
        found = parents.get(id(found))
    return found


def _in_request(message: ast.AST, parents: dict) -> int | None:
    """The line where the list holding the system `message` is sent, when that list is
    `[message, one user message]` and is sent as it is (an argument, or a name never added to)."""
    listed = parents.get(id(message))
    if not isinstance(listed, ast.List) or len(listed.elts) != 2 or listed.elts[0] is not message \
            or _user_turns(ast.List(elts=listed.elts[1:]), parents) != 1:
        return None
    return _sent_as_is(listed, parents)


def _sent_as_is(listed: ast.List, parents: dict) -> int | None:
    holder = parents.get(id(listed))
    if isinstance(holder, ast.keyword) and holder.arg == "messages":
        holder = parents.get(id(holder))
    if isinstance(holder, ast.Call) and (listed in holder.args or any(k.value is listed for k in holder.keywords)):
        return holder.lineno
    if isinstance(holder, ast.Assign) and len(holder.targets) == 1 and isinstance(holder.targets[0], ast.Name):
        uses = name_reads(holder, holder.targets[0].id, parents)
        sent = [parents.get(id(use)) for use in uses]
        if uses and all(isinstance(s, ast.Call) and use in s.args or isinstance(s, ast.keyword) and s.arg == "messages"
                        for use, s in zip(uses, sent)):
            return holder.lineno
    return None


def _user_turns(messages: ast.AST | None, parents: dict) -> int | None:
    """How many user messages a literal list of messages holds when it holds only those and
    none is built from a conversation; None otherwise (a name, a starred history, ...)."""
    if not isinstance(messages, ast.List):
        return None
    for message in messages.elts:
        content = _content(message)
        if _role(message) != "user" or content is None or _conversational(content):
            return None
    return len(messages.elts)


def _conversational(content: ast.AST) -> bool:
    """Whether a message's content reads a conversation (`chat_history`, `"{history}\n{question}"`)."""
    nodes = list(ast.walk(content))
    return reads_a_conversation([n.id if isinstance(n, ast.Name) else n.attr for n in nodes
                                 if isinstance(n, (ast.Name, ast.Attribute))],
                                [n.value for n in nodes if isinstance(n, ast.Constant) and isinstance(n.value, str)])


def _role(message: ast.AST) -> str | None:
    role: ast.AST | None = None
    if isinstance(message, ast.Call):  # HumanMessage(...), or a message object `ChatMessage(role="user", ...)`
        role = next((k.value for k in message.keywords if k.arg == "role"), None)
        if role is None:
            return _MESSAGE_CLASSES.get(dotted(message.func).rsplit(".", 1)[-1])
    if isinstance(message, ast.Tuple) and len(message.elts) == 2:  # LangChain's ("human", "{question}")
        role = message.elts[0]
    elif isinstance(message, ast.Dict):
        role = dict(_entries(message)).get("role")
    return _ROLES.get(role.value) if isinstance(role, ast.Constant) and isinstance(role.value, str) else None


def _content(message: ast.AST) -> ast.AST | None:
    if isinstance(message, ast.Tuple) and len(message.elts) == 2:
        return message.elts[1]
    if isinstance(message, ast.Call):
        return message.args[0] if message.args else next((k.value for k in message.keywords if k.arg == "content"), None)
    return dict(_entries(message)).get("content") if isinstance(message, ast.Dict) else None


def _entries(message: ast.Dict) -> list[tuple[str, ast.AST]]:
    return [(k.value, v) for k, v in zip(message.keys, message.values)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)]


def name_reads(binding: ast.Assign, name: str, parents: dict) -> list[ast.Name]:
    """The reads of `name` after `binding` in its function (or module); none when the name is
    also added to there (`name += ...`, `name.append(...)`, bound again)."""
    scope: ast.AST | None = binding
    while scope is not None and not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        scope = parents.get(id(scope))
    names = [n for n in ast.walk(scope or binding) if isinstance(n, ast.Name) and n.id == name
             and getattr(n, "lineno", 0) >= binding.lineno and n is not binding.targets[0]]
    if any(not isinstance(n.ctx, ast.Load) or _added_to(n, parents) for n in names):
        return []
    return names


#: Methods that add to a list, a dict or a set in place (`messages.append(...)`).
_ADDING = frozenset({"append", "extend", "insert", "update", "add", "setdefault", "__setitem__", "__iadd__"})


def _added_to(name: ast.Name, parents: dict) -> bool:
    """Whether the read is an access to the value's own contents: a method adding to it in place,
    an attribute set, or an item set (`template.render(...)`, `text.strip()` are reads)."""
    parent = parents.get(id(name))
    if isinstance(parent, ast.Attribute):
        return parent.attr in _ADDING or not isinstance(parent.ctx, ast.Load)
    return isinstance(parent, ast.Subscript) and not isinstance(parent.ctx, ast.Load)
