"""A TypeScript/JavaScript value read from the HTTP request being served (issue 19 item 5): a
route handler's `req.body.topic`, `const { topic } = await req.json()`, `formData.get("topic")`
after `const formData = await request.formData()`, `new URL(req.url).searchParams.get("q")`,
`req.query.q`, also through a validation (`formSchema.safeParse(await req.json()).data`,
`JSON.parse(body)`). The handler's parameter is the request when it is named `req`/`request` or typed
`Request`/`NextRequest` (Express, Next.js, Hono, the Fetch API); local `const`s are followed.

Each request brings its own value, whatever the name: the placeholder is per request, unless
its name says how often it changes more precisely (`userName`: per user), which then decides.
"""

from __future__ import annotations

from prefixlint.load.template import Variable

#: A handler's parameter holding the request, by name or by its type's last name.
REQUEST_NAMES = frozenset({"req", "request"})
REQUEST_TYPES = frozenset({"Request", "NextRequest", "IncomingMessage", "FastifyRequest", "HonoRequest"})
_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "non_null_expression", "await_expression",
                       "satisfies_expression", "type_assertion"})
_DEPTH = 8
#: Methods that validate or decode a value and give back the same data (zod's `parse`/`safeParse`,
#: yup's and joi's `validate`, `JSON.parse`): the request's value is followed through their argument.
_VALIDATORS = frozenset({"parse", "safeParse", "parseAsync", "safeParseAsync", "validate", "validateSync",
                         "validateAsync"})


def request_read(sites, node, depth: int = 0):
    """The expression by which `node` reads from the request a handler serves (`node` itself, or
    the value of a `const` it reads: `await req.json()`), else None."""
    read = node
    while node is not None and depth <= _DEPTH:
        depth += 1
        if node.type in _WRAPPERS:
            node = node.named_children[0] if node.named_children else None
        elif node.type in ("member_expression", "subscript_expression"):
            node = node.child_by_field_name("object")
        elif node.type == "call_expression":
            callee = node.child_by_field_name("function")
            member = callee is not None and callee.type == "member_expression"
            method = callee.child_by_field_name("property") if member else None
            arguments = node.child_by_field_name("arguments")
            if method is not None and method.text.decode("utf-8", "replace") in _VALIDATORS and arguments is not None \
                    and arguments.named_children:  # `schema.safeParse(body).data`: the same values, checked
                node = arguments.named_children[0]
            else:
                node = callee.child_by_field_name("object") if member else None
        elif node.type == "new_expression":  # `new URL(req.url)`
            arguments = node.child_by_field_name("arguments")
            node = arguments.named_children[0] if arguments is not None and arguments.named_children else None
        elif node.type == "identifier":
            binding = sites.binding(node)
            if binding is None:
                return None
            if binding.kind == "parameter":
                return read if _is_request(binding) else None
            if binding.kind != "variable" or not binding.constant or binding.holder.type != "variable_declarator":
                return None
            node = binding.holder.child_by_field_name("value")  # also a pattern's: `const { a } = await req.json()`
            read = node if read.type == "identifier" else read  # the read nearest the placeholder
        else:
            return None
    return None


def _is_request(binding) -> bool:
    if binding.name in REQUEST_NAMES:
        return True
    parameter = binding.node.parent
    annotation = parameter.child_by_field_name("type") if parameter is not None else None
    shown = annotation.text.decode("utf-8", "replace").lstrip(": ").strip() if annotation is not None else ""
    return shown.rsplit(".", 1)[-1] in REQUEST_TYPES


def request_variable(sites, node, name: str) -> Variable:
    """The variable of the placeholder `name` whose value is read from the request by `node`."""
    from prefixlint.load.classify import builtin_catalog, classify_variable

    shown = " ".join(sites.written(node).split())
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    frequency = classify_variable(builtin_catalog(), name, None).frequency
    kind = frequency if frequency in ("per_user", "per_day") else "per_request"
    return Variable("value", kind, (), node.start_point[0] + 1, f"read from the request: {shown}")
