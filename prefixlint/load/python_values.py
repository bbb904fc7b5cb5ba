"""What a Python expression in a prompt is: the text it builds, or the value a placeholder takes.

`Resolver.text(node)` follows a prompt's text through what Python code does to it: string
literals and f-strings (scanned by `source_literals` for exact positions), names bound in the
module, `+`, `"\\n".join([...])` (or a list the function builds: `python_lists`), `.format(...)`, `%`,
`string.Template(...).substitute(...)`, `textwrap.dedent`, `.strip()`, pydantic `Field(default=...)`.
`Resolver.field(node)` makes the placeholder a value becomes, by its fill site (a clock, `uuid4()`,
`random` call; at import: per process; configuration and callers: `fill_sites`), else by its words.
"""

from __future__ import annotations

import ast
from bisect import bisect_right
from dataclasses import replace
from functools import cached_property, lru_cache
from typing import Any

from prefixlint.load import fill_sites as fills
from prefixlint.load import python_arguments as arguments
from prefixlint.load.computed import clock_call, clock_variable, filled_by, prefer
from prefixlint.load.python_imports import imported_text, imported_value
from prefixlint.load.python_lists import joined_items
from prefixlint.load.python_runs import function_lines
from prefixlint.load.python_scopes import Scopes
from prefixlint.load.python_templates import FILL_METHODS, fill_arguments, template_imports, template_kind
from prefixlint.load.python_walk import calls, dotted, segments_of, statements, store_counts
from prefixlint.load.source_literals import RawField, scan
from prefixlint.load.source_prompts import Field, Text, stable_variable, variable_name
from prefixlint.load.source_text import dedent_pieces, strip_pieces, template_fields
from prefixlint.load.template import Variable, line_starts

_DEPTH = 8


class Resolver:
    def __init__(self, text: str, tree: ast.Module, path: str | None = None) -> None:
        self.source, self.tree, self.path, self.hops = text, tree, path, 0  # hops: `python_imports`
        self._line_starts = line_starts(text)
        self.used: set[int] = set()  # ids of the string nodes already in a prompt
        self.touched: list[int] = []  # ids of the string nodes the last texts read
        #: `X.format(...)` calls by the lower-case last name of X (`prompts.SYSTEM_PROMPT.format`)
        self.format_calls: dict[str, ast.Call] = {}
        self.statements = list(statements(tree))
        self.function_lines = function_lines(tree)  # an expression outside them runs once, at import
        self.script = fills.sends_at_top_level(tree)  # ... unless the module's top level sends the request
        self.calls = calls(text, tree)
        self.template_imports = template_imports(tree)
        #: `X.render(...)` / `X.substitute(...)` calls of template objects, by X's lower-case last name
        self.render_calls: dict[str, ast.Call] = {}
        for node in self.calls:
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, (ast.Name, ast.Attribute)):
                calls_of = self.format_calls if node.func.attr == "format" else self.render_calls \
                    if node.func.attr in ("render", "substitute", "safe_substitute") else None
                if calls_of is not None:
                    calls_of.setdefault(dotted(node.func.value).rsplit(".", 1)[-1].lower(), node)
        self.scopes = Scopes(tree, self.offset)  # what a name reads, by Python's scoping rules
        self._lowered = {name.lower(): v for name in self.scopes.attributes if (v := self.scopes.attribute(name))}

    @cached_property
    def stores(self) -> dict[str, int]:
        """How many times the module binds each name (`python_walk.store_counts`), counted once."""
        return store_counts(self.tree)

    # -- positions --------------------------------------------------------------------------
    def offset(self, line: int, column: int) -> int:
        """File character offset of an `ast` (line, UTF-8 byte column)."""
        start = self._line_starts[line - 1]
        text = self.source[start : start + column]
        if not text.isascii():
            encoded = self.source[start : start + column * 4].encode()[:column]
            return start + len(encoded.decode("utf-8", errors="ignore"))
        return start + column

    def line(self, offset: int) -> int:
        """The line (from 1) of a file character offset."""
        return bisect_right(self._line_starts, offset)

    def span(self, node: ast.expr | ast.stmt) -> tuple[int, int]:
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno or node.lineno, node.end_col_offset or 0)

    # -- names ------------------------------------------------------------------------------
    def bound(self, node: ast.AST, at: int | None = None) -> ast.expr | None:
        """What a name, read where it is (or at the file offset `at`: an f-string field's), or
        `obj.attr` / `module.NAME` (any case) is bound to in this module (`python_scopes`)."""
        if isinstance(node, ast.Name):
            return self.scopes.lookup(node.id, self.offset(node.lineno, node.col_offset) if at is None else at)
        if isinstance(node, ast.Attribute):
            return self.scopes.attribute(node.attr) or self._lowered.get(node.attr.lower())
        return None

    # -- texts ------------------------------------------------------------------------------
    def text(self, node: ast.AST | None, style: str = "plain", depth: int = 0) -> list | None:
        """The pieces of the text `node` evaluates to, or None when it is not a text we can read."""
        if node is None or depth > _DEPTH:
            return None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) or isinstance(node, ast.JoinedStr):
            start, end = self.span(node)
            raw = scan(self.source, start, end)
            if raw is None:
                return None
            self.used.add(id(node))
            self.touched.append(id(node))
            pieces: list = []
            for piece in raw:
                pieces += self.raw_field(piece, depth) if isinstance(piece, RawField) else [piece]
            return template_fields(pieces, style, self.source) if style != "plain" else pieces
        if isinstance(node, (ast.Name, ast.Attribute)):
            bound = self.bound(node)
            return self.text(bound, style, depth + 1) if bound is not None else imported_text(self, node, depth)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            left, right = self.text(node.left, style, depth + 1), self.text(node.right, style, depth + 1)
            if left is None and right is None:
                return None
            return (left if left is not None else [self.field(node.left)]) + (
                right if right is not None else [self.field(node.right)])
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
            return self.formatted(node.left, "percent", node.right, depth)
        if isinstance(node, ast.Call):
            return self._call_text(node, style, depth)
        return None

    def _call_text(self, node: ast.Call, style: str, depth: int) -> list | None:
        name = dotted(node.func)
        method = name.rsplit(".", 1)[-1]
        receiver = node.func.value if isinstance(node.func, ast.Attribute) else None
        first = node.args[0] if node.args else None
        if method == "format" and receiver is not None:
            return self.formatted(receiver, "format", node, depth)
        kind = template_kind(self.template_imports, node)
        if kind is not None:  # `jinja2.Template(text)`, `string.Template(text)`: fields of its own syntax
            return self.text(first, "plain" if style == "plain" else kind, depth + 1)
        if method in ("render", "substitute", "safe_substitute") and receiver is not None:
            made = receiver if isinstance(receiver, ast.Call) else self.bound(receiver)
            kind = template_kind(self.template_imports, made)
            if kind is not None and isinstance(made, ast.Call) and method in FILL_METHODS[kind]:
                return self.formatted(made.args[0], kind, fill_arguments(node), depth)
        if method == "dedent":
            pieces = self.text(first, style, depth + 1)
            return dedent_pieces(pieces) if pieces is not None else None
        if method in ("strip", "lstrip", "rstrip") and receiver is not None and not node.args:
            pieces = self.text(receiver, style, depth + 1)
            return strip_pieces(pieces, method != "rstrip", method != "lstrip") if pieces is not None else None
        if method == "join" and isinstance(receiver, ast.Constant) and (items := joined_items(self, first)) is not None:
            separator = self.text(receiver, "plain", depth + 1) or []
            out: list = []
            for number, item in enumerate(items):
                out += (separator if number else []) + (self.text(item, style, depth + 1) or [self.field(item)])
            return out
        if method == "Field":
            default = next((k.value for k in node.keywords if k.arg == "default"), first)
            return self.text(default, style, depth + 1)
        return None

    def formatted(self, template: ast.AST, style: str, arguments: Any, depth: int, filler=None) -> list | None:
        """`template.format(...)`, `template % (...)`, `Template(template).substitute(...)`;
        `filler`: the call is in another module (`python_modules.Fill`), its values read there. Not
        an imported template: its own module is measured, with this call's values (`fill_elsewhere`)."""
        imported = isinstance(template, (ast.Name, ast.Attribute)) and self.bound(template) is None
        pieces = None if imported and filler is None else self.text(template, "plain", depth + 1)
        if pieces is None:
            return None
        named: dict[Any, ast.expr] = {}  # a dict literal's keys: any constant
        positional: list[ast.expr] = []
        if isinstance(arguments, ast.Call):
            named = {k.arg: k.value for k in arguments.keywords if k.arg}
            positional = list(arguments.args)
        elif isinstance(arguments, ast.Dict):
            named = {k.value: v for k, v in zip(arguments.keys, arguments.values) if isinstance(k, ast.Constant)}
        elif isinstance(arguments, ast.Tuple):
            positional = list(arguments.elts)
        elif arguments is not None:
            positional = [arguments]
        if filler is not None:
            return template_fields(pieces, style, self.source,
                                   named=lambda name: filler.declared(named[name], name) if name in named else None)
        return template_fields(
            pieces, style, self.source,
            positional=lambda i: self.field(positional[i]) if i < len(positional) else None,
            named=lambda name: self.declared(named[name], name) if name in named else None)

    # -- values -----------------------------------------------------------------------------
    def raw_field(self, raw: RawField, depth: int) -> list:
        """An f-string field: the text it inlines (another prompt constant) or one Field."""
        written = self.source[raw.start : raw.end]
        try:
            node = _field_expression(raw.expression.strip())
        except SyntaxError:
            return [Field(raw.start, written, variable_name([raw.expression]))]
        computed = isinstance(node, ast.Name) and fills.computed_here(self, node.id, raw.start)
        if isinstance(node, (ast.Name, ast.Attribute)) and not computed:  # another text of the module (or an
            bound = self.bound(node, raw.start)  # imported one): its words
            inlined = self.text(bound, "plain", depth + 2) if bound is not None else imported_text(self, node, depth, raw.start)
            if inlined is not None:
                return inlined
        return [self.field(node, raw.start, written, raw.spec)]

    def field(self, node: ast.expr, offset: int | None = None, written: str = "", spec: str = "") -> Field:
        if offset is None:
            offset, end = self.span(node)
            written = self.source[offset:end]
        clock = self.clock(node, spec, (offset, written or ""))  # the field's place
        bound = self.bound(node, offset) if isinstance(node, ast.Name) else None
        if clock is None and bound is not None:
            clock = self.clock(bound)
        segments, keyed = segments_of(node)
        if clock is not None:  # named by the code's own name for it (`today`), else by the call
            return Field(offset, written, variable_name(segments) if isinstance(node, ast.Name) else clock.name, clock)
        line = self.line(offset)
        at_import = bound if bound is not None and not self.in_function(bound.lineno) else None
        if at_import is not None or not self.in_function(line):  # evaluated once per process, at import
            value = self.source[slice(*self.span(at_import))] if at_import is not None else written or ""
            variable = filled_by(Variable("value", "per_request", (value,)), value, at_import.lineno if at_import else line, True)
            if at_import is None and isinstance(node, (ast.Name, ast.Attribute)) and self.bound(node, offset) is None:
                variable = replace(variable, unknown=True, evidence=f"{value}: its text is not in this module, unknown"
                                   " (the same on every request: read once, at import)")
            return Field(offset, written, variable_name(segments, keyed), variable)
        found = imported_value(self, node, "value") if bound is None else None  # `from config import MAX`
        found = found or (arguments.from_callers(self, node, line, parameter=True) if isinstance(node, ast.Name) else None)
        return Field(offset, written, variable_name(segments, keyed), found)

    def declared(self, node: ast.expr, name: str = "value"):
        """The variable a `.format()` argument declares for the field `name`: clock or random
        values, the conversation's state, stable texts."""
        clock = self.clock(node)
        if clock is None and isinstance(node, ast.Name) and (bound := self.bound(node)) is not None:
            clock = self.clock(bound)
        if clock is not None:
            return clock
        state = fills.state_fill(self, node, name) or fills.conversation_fill(self, node) or fills.attribute_fill(self, node)
        if state is not None:
            return state
        pieces = self.text(node, "plain") if isinstance(node, (ast.Constant, ast.Name, ast.Attribute)) else None
        if pieces and all(isinstance(p, Text) for p in pieces):
            return stable_variable("value", "".join(p.chars for p in pieces))
        stable = fills.stable_fill(self, node)  # settings, the environment, CLI options, literals
        if stable is not None or not isinstance(node, ast.Name):
            return stable
        return arguments.parameter_fill(self, node, node.lineno) or arguments.local_fill(self, node)

    def clock(self, node: ast.AST, spec: str = "", where: tuple[int, str] | None = None, outer: tuple = ()):
        """The variable of an expression that calls the clock, a UUID or a random source, directly
        or through the local names it reads (`day = now.strftime(...)` after `now = datetime.now()`;
        `outer`: the expressions on the way, whose `.strftime()` / `.date()` / `.year` apply).
        `where`: (file offset, text) of an f-string field, whose parsed `node` has no file position."""
        found, call = None, None
        for candidate in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            chosen = prefer(found, clock_call(dotted(candidate.func)))
            found, call = (chosen, candidate) if chosen is not found else (found, call)
        if found is not None and call is not None:
            name, frequency, generate = found
            path = dotted(call.func)
            strftime = spec if "%" in spec else None
            for around in (n for tree in (*outer, node) for n in ast.walk(tree)):
                method = around.func.attr if isinstance(around, ast.Call) and isinstance(around.func, ast.Attribute) else None
                if method == "strftime":
                    fmt = around.args[0] if isinstance(around, ast.Call) and around.args else None
                    if isinstance(fmt, ast.Constant) and isinstance(fmt.value, str):
                        strftime = fmt.value
                elif method == "date" and frequency == "per_request":
                    frequency, generate = "per_day", "iso_date"
                elif method == "format" and name == "now" and path.startswith(("arrow.", "pendulum.")) and \
                        isinstance(around, ast.Call) and around.args and isinstance(around.args[0], ast.Constant) \
                        and isinstance(around.args[0].value, str):  # `arrow.now().format('YYYY-MM-DD')`
                    from prefixlint.load.ts_clocks import token_frequency

                    frequency = token_frequency(around.args[0].value)
                    generate = "iso_date" if frequency == "per_day" else generate
                elif isinstance(around, ast.Attribute) and around.attr in ("year", "month", "tzinfo") or \
                        method in ("utcoffset", "tzname", "dst"):  # the zone's offset or name: no time
                    frequency = "per_deployment"
            if strftime:
                from prefixlint.load.classify import strftime_frequency

                frequency = strftime_frequency(strftime)
            line, written = (self.line(where[0]), where[1]) if where else (call.lineno, self.source[slice(*self.span(call))])
            return filled_by(clock_variable(name, frequency, generate, strftime), written.strip("{}"), line,
                             self.runs_once(line))
        for name_node in (n for n in ast.walk(node) if isinstance(n, ast.Name) and len(outer) < 3):
            at = where[0] if where else self.offset(name_node.lineno, name_node.col_offset)
            for value in fills.assigned_before(self, name_node.id, at):
                found = self.clock(value, spec, None, (*outer, node))
                if found is not None:
                    return found
        return None

    def in_function(self, line: int) -> bool:
        return self.script or self.function_lines.holds(line)

    def runs_once(self, line: int) -> bool | str:
        """True at import; the name of a function whose result is cached (`python_runs`)."""
        return not self.in_function(line) or (not self.script and self.function_lines.once(line)) or False


@lru_cache(maxsize=4096)
def _field_expression(expression: str) -> ast.expr:
    """An f-string field's expression, parsed once per text (a module is loaded again for each
    prompt's fix, issue 19 item 9); its nodes are only read."""
    return ast.parse("(" + expression + "\n)", mode="eval").body
