"""What fills a `${...}` in TypeScript/JavaScript, by its fill site (issue 19 item 5).

`FillSites.field(node)` makes the placeholder a `${...}` becomes, named by its words and, where
the program says what fills it, with that variable and its evidence:
- the clock, a UUID or a random source (`new Date()`, `Date.now()`, `crypto.randomUUID()`,
  `Math.random()`, directly or through a local `const`): volatile by construction;
- configuration (`process.env.X`, `import.meta.env.X`, `env.X`, `config.x`, `settings.x`, also
  with a `?? "default"`): a deployment constant, stable;
- a function's parameter: the calls of that function, in the file and in the modules beside it
  that import it (a bounded search: `callers`), each argument classified the same way; when
  every caller passes a stable value the parameter is stable, a clock value makes it volatile;
- a call of a function of the file: what the function returns (`getTime()` -> `new Date()`);
  a function named without a call (`${getTime}`) is not run: its text is its own source, constant;
- a template literal written at module level is evaluated once per process, whatever it
  interpolates (a clock too): stable, info at most. The scope and the call decide, not the name.
The vocabulary (clock calls, configuration roots, the evidence wording) is the one Python uses
(`computed.CLOCK_CALLS`, `fill_sites.CONFIG_ROOTS`, `fill_sites.deployment_constant`).
"""

from __future__ import annotations

from typing import Any

from prefixlint.load.computed import CLOCK_CALLS, clock_call, clock_variable, filled_by, prefer
from prefixlint.load.fill_sites import CONFIG_ROOTS, deployment_constant
from prefixlint.load.source_prompts import Field, variable_name
from prefixlint.load.template import Variable
from prefixlint.load.ts_assembly import returned_expression
from prefixlint.load.ts_callers import from_callers
from prefixlint.load.ts_clocks import factory_clock, format_frequency
from prefixlint.load.ts_grammar import source_kind, walk
from prefixlint.load.ts_names import segments
from prefixlint.load.ts_requests import request_read, request_variable
from prefixlint.load.ts_scopes import FUNCTIONS, Binding, Scopes, evaluated, in_function, node_key

DAY_METHODS = {"toLocaleDateString", "toDateString"}
YEAR_METHODS = {"getFullYear", "getUTCFullYear", "getMonth", "getYear"}
#: First names of a TS/JS value the deployment sets: Python's roots less those that are per call
#: in TS/JS code (`args` and `options` of a tool handler or a function), with Node's `process.env`.
TS_CONFIG_ROOTS = (CONFIG_ROOTS - {"args", "options", "opts", "os", "environ", "getenv"}) | {"process", "Deno"}
_LITERALS = frozenset({"string", "number", "true", "false"})
_DEPTH = 4


class FillSites:
    def __init__(self, text: str, path: str = "") -> None:
        self.text = text
        self.path = path
        data = text.encode("utf-8")
        self._chars: list[int] | None = None
        if len(data) != len(text):  # byte offsets -> character offsets
            self._chars = [0] * (len(data) + 1)
            at = 0
            for index, char in enumerate(text):
                width = len(char.encode("utf-8"))
                for b in range(width):
                    self._chars[at + b] = index
                at += width
            self._chars[at] = len(text)
        self.touched: list[tuple] = []  # the literals a prompt's text was read from
        self.arguments: dict[tuple, Any] = {}  # a parameter's identifier -> the argument of the call read (`applied`)
        self.root: Any = None
        self.hops = 0  # the modules followed to read this one's text (`ts_imports`)
        self._scopes: Scopes | None = None

    _walk = staticmethod(walk)
    segments = staticmethod(segments)

    def at(self, byte: int) -> int:
        return self._chars[byte] if self._chars is not None else byte

    def written(self, node) -> str:
        return self.text[self.at(node.start_byte) : self.at(node.end_byte)]

    @property
    def scopes(self) -> Scopes:
        if self._scopes is None:
            self._scopes = Scopes(self.root, source_kind(self.path)[1])
        return self._scopes

    def binding(self, node) -> Binding | None:
        """The declaration the identifier `node` reads where it is written (`ts_scopes`)."""
        return self.scopes.resolve(node) if self.root is not None else None

    def bound(self, node):
        """The declarator of the variable the identifier `node` reads, when declared by its whole
        name (`const x = ...`); None for a parameter, an import, a pattern, a global."""
        binding = self.binding(node)
        return binding.declarator if binding is not None else None

    def given(self, binding):
        """The argument a parameter is bound to while a call's text is read (`applied`), else None."""
        return self.arguments.get(node_key(binding.node)) if binding is not None and binding.kind == "parameter" else None

    def function_of(self, node):
        """The function the identifier `node` names (`function f`, `const f = () => ...`), else None."""
        binding = self.binding(node)
        if binding is None:
            return None
        if binding.kind == "function" and binding.holder.type in FUNCTIONS:
            return binding.holder
        value = binding.value
        return value if value is not None and value.type in FUNCTIONS else None

    def iterated(self, name):
        """The collection a loop variable walks (`memories` for `mem` in `for (const mem of memories)`):
        an element of a list is named by its list."""
        binding = self.binding(name) if name is not None and name.type == "identifier" else None
        return binding.holder.child_by_field_name("right") if binding is not None and binding.kind == "loop" else None

    # -- placeholders -----------------------------------------------------------------------------
    def field(self, expression, where=None) -> Field:
        where = where or expression
        offset, written = self.at(where.start_byte), self.written(where)
        segments, keyed = self.segments(self.iterated(expression) or expression)
        filled = self.fill(expression, 0) if expression is not None else None
        if expression is not None and not in_function(where) and (filled is None or filled.kind != "stable"):
            value = self.written(expression)  # a module-level template: evaluated once, at load
            return Field(offset, written, variable_name(segments, keyed), filled_by(
                filled if filled is not None and filled.kind is not None else Variable("value", "per_request", (value,)),
                value, where.start_point[0] + 1, True))
        if filled is not None and expression.type != "identifier" and self.clock(expression) is not None:
            return Field(offset, written, filled.name, filled)  # named by the call (`now`)
        name = variable_name(segments, keyed)
        if filled is None and expression is not None and (read := request_read(self, expression)) is not None:
            filled = request_variable(self, read, name)
        return Field(offset, written, name, filled)

    def fill(self, node, depth: int) -> Variable | None:
        """What fills `node`, by the code: a clock value, a deployment constant, or what the
        callers pass for a parameter; None when the code does not say."""
        if node is None or depth > _DEPTH:
            return None
        clock = self.clock(node)
        if clock is not None:
            return clock
        if node.type in ("parenthesized_expression", "as_expression", "non_null_expression", "await_expression"):
            return self.fill(node.named_children[0], depth + 1) if node.named_children else None
        if node.type == "call_expression":
            return self.called(node, depth)
        if node.type == "identifier":
            binding = self.binding(node)
            if self.function_of(node) is not None:  # `${getTime}`: the function itself, never run here
                return self.uncalled(node)
            if binding is None or binding.kind not in ("variable", "parameter", "import"):
                return None  # a global, a class: the code here does not say
            if binding.kind == "parameter":
                argument = self.given(binding)
                return self.clock(argument) if argument is not None else from_callers(self, node, depth)
            if binding.kind == "import":
                return self.at_import(binding)
            if binding.destructured:
                picked = self.destructured(binding)
                filled = self.fill(picked, depth + 1) if picked is not None else None
            else:
                filled = self.fill(binding.value, depth + 1)
            return filled if filled is not None or not _module_constant(binding, self.root) else self.at_import(binding)
        if node.type == "binary_expression" and node.child_by_field_name("operator").type in ("??", "||"):
            left = node.child_by_field_name("left")
            return self.stable(node) if config_read(left) else None
        return self.stable(node) if config_read(node) else None

    def called(self, call, depth: int) -> Variable | None:
        """What a call of a function of the file gives: the clock its returned expression reads
        (`getTime()` with `const getTime = () => new Date().toLocaleString()`), else None."""
        callee = call.child_by_field_name("function")
        function = self.function_of(callee) if callee is not None and callee.type == "identifier" else None
        returned = returned_expression(function) if function is not None else None
        found = self.clock(returned) if returned is not None else None
        if found is None:
            return None
        return Variable(found.name, found.kind, found.samples, found.line,
                        f"{found.evidence}, returned by {callee.text.decode()}()")

    def uncalled(self, node) -> Variable:
        """A function named without a call: its text is its source, the same on every request."""
        return Variable("value", "stable", (self.written(node),), node.start_point[0] + 1,
                        f"{self.written(node)} is a function, not called: its text is its own source")

    def destructured(self, binding):
        """The value a `const { name } = helper(...)` takes: the `name` property of the object
        `helper` returns (or of an object literal)."""
        pattern = binding.node.parent
        if binding.holder.type != "variable_declarator" or binding.node.type != "shorthand_property_identifier_pattern" \
                or pattern is None or node_key(pattern) != node_key(binding.holder.child_by_field_name("name")):
            return None
        value = binding.holder.child_by_field_name("value")
        while value is not None and value.type == "await_expression" and value.named_children:
            value = value.named_children[0]
        if value is not None and value.type == "call_expression":
            callee = value.child_by_field_name("function")
            function = self.function_of(callee) if callee.type == "identifier" else None
            value = returned_expression(function) if function is not None else None
        if value is not None and value.type == "object":
            for child in value.named_children:
                if child.type == "shorthand_property_identifier" and child.text == binding.node.text:
                    return _as_identifier(child, self)
                if child.type == "pair" and child.child_by_field_name("key").text == binding.node.text:
                    return child.child_by_field_name("value")
        return None

    def at_import(self, binding) -> Variable:
        """A module's `const` or an import, read anywhere: evaluated once, when the module is
        loaded, and the same on every request the process serves (as a Python module's names)."""
        holder = binding.holder if binding.kind == "import" else binding.holder.child_by_field_name("value")
        shown = self.written(holder if holder is not None else binding.node)
        return filled_by(Variable("value", "per_request", (shown,)), shown, binding.node.start_point[0] + 1, True)

    def stable(self, node) -> Variable:
        shown = self.written(node)
        value = shown[1:-1] if node.type in ("string", "template_string") else shown
        return deployment_constant(value, shown, node.start_point[0] + 1)

    def argument(self, node, depth: int) -> Variable | None:
        """What a caller's argument is: a literal or a `const` declared as one (stable), else what fills it."""
        if _literal(node):
            return self.stable(node)
        binding = self.binding(node) if node.type == "identifier" else None
        if binding is not None and binding.constant and binding.value is not None and _literal(binding.value):
            return self.stable(binding.value)  # `f(RELEASE)`, `const RELEASE = "2025-01"`: a module's constant
        return self.fill(node, depth + 1)

    def clock(self, node):
        names = []
        found = formatted = None
        for child in evaluated(node):
            if child.type == "new_expression":
                constructor = child.child_by_field_name("constructor")
                arguments = child.child_by_field_name("arguments")
                if constructor is not None and constructor.text == b"Date" and (
                        arguments is None or not arguments.named_children):
                    found = prefer(found, CLOCK_CALLS["new Date()"])
            elif child.type == "call_expression" and factory_clock(child):  # `moment()`, `dayjs()`
                found = prefer(found, CLOCK_CALLS["new Date()"])
            elif child.type == "call_expression":
                callee = child.child_by_field_name("function").text.decode()
                found = prefer(found, clock_call(callee))
                if callee.endswith(".format") and formatted is None:
                    formatted = format_frequency(child)
            elif child.type == "property_identifier":
                names.append(child.text.decode())
            elif child.type == "identifier" and child.parent is not None and child.parent.type == "member_expression" \
                    and child.parent.child_by_field_name("object") == child:  # `now.toLocaleDateString()`
                declarator = self.bound(child)
                value = declarator.child_by_field_name("value") if declarator is not None else None
                if value is not None and value.type == "new_expression" and value.text == b"new Date()":
                    found = prefer(found, CLOCK_CALLS["new Date()"])
        if found is None:
            return None
        name, frequency, generate = found
        if DAY_METHODS & set(names) or "toISOString" in names and {"split", "slice", "substring"} & set(names):
            frequency, generate = "per_day", "iso_date"
        if YEAR_METHODS & set(names):
            frequency = "per_deployment"
        if formatted is not None and formatted != "per_request":  # `moment().format('YYYY-MM-DD')`
            frequency, generate = formatted, "iso_date" if formatted == "per_day" else generate
        return filled_by(clock_variable(name, frequency, generate), self.written(node), node.start_point[0] + 1,
                         not in_function(node))


def _module_constant(binding, root) -> bool:
    """Whether `binding` is a `const` of the module's top level bound to a value, not to a
    container that code fills while the process runs (`const history = []`, `new Map()`)."""
    value = binding.holder.child_by_field_name("value") if binding.holder.type == "variable_declarator" else None
    return binding.constant and node_key(binding.scope) == node_key(root) and value is not None and \
        value.type not in ("array", "object", "new_expression")


def _literal(node) -> bool:
    return node.type in _LITERALS or node.type == "template_string" and not any(
        c.type == "template_substitution" for c in node.named_children)


def config_read(node) -> bool:
    """Whether `node` reads the deployment's configuration: `process.env.X`, `env.X`, `config.get('x')`."""
    if node is None:
        return False
    if node.text.startswith(b"import.meta.env"):
        return True
    while node.type in ("member_expression", "subscript_expression", "call_expression", "non_null_expression"):
        inner = node.child_by_field_name("function" if node.type == "call_expression" else "object")
        if inner is None:
            inner = node.named_children[0] if node.named_children else None
        if inner is None:
            return False
        if inner.type == "identifier" and inner.text == b"process":
            return node.type == "member_expression" and node.child_by_field_name("property").text == b"env"
        node = inner
    return node.type == "identifier" and node.text.decode() in TS_CONFIG_ROOTS and node.text != b"process"


def _as_identifier(shorthand, sites):
    """A shorthand property `{ now }` read as the identifier `now` where it is written."""
    declarator = sites.bound(shorthand)
    return declarator.child_by_field_name("value") if declarator is not None else None
