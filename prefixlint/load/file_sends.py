"""How the code sends a prompt file (issue 19): the request its text becomes, read in the Python
modules of the repository that name the file.

From the string naming the file (`"user_turn.j2"`, `read_resource_file("search_prompt.md")`) the
text is followed outward (from the reads of the module constant holding the name, when it is one:
`_FILENAME = "system.j2"`): through the calls that read and fill it (`open(path).read()`,
`env.get_template(name).render(...)`, a helper `render("x.j2", **values)`), the name or `self`
attribute it is bound to, the function returning it (its callers in the module and in the
modules importing it), to where it is sent:
- the content of a user message (`{"role": "user", "content": text}`, `HumanMessage(text)`): the
  file is the user's turn;
- a whole one-turn prompt: Haystack's `PromptBuilder(template=text)`, LangChain's
  `PromptTemplate(template=text)` / `PromptTemplate.from_template(text)`, a `prompt=` or
  `input=` or Gemini's `contents=` argument;
- a system message, or a `system=` / `system_prompt=` / `instructions=` argument, sent with one user
  message (a dict, `HumanMessage`, or a message object with `role="user"`) and no conversation
  (`python_turns`).
When every place that names the file sends it one of these ways, and the file reads no
conversation (`{{ history }}`), no conversation follows a value in it: it costs only the stable
text after it in that request, which `min-tail-tokens` weighs, as for a prompt program source
sends alone (`rules.measured.Measured.sent_alone`). A place that sends it another way (a system
prompt with the conversation after it), or that cannot be followed (a dictionary, a string
built around it, a call elsewhere), and the file is measured as before.
"""

from __future__ import annotations

import ast
from pathlib import Path

from prefixlint.load.python_walk import SYSTEM_KEYWORDS, USER_KEYWORDS, dotted, walked

#: Classes whose `template` is a whole one-turn prompt (Haystack, LangChain's completion template).
_PROMPT_CLASSES = frozenset({"PromptBuilder", "PromptTemplate"})
MAX_DEPTH = 4
#: Keywords that take the user's whole prompt: completions' `prompt`, an agent's `input`, Gemini's `contents`.
_USER_KEYWORDS = (*USER_KEYWORDS, "contents")
#: Calls and methods that build a path from the file's name (the file is read by the next call).
_PATH_BUILDERS = frozenset({"join", "Path", "PurePath", "joinpath", "fspath", "abspath", "str", "resolve"})
_PATH_METHODS = frozenset({"joinpath", "resolve", "absolute"})
#: Methods whose first argument is the whole prompt of one turn (LangChain, Gemini, LlamaIndex).
_PROMPT_METHODS = frozenset({"invoke", "ainvoke", "generate_content", "generate_content_async", "predict",
                             "complete", "acomplete"})
#: Calls that wrap a text read from the file into a template of it, or clean it.
_TEXT_WRAPPERS = frozenset({"Template", "from_string", "dedent", "cleandoc", "str"})


def file_sent(path: str, text: str) -> tuple[str, str] | None:
    """("user" / "prompt" / "system", "agent.py:42") when every place of the repository that names
    the file at `path` sends its text alone (above), with the first such place; else None."""
    from prefixlint.load.file_fills import names_file
    from prefixlint.load.python_index import module_tree
    from prefixlint.load.python_modules import naming_modules
    from prefixlint.load.sends import reads_a_conversation

    try:
        target = Path(path).resolve()
    except (OSError, RuntimeError):
        return None
    if reads_a_conversation([], [text]):
        return None
    found: list[tuple[str, str]] = []
    for module, root in naming_modules(target, filling=False):
        tree = module_tree(module)
        if tree is None:
            return None
        nodes, parents = walked(tree)
        place = _Place(module, root, tree, parents)
        for constant in nodes:
            if names_file(constant, target.name):
                for start in _named_by(constant, tree, parents):
                    sent = _sent(_lifted(start, parents), place, 0)
                    if sent is None:
                        return None
                    found.append(sent)
    from prefixlint.load.file_helpers import at_position, stem_calls
    from prefixlint.load.python_index import repository_root

    root = repository_root(target.parent)
    for module, call in stem_calls(target, root):  # `load_prompt("CHAT", ...)`
        tree = module_tree(module)
        same = at_position(tree, call) if tree is not None else None
        if tree is None or same is None:
            return None
        parents = walked(tree)[1]
        sent = _sent(_lifted(same.args[0], parents), _Place(module, root, tree, parents), 0)
        if sent is None:
            return None
        found.append(sent)
    return found[0] if found else None


class _Place:
    """A module being read: its file, the repository's root, its tree and each node's parent."""

    def __init__(self, module: Path, root: Path, tree: ast.Module, parents: dict):
        self.module, self.root, self.tree, self.parents = module, root, tree, parents

    def at(self, line: int) -> str:
        return f"{self.module.relative_to(self.root).as_posix()}:{line}"


def _named_by(constant: ast.expr, tree: ast.Module, parents: dict) -> list[ast.expr]:
    """Where the file's name is used: the string itself, or the reads of the module-level name it is
    bound to (`_SYSTEM_PROMPT_FILENAME = "system_prompt.j2"`, when the module never binds it again)."""
    binding = parents.get(id(constant))
    if not (isinstance(binding, ast.Assign) and binding in tree.body and len(binding.targets) == 1
            and isinstance(binding.targets[0], ast.Name)):
        return [constant]
    name = binding.targets[0].id
    uses = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == name and n is not binding.targets[0]]
    return [] if any(not isinstance(n.ctx, ast.Load) for n in uses) else list[ast.expr](uses)


def _lifted(node: ast.expr, parents: dict) -> ast.expr:
    """The outermost expression that is the file's text (or its template object): the name or path
    joined (`here / "x.md"`, `os.path.join(here, "x.md")`), read by the first other call that takes
    it (`open(p)`, `read_prompt("x.md")`, `render("x.j2", ...)`) or method called on it
    (`.read_text()`); then the methods called on the text (`.read()`, `.render(...)`, `.strip()`) and
    the wrappers of `_TEXT_WRAPPERS` (`Template(text)`). Any other call the text is passed to is
    where it goes (`_sent`), not more of its reading."""
    reading = True
    while True:
        parent = parents.get(id(node))
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Div) and reading or isinstance(parent, ast.Await):
            node = parent  # a path joined, or the awaited result of the reading call
        elif isinstance(parent, ast.Attribute) and parent.value is node:
            call = parents.get(id(parent))
            if not (isinstance(call, ast.Call) and call.func is parent):
                return node
            node, reading = call, reading and parent.attr in _PATH_METHODS
        elif isinstance(parent, ast.Call) and node in parent.args and (reading or node is parent.args[0]
                                                                      and _callee(parent) in _TEXT_WRAPPERS):
            node, reading = parent, reading and _callee(parent) in _PATH_BUILDERS
        else:
            return node


def _callee(call: ast.Call) -> str:
    return dotted(call.func).rsplit(".", 1)[-1]


def _sent(value: ast.expr, place: _Place, depth: int) -> tuple[str, str] | None:
    """(how, "agent.py:42") when the text `value` is sent alone (the module docstring), else None."""
    from prefixlint.load import python_turns

    parents = place.parents
    parent = parents.get(id(value))
    role = message_role(value, parents)
    if role == "user":
        return "user", place.at(value.lineno)
    if _prompt_class(value, parents) or isinstance(parent, ast.keyword) and parent.arg in _USER_KEYWORDS:
        return "prompt", place.at(value.lineno)
    if depth >= MAX_DEPTH:
        return None
    if role == "system" or isinstance(parent, ast.keyword) and parent.arg in SYSTEM_KEYWORDS:
        line = python_turns.single_turn(value, parents, 0)
        return ("system", place.at(line)) if isinstance(line, int) else None
    if isinstance(parent, ast.Call) and value in parent.args[:1] and isinstance(parent.func, ast.Attribute) \
            and parent.func.attr in _PROMPT_METHODS:  # llm.invoke(text), model.generate_content(text)
        return "prompt", place.at(parent.lineno)
    uses: list[tuple[ast.expr, _Place]] = []
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        uses = [(use, place) for use in _reads(parent, parent.targets[0], place.tree, parents)]
    elif isinstance(parent, ast.Return) and (function := python_turns.function_of(parent, parents)) is not None:
        elsewhere = _callers_elsewhere(place, function)
        if elsewhere is None:
            return None
        uses = [(call, place) for call in python_turns.calls_named(place.tree, function.name)] + elsewhere
    sent = [_sent(_lifted(use, where.parents), where, depth + 1) for use, where in uses]
    return sent[0] if sent and None not in sent else None


def _callers_elsewhere(place: _Place, function) -> list[tuple[ast.expr, _Place]] | None:
    """The calls of a public module-level `function` in the modules of the repository importing it;
    None when one cannot be found again in its module's tree."""
    from prefixlint.load.file_helpers import at_position
    from prefixlint.load.python_callers import callers_elsewhere
    from prefixlint.load.python_modules import module_resolver

    found: list[tuple[ast.expr, _Place]] = []
    for resolver, call, where in callers_elsewhere(module_resolver(place.module), function):
        other = _Place(place.root / where, place.root, resolver.tree, walked(resolver.tree)[1])
        same = at_position(other.tree, call)
        if same is None:
            return None  # a call that cannot be followed: nothing is known of how it sends the text
        found.append((same, other))
    return found


def _reads(binding: ast.Assign, target: ast.expr, tree: ast.Module, parents: dict) -> list[ast.expr]:
    """Where the name or `self` attribute a text is bound to is read: a name in its function (none
    when it is bound again or added to), an attribute in its class."""
    from prefixlint.load import python_turns

    if isinstance(target, ast.Name):
        return list(python_turns.name_reads(binding, target.id, parents))
    if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"):
        return []
    scope: ast.AST | None = binding
    while scope is not None and not isinstance(scope, ast.ClassDef):
        scope = parents.get(id(scope))
    reads: list[ast.expr] = [n for n in ast.walk(scope or tree) if isinstance(n, ast.Attribute) and n.attr == target.attr
                             and isinstance(n.value, ast.Name) and n.value.id == "self" and n is not target]
    return [] if any(not isinstance(getattr(n, "ctx", None), ast.Load) for n in reads) else reads


def message_role(value: ast.expr, parents: dict) -> str | None:
    from prefixlint.load import python_turns

    return python_turns.message_role(value, parents)


def _prompt_class(value: ast.expr, parents: dict) -> bool:
    """`PromptBuilder(template=value)`, `PromptTemplate(template=value)`, `PromptTemplate.from_template(value)`."""
    parent = parents.get(id(value))
    keyword = isinstance(parent, ast.keyword)
    holder = parents.get(id(parent)) if isinstance(parent, ast.keyword) and parent.arg == "template" \
        else None if keyword else parent
    if not isinstance(holder, ast.Call):
        return False
    name = dotted(holder.func).split(".")
    if keyword:
        return name[-1] in _PROMPT_CLASSES
    return value in holder.args[:1] and (name[-1] in _PROMPT_CLASSES or name[-2:] == ["PromptTemplate", "from_template"])
