"""LangChain.js prompt objects in TypeScript/JavaScript (issue 19 item 4).

`ChatPromptTemplate.fromMessages([...])` is a chat: `["system", text]`, `["human", text]`,
`["ai", text]`, `{role, content}` objects, `SystemMessagePromptTemplate.fromTemplate(text)`,
`new SystemMessage(text)` in the list; `new MessagesPlaceholder("history")` and
`["placeholder", "{chat_history}"]` are the conversation. `PromptTemplate.fromTemplate(text)`
is one text. Template texts use LangChain's f-string fields (`{input}`, `{{` for a brace); a
`new ...Message(text)` is plain text. Where the program fills the fields in the file
(`prompt.invoke({ input_language: "English" })`, `.format(...)`, `.formatMessages(...)`), each
value is classified by `FillSites.argument` (a literal or configuration: stable; a clock call:
volatile); other fields keep their names for the name classifier.
"""

from __future__ import annotations

from typing import Any

from prefixlint.load.source_prompts import Field, PromptMessage, SourcePrompt
from prefixlint.load.source_text import template_fields

#: LangChain.js role names -> chat roles.
ROLES = {"system": "system", "human": "user", "user": "user", "ai": "assistant", "assistant": "assistant"}
#: Message classes -> (role, whether their text is a template with fields).
CLASSES = {"SystemMessagePromptTemplate": ("system", True), "HumanMessagePromptTemplate": ("user", True),
           "AIMessagePromptTemplate": ("assistant", True), "SystemMessage": ("system", False),
           "HumanMessage": ("user", False), "AIMessage": ("assistant", False)}
#: Methods that fill a prompt object's fields with an object of values.
FILLS = frozenset({"invoke", "format", "formatMessages", "formatPromptValue", "partial"})


def is_prompt_object(call) -> bool:
    """Whether a call is `ChatPromptTemplate.fromMessages(...)` or `X.fromTemplate(...)`."""
    callee = call.child_by_field_name("function")
    if callee is None or callee.type != "member_expression":
        return False
    method = callee.child_by_field_name("property").text
    owner = callee.child_by_field_name("object").text
    return method == b"fromMessages" and owner.endswith(b"ChatPromptTemplate") or \
        method == b"fromTemplate" and owner.endswith(b"PromptTemplate")


def prompt_object(source, call) -> SourcePrompt | None:
    callee = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    if first is None:
        return None
    named = _filled(source, call)
    name = callee.text.decode()
    if callee.child_by_field_name("property").text == b"fromTemplate":
        role, _ = CLASSES.get(callee.child_by_field_name("object").text.decode(), (None, True))
        message = _message(source, first, role, True, named)
        return SourcePrompt(name, [message], is_chat=role is not None) if message is not None else None
    if first.type == "identifier":
        declarator = source.bound(first)
        first = declarator.child_by_field_name("value") if declarator is not None else None
    if first is None or first.type != "array":
        return None
    messages: list[PromptMessage] = []
    for item in first.named_children:
        message = _item(source, item, named)
        if message is not None:
            messages.append(message)
    return SourcePrompt(name, messages, is_chat=True) if messages else None


def _item(source, item, named) -> PromptMessage | None:
    if item.type == "array" and len(item.named_children) == 2 and item.named_children[0].type == "string":
        role = item.named_children[0].text.decode().strip("'\"`")
        content = item.named_children[1]
        if role == "placeholder":
            return _slot(source, content, content.text.decode().strip("'\"`{} ") or "history")
        return _message(source, content, ROLES.get(role, role), True, named)
    if item.type == "object":
        messages = source.role_messages_of([item])
        return messages[0] if messages else None
    if item.type == "new_expression":
        constructor = item.child_by_field_name("constructor")
        arguments = item.child_by_field_name("arguments")
        given = arguments.named_children if arguments is not None else []
        kind = constructor.text.decode().rsplit(".", 1)[-1] if constructor is not None else ""
        if kind == "MessagesPlaceholder":
            name = given[0].text.decode().strip("'\"`") if given and given[0].type == "string" else "history"
            return _slot(source, item, name)
        if kind in CLASSES and given:
            role, fields = CLASSES[kind]
            return _message(source, given[0], role, fields, named)
    if item.type == "call_expression":
        callee = item.child_by_field_name("function")
        arguments = item.child_by_field_name("arguments")
        if callee is not None and callee.type == "member_expression" and arguments is not None and \
                arguments.named_children and callee.child_by_field_name("property").text == b"fromTemplate":
            role, fields = CLASSES.get(callee.child_by_field_name("object").text.decode(), (None, True))
            return _message(source, arguments.named_children[0], role, fields, named)
    return None


def _message(source, node, role, fields: bool, named) -> PromptMessage | None:
    pieces = source.text_of(node, 0)
    if pieces is None:
        pieces = [source.field(node)]
    elif fields:
        pieces = template_fields(pieces, "format", source.text, named=named)
    return PromptMessage(role, pieces, source.at(node.start_byte))


def _slot(source, node, name: str) -> PromptMessage:
    start = source.at(node.start_byte)
    return PromptMessage("(conversation)", [Field(start, source.written(node), name)], start, slot=name)


def _filled(source, call):
    """`named(field)`: the variable of a field the file fills, from `prompt.invoke({...})` calls on
    the declared prompt object; None where no such call says."""
    holder = call.parent
    values: dict[str, Any] = {}
    if holder is not None and holder.type == "variable_declarator":
        name = holder.child_by_field_name("name").text
        for node in source._walk(source.root):
            if node.type != "call_expression":
                continue
            callee = node.child_by_field_name("function")
            arguments = node.child_by_field_name("arguments")
            if callee is None or callee.type != "member_expression" or arguments is None or \
                    callee.child_by_field_name("object").text != name or \
                    callee.child_by_field_name("property").text.decode() not in FILLS:
                continue
            for given in arguments.named_children[:1]:
                if given.type == "object":
                    for key, value in source.pairs(given).items():
                        values.setdefault(key, value)

    def named(field: str):
        value = values.get(field)
        return source.argument(value, 0) if value is not None and value.type != "shorthand_property_identifier" \
            else None

    return named
