"""Whether a TypeScript/JavaScript system prompt is sent as the whole request (issue 19 item 7),
read from the code that uses it: the same question as `python_turns.sent_alone`.

A system prompt (a constant, or a function returning it) is sent alone when every use found, in
its module and the modules nearby that import it (`ts_callers.importers`), builds a request of
one system and one user message: `generateText({ system: SYSTEM, prompt })` (the Vercel AI SDK's
single prompt), `{ system, messages: [{ role: "user", content }] }`, `[{ role: "system", content:
SYSTEM }, { role: "user", content: question }]` sent as it is, `[new SystemMessage(SYSTEM), new
HumanMessage(question)]`, directly or through a `const` it is assigned to. One use that adds more
(`...history`, a `messages` array pushed to, a user message built from a conversation) or that
cannot be seen through (a helper's argument, a property, a template literal), and the prompt is
served with the conversation after it (`check.served`).
"""

from __future__ import annotations

import os
from dataclasses import replace

from prefixlint.load.sends import first_site_if_all_alone, reads_a_conversation
from prefixlint.load.source_prompts import SourceTemplate
from prefixlint.load.ts_messages import ROLES, message_call, outside, pairs_of

_TEXT_METHODS = frozenset({"trim", "replace", "replaceAll", "concat", "toString"})
_DECLARING = frozenset({"import_specifier", "import_clause", "namespace_import", "export_specifier",
                        "type_annotation", "type_identifier"})
_TESTS = (".test.", ".spec.")


def as_sent(template: SourceTemplate, root, path: str) -> SourceTemplate:
    """A system prompt on its own (a constant, a function) marked `sent_alone` when the code
    sends it with one user message and no conversation: no history is assumed after it."""
    if not (template.prompt_name and template.messages and all(m.role == "system" for m in template.messages)):
        return template
    name = template.prompt_name.rsplit(".", 1)[-1]
    if not name.isidentifier():
        return template
    alone = sent_alone(path, root, name)
    return replace(template, sent_alone=alone) if alone else template


def sent_alone(path: str, root, name: str, depth: int = 0) -> str | None:
    """`"route.ts:42"`, where the code sends the prompt, when every use of the system prompt
    `name` sends it as a request of two messages (a function of the module returning it: every
    use of that function); None when one does not, or none is found."""
    from prefixlint.load.ts_callers import importers

    def follow(function: str) -> str | None:  # a function of the module returns it: where its callers send it
        return sent_alone(path, root, function, depth + 1) if depth < 2 and function != name else None

    modules = [(where, tree) for where, tree in [(path, root), *importers(path, name)]
               if not any(mark in os.path.basename(where) for mark in _TESTS)]
    return first_site_if_all_alone([(os.path.basename(where), tree is root,
                                     [_single_turn(node, 0) for node in _references(tree, name)])
                                    for where, tree in modules], follow)


def _references(root, name: str) -> list:
    """The identifiers reading `name` under `root` (not its declaration, an import or a type)."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.type in ("identifier", "shorthand_property_identifier") and node.text.decode() == name:
            parent = node.parent
            if parent is None or parent.type in _DECLARING or _declared_here(node):
                continue
            found.append(node)
    return sorted(found, key=lambda n: n.start_byte)


def _declared_here(node) -> bool:
    parent = node.parent
    field = "name" if parent.type in ("variable_declarator", "function_declaration") else None
    return field is not None and parent.child_by_field_name(field) == node


def _single_turn(node, depth: int) -> int | str | None:
    """The line of the request `node` (the prompt, or a text made of it) is sent in, when that
    request is one system and one user message; the name of the function returning it; else None."""
    node = outside(node)
    parent = node.parent
    if parent is None:
        return None
    if parent.type == "return_statement" or parent.type == "arrow_function" and \
            parent.child_by_field_name("body") == node:
        return _function_name(parent)
    if parent.type == "call_expression" and parent.child_by_field_name("function") == node:
        return _single_turn(parent, depth)  # systemPrompt()
    if parent.type == "member_expression" and parent.child_by_field_name("object") == node:
        prop = parent.child_by_field_name("property")
        call = parent.parent
        if prop is not None and prop.text.decode() in _TEXT_METHODS and call is not None \
                and call.type == "call_expression":
            return _single_turn(call, depth)  # SYSTEM.trim()
        return None
    if parent.type == "await_expression":
        return _single_turn(parent, depth)
    if node.type == "shorthand_property_identifier" and node.text.decode() == "system":
        return _sdk_request(parent)
    if parent.type == "pair" and parent.child_by_field_name("value") == node:
        key = _key(parent)
        if key in ("system", "instructions"):
            return _sdk_request(parent.parent)
        if key in ("systemInstruction", "system_instruction"):  # Gemini's REST body and SDK config
            return _gemini_request(parent.parent)
        if key == "text" and _instruction_part(parent.parent) is not None:  # systemInstruction: {parts: [{text}]}
            return _gemini_request(_instruction_part(parent.parent))
        if key == "content" and _role(parent.parent) == "system":
            return _in_request(outside(parent.parent))
        return None
    if parent.type == "arguments" and message_call(parent.parent) is not None \
            and message_call(parent.parent)[0] == "system":
        return _in_request(outside(parent.parent))  # new SystemMessage(SYSTEM)
    if parent.type == "variable_declarator" and parent.child_by_field_name("value") == node and depth < 2:
        named = parent.child_by_field_name("name")
        uses = _uses(parent, named.text.decode()) if named is not None and named.type == "identifier" else []
        lines = [_single_turn(use, depth + 1) for use in uses]
        return lines[0] if lines and None not in lines else None
    return None


def _function_name(node) -> str | None:
    """The name of the function holding `node`: declared, or the `const` an arrow function or
    a function expression is assigned to."""
    while node is not None and node.type not in ("function_declaration", "arrow_function", "function_expression",
                                                 "method_definition"):
        node = node.parent
    if node is None or node.type == "method_definition":
        return None
    named = node.child_by_field_name("name")
    if named is None and node.parent is not None and node.parent.type == "variable_declarator":
        named = node.parent.child_by_field_name("name")
    return named.text.decode() if named is not None and named.type == "identifier" else None


def _sdk_request(options) -> int | None:
    """`{ system, prompt }` or `{ system, messages: [one user message] }`: the options of one
    request (the Vercel AI SDK's, Anthropic's), its line; None for anything else."""
    pairs = _pairs(options) if options is not None and options.type == "object" else {"...": None}
    if "..." in pairs:  # not an object, or one spreading another's keys
        return None
    if "messages" in pairs:
        listed = outside(pairs["messages"]) if pairs["messages"] is not None else None
        return _line(options) if listed is not None and _user_turns(listed) == 1 else None
    prompt = pairs.get("prompt", pairs.get("input"))
    if prompt is None or prompt.type == "array" or _conversational(prompt):
        return None
    return _line(options)


def _instruction_part(part):
    """The object holding `systemInstruction: { parts: [part] }` (part: `{ text }`), else None."""
    parts = outside(part).parent if part is not None else None
    pair = parts.parent if parts is not None and parts.type == "array" else None
    holder = pair.parent if pair is not None and pair.type == "pair" and _key(pair) == "parts" else None
    instruction = holder.parent if holder is not None else None
    if instruction is not None and instruction.type == "pair" and _key(instruction) in (
            "systemInstruction", "system_instruction"):
        return instruction.parent
    return None


def _gemini_request(options) -> int | None:
    """`{ systemInstruction, contents }` (also with the instruction in `config:`), its line when
    `contents` is one user turn or a text that reads no conversation; else None."""
    if options is not None and options.type == "object" and "contents" not in _pairs(options) and \
            options.parent is not None and options.parent.type == "pair" and _key(options.parent) == "config":
        options = options.parent.parent
    if options is None or options.type != "object":
        return None
    contents = _pairs(options).get("contents")
    if contents is None or "..." in _pairs(options):
        return None
    contents = outside(contents)
    if contents.type == "array":
        items = [outside(c) for c in contents.named_children if c.type != "comment"]
        alone = len(items) == 1 and items[0].type == "object" and _role(items[0]) == "user" \
            and not _conversational(items[0])
        return _line(options) if alone else None
    asked = contents.type in ("string", "template_string") or contents.type in ("identifier", "member_expression") \
        and any(word in contents.text.decode().lower() for word in ("prompt", "question", "query", "input"))
    return _line(options) if asked and not _conversational(contents) else None


def _key(pair) -> str:
    return pair.child_by_field_name("key").text.decode().strip("'\"`")


def _in_request(message) -> int | None:
    """`[system message, one user message]` sent as it is: as `messages:`, as an argument, or
    through a `const` only read (never pushed to, spread or concatenated)."""
    listed = message.parent
    if listed is None or listed.type != "array":
        return None
    items = [c for c in listed.named_children if c.type != "comment"]
    if len(items) != 2 or items[0] != message or _user_turns(listed, skip=1) != 1:
        return None
    return _sent_as_is(outside(listed))


def _sent_as_is(listed) -> int | None:
    holder = listed.parent
    if holder is None:
        return None
    if holder.type == "arguments" or holder.type == "pair" and _key(holder) == "messages":
        return _line(holder)
    if holder.type == "variable_declarator" and holder.child_by_field_name("value") == listed:
        named = holder.child_by_field_name("name")
        uses = _uses(holder, named.text.decode()) if named is not None and named.type == "identifier" else []
        sent = [outside(u).parent for u in uses]
        if uses and all(s is not None and (s.type == "arguments" or u.type == "shorthand_property_identifier"
                                           and u.text.decode() == "messages" or s.type == "pair" and _key(s) == "messages")
                        for u, s in zip(uses, sent)):
            return _line(holder)
    return None


def _user_turns(listed, skip: int = 0) -> int | None:
    """How many user messages an array literal holds after its first `skip` items, when it
    holds only those (no spread, none built from a conversation); None otherwise."""
    if listed.type != "array":
        return None
    items = [c for c in listed.named_children if c.type != "comment"][skip:]
    for item in items:
        item = outside(item)
        role, content = _role(item), _pairs(item).get("content") if item.type == "object" else None
        called = message_call(item)
        if called is not None:
            role, content = called
        if role != "user" or content is None or _conversational(content):
            return None
    return len(items)


def _role(message) -> str | None:
    if message is None or message.type != "object":
        return None
    role = _pairs(message).get("role")
    text = role.text.decode().strip("'\"`") if role is not None and role.type == "string" else None
    return ROLES.get(text or "")


def _pairs(holder) -> dict:
    """`pairs_of`, with `"..."` for a spread (`{ ...options, system }`: keys this code does not see)."""
    spread = any(child.type == "spread_element" for child in holder.named_children)
    return {**pairs_of(holder), **({"...": None} if spread else {})}


def _conversational(node) -> bool:
    """Whether an expression reads a conversation (`history`, `chatMessages`, `"{history}\\n{question}"`)."""
    nodes, stack = [], [node]
    while stack:
        nodes.append(stack.pop())
        stack.extend(nodes[-1].children)
    return reads_a_conversation(
        [n.text.decode() for n in nodes if n.type in ("identifier", "property_identifier", "shorthand_property_identifier")],
        [n.text.decode() for n in nodes if n.type == "string_fragment"])


def _uses(declarator, name: str) -> list:
    """The reads of the `const` `name` after `declarator` in its function (or module); none when
    it is bound again, pushed to, spread or used as an object (`name.push(...)`)."""
    scope = declarator
    while scope.parent is not None and scope.type not in ("statement_block", "program"):
        scope = scope.parent
    uses = [n for n in _references(scope, name) if n.start_byte > declarator.end_byte]
    for use in uses:
        parent = outside(use).parent
        if parent is None or parent.type in ("spread_element", "assignment_expression", "augmented_assignment_expression",
                                             "update_expression") or parent.type == "member_expression" \
                and parent.child_by_field_name("object") == outside(use):
            return []
    return uses


def _line(node) -> int:
    return node.start_point[0] + 1
