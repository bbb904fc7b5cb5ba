"""Chat messages in TypeScript/JavaScript: `{ role, content }` objects (issue 19 item 4).

An object literal with a chat role (`system`, `developer`, `user`, `assistant`, Gemini's `model`)
and a text or text parts (`content: [{ type: 'text', text }]`, Gemini's `parts: [{ text }]`) is
a message, and so is a call named for its role (`new SystemMessage(text)`,
`OpenAIChatMessage.system(text)`): in a list (`messages: [...]`, also by the name of a module
constant, `[SYSTEM_MESSAGE, ...history]`) and as the argument of
`messages.unshift(...)` (before the conversation so far). A system (or developer) message is a
prompt on its own too, wherever it is written: a module constant typed
`ChatCompletionMessageParam` or not, a function's return value; not when a call adds it to a
conversation (`history.push(...)`: somewhere in the middle). `...history` after a message is
the conversation's slot. `ts_source` decides where prompts are; this reads their messages.
"""

from __future__ import annotations

from prefixlint.load.source_prompts import Field, PromptMessage, variable_name
from prefixlint.load.template import Variable
from prefixlint.load.ts_assembly import returned_expression
from prefixlint.load.ts_values import Values

ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant", "model": "assistant"}
#: Message classes whose constructor takes the text: LangChain.js `new SystemMessage(text)`.
MESSAGE_CLASSES = {"SystemMessage": "system", "HumanMessage": "user", "AIMessage": "assistant"}
_WRAPPERS = ("as_expression", "satisfies_expression", "parenthesized_expression", "non_null_expression")


def pairs_of(node) -> dict:
    """An object literal's properties by key: a pair's value, a shorthand property itself."""
    out = {}
    for child in node.named_children:
        if child.type == "pair":
            key = child.child_by_field_name("key")
            name = key.text.decode().strip("'\"`") if key is not None else ""
            out[name] = child.child_by_field_name("value")
        elif child.type == "shorthand_property_identifier":
            out[child.text.decode()] = child
    return out


class Messages(Values):
    def pairs(self, node) -> dict:
        return pairs_of(node)

    def role_messages(self, array, depth: int = 0) -> list[PromptMessage]:
        return self.role_messages_of(array.named_children, depth, array)

    def role_messages_of(self, items, depth: int = 0, array=None) -> list[PromptMessage]:
        messages: list[PromptMessage] = []
        for item in items:
            if item.type == "spread_element":  # `...MESSAGES` (a constant list) or `...history` after the system message
                spread = item.named_children[0] if item.named_children else item
                declarator = self.bound(spread) if spread.type == "identifier" else None
                value = declarator.child_by_field_name("value") if declarator is not None else None
                if value is not None and value.type == "array" and value is not array and depth < 4:
                    messages += self.role_messages(value, depth + 1)
                elif messages:
                    messages.append(self.slot(spread))
                continue
            built = message_call(item)
            if built is not None:  # `new SystemMessage(text)`, `OpenAIChatMessage.system(text)`
                messages += self.content(built[1], built[0])
                continue
            item = self.message_object(item, depth)
            pairs = self.pairs(item) if item is not None else {}
            role, body = pairs.get("role"), pairs.get("content") or _gemini_parts(pairs.get("parts"))
            if role is None or body is None or role.type != "string":
                continue
            name = role.text.decode().strip("'\"")
            messages += self.content(body, ROLES.get(name, name))
        return messages

    def message_object(self, item, depth: int = 0):
        """The object literal a list's item is: written there (`{ role, content }`, also `as
        const`), or a constant's the list reads (`SYSTEM_MESSAGE` of `[SYSTEM_MESSAGE, ...history]`,
        of the module or of the function building the list: `const intro = {...}`); else None."""
        item = inside(item)
        if item.type == "identifier" and depth < 4:
            binding = self.binding(item)
            if binding is not None and binding.constant and binding.value is not None:
                item = inside(binding.value)
        return item if item.type == "object" else None

    def returned_message(self, node) -> list[PromptMessage]:
        """The messages a function returns: a `{role, content}` object, or a list of them, else []."""
        function = node if node.type == "function_declaration" else node.child_by_field_name("value")
        if function is None or function.type not in ("function_declaration", "arrow_function", "function_expression"):
            return []
        body = returned_expression(function)
        body = inside(body) if body is not None else None  # `return { role, content } as const`
        if body is not None and body.type == "array":  # `return [currentTime, rules]`: its messages in order
            return self.role_messages(body)
        return self.role_messages_of([body]) if body is not None and body.type == "object" else []

    def unshifted_into(self, target) -> list[PromptMessage]:
        """What follows a message unshifted into `target`: the messages of a list declared in the
        module with no spread in it (a request built here), else the conversation so far."""
        declarator = self.bound(target) if target.type == "identifier" else None
        value = declarator.child_by_field_name("value") if declarator is not None else None
        if value is not None and value.type == "array" and not any(
                item.type == "spread_element" for item in value.named_children):
            return self.role_messages(value)
        return [self.slot(target)]

    def listed(self, node) -> list[PromptMessage]:
        """The messages a list named beside a system prompt holds (`system: rules, messages:
        history`): those of an array declared by its whole name (`const messages = [...]`), else
        the conversation so far (a parameter, a property, a list built elsewhere)."""
        binding = self.binding(node) if node.type in ("identifier", "shorthand_property_identifier") else None
        value = inside(binding.value) if binding is not None and binding.value is not None else None
        if value is not None and value.type == "array":
            items = value.named_children
            first = items[0] if items and items[0].type == "spread_element" and items[0].named_children else None
            found = ([self.slot(first.named_children[0])] if first is not None else []) + self.role_messages(value)
            return found if found else [self.slot(node)]
        return [self.slot(node)]

    def slot(self, node) -> PromptMessage:
        """The conversation so far, where the code puts it (`...history`, the array unshifted into)."""
        start = self.at(node.start_byte)
        name = variable_name(self.segments(node)[0]) if node.type in (
            "identifier", "member_expression", "shorthand_property_identifier") else "history"
        return PromptMessage("(conversation)", [Field(start, self.written(node), name)], start, slot=name)

    def content(self, node, role: str | None) -> list[PromptMessage]:
        if node.type == "array":  # `content: [{type: 'text', text: p}, {type: 'image_url', ...}]`
            parts = [self.pairs(item) for item in node.named_children if item.type == "object"]
            texts = [part["text"] for part in parts if "text" in part and part["text"] is not None]
            if texts and len(texts) == len(node.named_children):
                return [message for text in texts for message in self.content(text, role)]
            if texts and _gemini_parts(node) is not None:
                return self.gemini_parts(parts, role)
        pieces = self.text_of(node, 0)
        if pieces is None:
            pieces = [self.field(node)]
        return [PromptMessage(role, pieces, self.at(node.start_byte))]

    def gemini_parts(self, parts: list[dict], role: str | None) -> list[PromptMessage]:
        """Gemini's `parts: [{ text }, { inlineData }, { fileData }]`: the texts, and each other
        part as the request's own data, where it is sent."""
        messages: list[PromptMessage] = []
        for part in parts:
            if part.get("text") is not None:
                messages += self.content(part["text"], role)
                continue
            key, value = next(iter(part.items()), ("data", None))
            if value is not None:  # placed and shown at its key (`fileData`): the value may span many lines
                named = value.parent.child_by_field_name("key") if value.parent is not None and \
                    value.parent.type == "pair" else None
                shown = named if named is not None else value
                start = self.at(shown.start_byte)
                variable = Variable("value", "per_request", (), value.start_point[0] + 1,
                                    f"the {key} part of the message: the request's own data")
                messages.append(PromptMessage(role, [Field(start, self.written(shown), variable_name([key]), variable)],
                                              start))
        return messages


def _gemini_parts(node):
    """Gemini's `parts: [{ text }, { inlineData }]`, by its shape: parts without a `type` (the
    AI SDK's UI messages, `parts: [{ type: "text", text }]`, are what a chat page shows)."""
    if node is None or node.type != "array":
        return None
    parts = [pairs_of(item) for item in node.named_children if item.type == "object"]
    return node if parts and len(parts) == len(node.named_children) and not any("type" in p for p in parts) else None


def message_call(node):
    """`(role, text)` of a message built by a call named for its role: a message class's
    constructor (`new SystemMessage(text)`, `new HumanMessage(text)`) or a role method of a
    message class (`OpenAIChatMessage.system(text)`, `ChatMessage.user(text)`); else None."""
    node = inside(node)
    arguments = node.child_by_field_name("arguments") if node.type in ("new_expression", "call_expression") else None
    if arguments is None or arguments.type != "arguments" or not arguments.named_children:
        return None
    if node.type == "new_expression":
        constructor = node.child_by_field_name("constructor")
        role = MESSAGE_CLASSES.get(constructor.text.decode().rsplit(".", 1)[-1]) if constructor is not None else None
    else:
        callee = node.child_by_field_name("function")
        owner = callee.child_by_field_name("object") if callee.type == "member_expression" else None
        role = ROLES.get(callee.child_by_field_name("property").text.decode()) \
            if owner is not None and owner.text.decode().rsplit(".", 1)[-1].endswith("Message") else None
    return (role, arguments.named_children[0]) if role is not None else None


def unshift_call(holder):
    """The `x.unshift(...)` call an object literal is an argument of, else None."""
    arguments = holder.parent
    call = arguments.parent if arguments is not None and arguments.type == "arguments" else None
    callee = call.child_by_field_name("function") if call is not None and call.type == "call_expression" else None
    if callee is None or callee.type != "member_expression":
        return None
    return call if callee.child_by_field_name("property").text == b"unshift" else None


def inside(node):
    """The expression `x as T`, `x satisfies T`, `(x)` wrap."""
    while node.type in _WRAPPERS and node.named_children:
        node = node.named_children[0]
    return node


def outside(node):
    """The outermost of the `as T`, `satisfies T` and parentheses wrapping `node`."""
    while node.parent is not None and node.parent.type in _WRAPPERS:
        node = node.parent
    return node


def system_message(pair) -> bool:
    """Whether a `role:` property is a system message's (`system`, `developer`) in an object that
    stands on its own: not an argument of a call (`history.push({ role: 'system', ... })` adds a
    message in the middle of a conversation). A user's or the assistant's message is part of a
    conversation, a prompt only in its list."""
    value = pair.child_by_field_name("value") if pair.type == "pair" else None
    if value is None or value.type != "string" or ROLES.get(value.text.decode().strip("'\"`")) != "system":
        return False
    holder = outside(pair.parent)
    return holder.parent is None or holder.parent.type != "arguments"


def holder_name(node) -> str | None:
    """The name a message object is declared or set under (`const HELPER = {...}`), else None."""
    holder = outside(node).parent
    field = "name" if holder is not None and holder.type == "variable_declarator" else "key"
    named = holder.child_by_field_name(field) if holder is not None and holder.type in ("variable_declarator", "pair") \
        else None
    return named.text.decode().strip("'\"`") if named is not None and named.type != "object_pattern" else None
