"""Prompts in Python source (`.py`), read with the standard `ast` module.

A string is a prompt when it is
- assigned to a prompt-like name (`SYSTEM_PROMPT`, `agent_prompt`, `SYSTEM_MESSAGE`, `INSTRUCTIONS`,
  `qa_template`; any case): one prompt, a system message when the name starts with `system`;
- passed where a prompt goes: LangChain `PromptTemplate(template=...)`, `X.from_template(...)` (the user's
  turn), `ChatPromptTemplate.from_messages([("system", ...), ("human", ...), MessagesPlaceholder(...)])` (roles
  from the tuples, the placeholder as the conversation slot), `SystemMessage(content=...)`; OpenAI and Anthropic
  SDK calls (`messages=[{"role": "system", "content": ...}]`, `system=`, `instructions=`, `prompt=`/`input=` as
  the user's turn): one chat per call; CrewAI's `Agent(...)` and `Task(...)` (`python_crewai`).
Texts are followed through names, `.format()`, `%`, `+`, `join`, `dedent` (`python_values`); a message
filled from a variable (`{"role": "user", "content": question}`) is one placeholder; a chain's run
mapping fills its template's fields (`python_mappings`). A module without a prompt is no template.
"""

from __future__ import annotations

import ast
import re

from prefixlint.load.base import Loader
from prefixlint.load.python_crewai import crewai_prompt
from prefixlint.load.python_mappings import mapping_fills
from prefixlint.load.python_modules import fill_elsewhere
from prefixlint.load.python_shapes import (
    MESSAGE_CLASSES,
    ROLES,
    concatenated,
    extends_itself,
    fill_style,
    formatted_later,
    is_text_expression,
    keyword_value,
    returned,
    slot_name,
)
from prefixlint.load.python_templates import FILL_METHODS, fill_arguments, template_kind
from prefixlint.load.python_turns import as_sent, sent_as
from prefixlint.load.python_values import Resolver, dotted
from prefixlint.load.python_walk import SYSTEM_KEYWORDS, USER_KEYWORDS
from prefixlint.load.registry import NotATemplate
from prefixlint.load.source_prompts import (
    CALLS_A_MODEL,
    Field,
    PromptMessage,
    SourcePrompt,
    is_prompt_name,
    is_system_name,
    to_template,
)
from prefixlint.load.source_text import has_content
from prefixlint.load.template import Template

FORMAT = "python"
HINT = ("prefixlint reads strings assigned to prompt-like names (*PROMPT*, SYSTEM*, *instructions*, *template*), lists"
        " of chat messages, and strings passed to LangChain prompt classes or to OpenAI/Anthropic message calls")
_SNIFF = re.compile(r"prompt|system|instruction|template|messages|backstory", re.IGNORECASE)
LANGCHAIN_SYNTAX = {"f-string": "format", "jinja2": "jinja", "mustache": "mustache"}


def sniff(text: str) -> bool:
    return True


def sniff_walked(text: str) -> bool:
    """A walk opens only modules that mention a prompt-like word at all."""
    return _SNIFF.search(text) is not None or CALLS_A_MODEL.search(text) is not None


def load(path: str, text: str) -> Template:
    return load_all(path, text)[0]


def load_all(path: str, text: str) -> list[Template]:
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        raise NotATemplate(f"not valid Python: {exc.msg}", path=path, line=exc.lineno, column=exc.offset) from None
    except ValueError as exc:  # a NUL byte, on older Pythons
        raise NotATemplate(f"not valid Python: {exc}", path=path, line=1) from None
    prompts = (finder := _Finder(text, tree, path)).prompts()
    if not prompts:
        raise NotATemplate("no prompt found in this Python module", path=path, line=1, hint=HINT)
    return [mapping_fills(as_sent(to_template(path, text, FORMAT, p), tree, path), finder.resolve) for p in prompts]


class _Finder:
    def __init__(self, text: str, tree: ast.Module, path: str | None = None) -> None:
        self.tree, self.path = tree, path
        self.resolve = Resolver(text, tree, path)
        self.found: list[tuple[int, SourcePrompt]] = []
        self.done: set[int] = set()  # ids of calls already read as part of another prompt
        self.content_style = "plain"  # how a message's content is filled later (a list assigned to a name)

    def prompts(self) -> list[SourcePrompt]:
        for read in (self.chat_call, self.single_call):  # chats first: their messages are not prompts of their own
            for call in self.resolve.calls:
                if id(call) not in self.done:
                    read(call)
        for node in self.resolve.statements:
            self.assignment(node)
        self.found.sort(key=lambda item: item[0])
        return [prompt for _, prompt in self.found if has_content(prompt)]

    def add(self, node: ast.expr | ast.stmt, prompt: SourcePrompt) -> None:
        """A prompt with text of its own, or an unknown module constant (an opaque piece: still a prompt)."""
        if any(m.pieces and not all(isinstance(p, Field) and not (p.variable is not None and p.variable.unknown)
                                    for p in m.pieces) for m in prompt.messages if not m.slot):
            self.found.append((self.resolve.offset(node.lineno, node.col_offset), prompt))

    def start(self, node: ast.expr) -> int:
        return self.resolve.offset(node.lineno, node.col_offset)

    # -- chats ------------------------------------------------------------------------------
    def chat_call(self, call: ast.Call) -> None:
        name = dotted(call.func)
        last = name.rsplit(".", 1)[-1]
        if last == "from_messages" or last == "ChatPromptTemplate":
            items = self.listed(call.args[0] if call.args else keyword_value(  # `from_messages(messages)`, bound above
                {k.arg: k.value for k in call.keywords if k.arg}, "messages"))
            if isinstance(items, (ast.List, ast.Tuple)):
                self.done.add(id(call))
                chat = [m for m in (self.langchain_message(item) for item in items.elts) if m is not None]
                self.add(call, SourcePrompt(name, chat, is_chat=True))
            return
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        listed = self.message_list(call.args[0] if call.args else None)  # model.invoke([...]) and the like
        if not {*SYSTEM_KEYWORDS, "messages"} & set(keywords) and listed is None:
            return
        messages: list[PromptMessage] = []
        for key in SYSTEM_KEYWORDS:
            if key in keywords:
                messages += self.sdk_content(keywords[key], "system")
        messages += self.message_list(keywords.get("messages")) or listed or []
        for key in USER_KEYWORDS:
            if key in keywords:
                messages += self.sdk_content(keywords[key], "user" if messages else None)
        if messages:
            self.done.add(id(call))
            named = len(messages) == 1 and isinstance(keyword_value(keywords, *SYSTEM_KEYWORDS), (ast.Name, ast.Attribute))
            prompt_name = dotted(keyword_value(keywords, *SYSTEM_KEYWORDS)) if named else name
            self.add(call, SourcePrompt(prompt_name, messages, is_chat=any(m.role for m in messages)))

    def message_list(self, items: ast.AST | None) -> list[PromptMessage] | None:
        """A list of `{"role", "content"}` dicts or message objects; `*state.messages` in it is
        the conversation so far (the slot). None when it is not such a list."""
        items = self.listed(items)
        if not isinstance(items, (ast.List, ast.Tuple)) or not any(
                isinstance(e, ast.Dict) and any(isinstance(k, ast.Constant) and k.value == "role" for k in e.keys)
                or isinstance(e, ast.Call) and dotted(e.func).rsplit(".", 1)[-1] in MESSAGE_CLASSES for e in items.elts):
            return None
        messages: list[PromptMessage] = []
        for item in items.elts:
            if isinstance(item, ast.Starred):
                messages.append(self.slot(item, dotted(item.value).rsplit(".", 1)[-1].replace("?", "history")))
            elif isinstance(item, ast.Dict):
                messages += self.sdk_message(item)
            else:
                message = self.langchain_message(item)
                messages += [message] if message is not None else []
        return messages

    def listed(self, items: ast.AST | None) -> ast.AST | None:
        """The list a name holds; `[system] + history + [user]` as one list (the history spread in)."""
        if isinstance(items, (ast.Name, ast.Attribute)):
            items = self.resolve.bound(items)
        return ast.List(elts=concatenated(items, self.resolve.bound)) if isinstance(items, ast.BinOp) else items

    def langchain_message(self, item: ast.expr) -> PromptMessage | None:
        if isinstance(item, (ast.Name, ast.Attribute)) and isinstance(bound := self.resolve.bound(item), (ast.Tuple, ast.Call)):
            item = bound
        if isinstance(item, (ast.Tuple, ast.List)) and len(item.elts) == 2 and isinstance(item.elts[0], ast.Constant):
            role, content = str(item.elts[0].value), item.elts[1]
            if role == "placeholder":
                return self.slot(content, slot_name(content))
            return self.message(ROLES.get(role, role), content, "format")
        if isinstance(item, ast.Call):
            self.done.add(id(item))
            name = dotted(item.func).split(".")
            if name[-1] == "MessagesPlaceholder":
                variable = item.args[0] if item.args else next((k.value for k in item.keywords if k.arg == "variable_name"), None)
                named = variable.value if isinstance(variable, ast.Constant) else None
                return self.slot(item, named if isinstance(named, str) else "history")
            cls = name[-2] if name[-1] == "from_template" and len(name) > 1 else name[-1]
            if cls in MESSAGE_CLASSES:
                body = item.args[0] if item.args else next(
                    (k.value for k in item.keywords if k.arg in ("content", "template")), None)
                style = "format" if cls.endswith("PromptTemplate") else "plain"
                return self.message(MESSAGE_CLASSES[cls], body, style)
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            return self.message("user", item, "format")
        return None

    def slot(self, node: ast.expr, name: str) -> PromptMessage:
        start, end = self.resolve.span(node)
        return PromptMessage("(conversation)", [Field(start, self.resolve.source[start:end], name)], start, slot=name)

    def message(self, role: str | None, content: ast.expr | None, style: str) -> PromptMessage | None:
        if content is None:
            return None
        pieces = self.resolve.text(content, style)
        if pieces is None:
            pieces = [self.resolve.field(content)]
        return PromptMessage(role, pieces, self.start(content))

    def sdk_message(self, item: ast.expr) -> list[PromptMessage]:
        entries = ({k.value: v for k, v in zip(item.keys, item.values) if isinstance(k, ast.Constant)}
                   if isinstance(item, ast.Dict) else {})
        role = entries.get("role")
        if not isinstance(role, ast.Constant) or "content" not in entries:
            return []
        return self.sdk_content(entries["content"], ROLES.get(str(role.value), str(role.value)))

    def sdk_content(self, node: ast.expr, role: str | None) -> list[PromptMessage]:
        """A message's content: a text, or a list of content blocks (`{"type": "text", "text": ...}`)."""
        if isinstance(node, (ast.Name, ast.Attribute)) and isinstance(self.resolve.bound(node), ast.List):
            node = self.resolve.bound(node)  # type: ignore[assignment]  # `system=blocks`, bound in the module
        if isinstance(node, ast.List):
            entries = [{k.value: v for k, v in zip(b.keys, b.values) if isinstance(k, ast.Constant)}
                       for b in node.elts if isinstance(b, ast.Dict)]
            blocks = [self.message(role, e["text"], "plain") for e in entries if "text" in e]
            return [b for b in blocks if b is not None]
        message = self.message(role, node, self.content_style)
        return [message] if message is not None else []

    # -- single prompts ---------------------------------------------------------------------
    def single_call(self, call: ast.Call) -> None:
        if (agent := crewai_prompt(self.resolve, call, self.path)) is not None:
            return self.add(call, agent)  # CrewAI's `Agent(role=...)`, `Task(description=...)`
        name = dotted(call.func)
        parts = name.split(".")
        if parts[-1] not in ("PromptTemplate", "from_template") and parts[-1] not in MESSAGE_CLASSES:
            return
        keywords = {k.arg: k.value for k in call.keywords if k.arg}
        content = call.args[0] if call.args else keywords.get("template", keywords.get("content"))
        cls = parts[-2] if parts[-1] == "from_template" and len(parts) > 1 else parts[-1]
        fmt = keywords.get("template_format")
        syntax = LANGCHAIN_SYNTAX.get(str(fmt.value) if isinstance(fmt, ast.Constant) else "f-string", "format")
        style = "plain" if cls in ("SystemMessage", "HumanMessage", "AIMessage") or syntax != "format" else "format"
        message = self.message(MESSAGE_CLASSES.get(cls, "user"), content, style)
        if message is not None:
            self.add(call, SourcePrompt(name, [message], is_chat=message.role is not None, syntax=syntax))

    def assignment(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and (found := returned(node)) is not None:
            target, value = ast.Name(node.name), found  # `def prompt_template(...): return f"..."`
        else:
            return
        name = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None
        a_list = isinstance(value, (ast.List, ast.Tuple))  # a list of chat messages is a prompt by its shape
        if name is None or not (is_prompt_name(name) or a_list) or not is_text_expression(value):
            return
        if self.done and any(id(n) in self.done for n in ast.walk(value)):
            return
        before, self.resolve.touched = set(self.resolve.used), []
        if isinstance(value, ast.Dict):  # `TASK_PROMPTS = {"summarize": "Summarize ...", ...}`: one prompt a value
            for key, item in zip(value.keys, value.values):
                pieces = self.resolve.text(item, fill_style(item)) if is_text_expression(item) else None
                if isinstance(key, ast.Constant) and pieces is not None and not any(id(n) in before for n in ast.walk(item)):
                    self.add(item, SourcePrompt(f"{name}[{key.value!r}]", [PromptMessage(None, pieces, self.start(item))]))
            return
        if a_list:  # `prompt_template = [{"role": "system", ...}, ...]`, `def build_messages(): return [...]`
            self.content_style = fill_style(value, dollar=True)
            try:
                listed = self.message_list(value)
            finally:
                self.content_style = "plain"
            if listed and not all(touched in before for touched in self.resolve.touched):
                self.add(value, SourcePrompt(name, listed, is_chat=True))
            return
        kind = template_kind(self.resolve.template_imports, value)  # jinja2.Template / string.Template
        pieces = self.filled(name, value, kind)
        if pieces is None:
            pieces = self.resolve.text(value, kind or fill_style(value))
        if pieces is None or all(touched in before for touched in self.resolve.touched) or extends_itself(target, value):
            return  # not a text, one already read as part of another prompt, or a step of one built elsewhere
        role = "system" if is_system_name(name) else \
            sent_as(self.path, self.tree, name) if isinstance(node, ast.FunctionDef) else None
        self.add(value, SourcePrompt(name, [PromptMessage(role, pieces, self.start(value))], is_chat=role is not None))

    def filled(self, name: str, value: ast.expr, kind: str | None) -> list | None:
        """The pieces of a text filled by a call of this module (`NAME.format(date=...)`, `NAME.render(...)`), else
        of another module that imports it (`python_modules`), else one the module edits into fields (`.replace`)."""
        filler, call = None, self.resolve.format_calls.get(name.lower()) or self.resolve.render_calls.get(name.lower())
        if call is None and self.path is not None:
            filler = fill_elsewhere(self.path, name)
            call = filler.call if filler is not None else None
        method = call.func.attr if call is not None and isinstance(call.func, ast.Attribute) else None
        if kind is not None and isinstance(value, ast.Call) and method in FILL_METHODS[kind]:
            return self.resolve.formatted(value.args[0], kind, fill_arguments(call), 0, filler)  # type: ignore[arg-type]
        if kind is None and formatted_later(value, call, method, self.resolve, name):
            return self.resolve.formatted(value, "format", call, 0, filler)
        return None


LOADER = Loader(FORMAT, sniff, load, hint=HINT, walked=sniff_walked, many=load_all, program_source=True, declared=False)
