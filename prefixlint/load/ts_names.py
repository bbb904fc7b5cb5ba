"""How a TypeScript/JavaScript value in a prompt is named: by its words (issue 19 item 5).

`segments(expression)` gives the words of a `${...}` (`requestHints.latitude`, `x["city"]`,
the first argument of a call, the receiver of a chain of array or string methods:
`oldFiles.map(f).join("\\n")` is the old files), which `source_prompts.variable_name` joins into
the placeholder's name for the catalog of `rules/signals.yaml` to classify.
"""

from __future__ import annotations

from prefixlint.load.ts_grammar import walk

#: Methods of an array or a string that give the same value reshaped: the value is named by
#: its receiver (`oldFiles.map(f).join("\n")` is the old files), not by the call's arguments.
VALUE_METHODS = frozenset({"map", "join", "filter", "slice", "flat", "flatMap", "concat", "reverse", "sort", "trim",
                           "trimStart", "trimEnd", "toString", "toUpperCase", "toLowerCase", "substring", "at",
                           "padStart", "padEnd", "replace", "replaceAll", "split", "toFixed"})


def segments(node) -> tuple[list[str], bool]:
    """The words a value is named by (`requestHints.latitude`: request, hints, latitude), and
    whether its last word is a key (`x["city"]`)."""
    if node is None:
        return ["value"], False
    if node.type in ("identifier", "this", "property_identifier", "shorthand_property_identifier"):
        return [node.text.decode()], False
    if node.type == "member_expression":
        inner, keyed = segments(node.child_by_field_name("object"))
        return inner + [node.child_by_field_name("property").text.decode()], keyed
    if node.type == "subscript_expression":
        inner, _ = segments(node.child_by_field_name("object"))
        index = node.child_by_field_name("index")
        return inner + [index.text.decode().strip("'\"`")], True
    if node.type == "call_expression":
        receiver = _reshaped(node)
        if receiver is not None:  # `oldFiles.map(f).join("\n")`: the old files
            return segments(receiver)
        arguments = node.child_by_field_name("arguments")
        if arguments is not None and arguments.named_children:
            return segments(arguments.named_children[0])
        return segments(node.child_by_field_name("function"))
    names = [n.text.decode() for n in walk(node) if n.type == "identifier"]
    return (names[:1] or ["value"]), False


def _reshaped(call):
    """The variable a chain of array or string methods reshapes (`oldFiles` of
    `oldFiles.map(f).join(s)`, `this.notes` of `this.notes.join(s)`); None for anything else (a
    field deep in an object, `designSystem.colors.text.join(s)`, says less than its name)."""
    node = call
    while node is not None and node.type == "call_expression":
        callee = node.child_by_field_name("function")
        if callee is None or callee.type != "member_expression" or \
                callee.child_by_field_name("property").text.decode() not in VALUE_METHODS:
            return None if node is call else node
        node = callee.child_by_field_name("object")
    if node is None or node is call:
        return None
    if node.type == "identifier" or node.type == "member_expression" and \
            node.child_by_field_name("object").type in ("this", "identifier") and \
            node.child_by_field_name("object").text in (b"this", b"props"):
        return node
    return None
