"""Render Jinja2 templates in the sandbox, recording the span of every `{{ ... }}` output.

Each output expression is wrapped (an AST pass) between two private-use marker strings that
carry the placeholder's index; after rendering, the markers are removed and their positions
become `Span`s. Placeholder positions come from the template's `variable_begin` tokens
(`env.lex`), mapped through the message's offsets to the file's line and column. Templates
are untrusted: only `ImmutableSandboxedEnvironment` with `StrictUndefined` renders them, and
a sandbox violation or an undefined variable is a PrefixlintError at its line.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Callable, Mapping

from prefixlint.errors import PrefixlintError
from prefixlint.load.template import Message, Template, line_starts, source_location
from prefixlint.render.spans import Placeholder, RenderedMessage, Span
from prefixlint.sandbox import MAX_OUTPUT_CHARS, RenderTimeout, environment, output_limit, time_limit

OPEN, SEP, CLOSE = "\ue000", "\ue001", "\ue002"
_MARK = re.compile(f"{OPEN}(\\d+){SEP}|{CLOSE}")
_FILENAME = "<prefixlint template>"
_JINJA_SYNTAX = re.compile(r"\{[{%#]")
_NOT_CODE = re.compile(r"\{%-?\s*raw\s*-?%\}.*?\{%-?\s*endraw\s*-?%\}|\{#.*?#\}", re.DOTALL)


class JinjaTemplate:
    def __init__(self, template: Template) -> None:
        self.template = template
        self.placeholders: tuple[Placeholder, ...] = ()
        self._compiled = []
        variables: dict[str, None] = {}
        functions: dict[str, None] = {}
        placeholders: list[Placeholder] = []
        for number, message in enumerate(template.messages):
            compiled, found, free, calls = self._compile(number, message, len(placeholders))
            self._compiled.append(compiled)
            placeholders += found
            variables.update(dict.fromkeys(sorted(free - calls)))
            functions.update(dict.fromkeys(sorted(calls)))
        self.placeholders = tuple(placeholders)
        self.variables = tuple(variables)
        self.functions = tuple(functions)

    def _error(self, message: Message, text: str, line: int | None, hint: str | None = None,
               column: int | None = None) -> PrefixlintError:
        where = source_location(self.template, message, line, column or 1) if line else (None, None)
        return PrefixlintError(text, path=self.template.path, line=where[0], column=where[1] if column else None,
                               hint=hint)

    def _compile(self, number: int, message: Message, first: int):
        from jinja2 import TemplateError, TemplateSyntaxError, nodes

        source = message.content
        if not _JINJA_SYNTAX.search(source):  # plain text renders to itself: nothing to compile
            return None, [], set(), set()
        env = environment()
        if OPEN in source or CLOSE in source:
            raise self._error(message, "template contains private-use characters U+E000/U+E002", 1)
        try:
            ast = env.parse(source)
            begins = [(line, value) for line, kind, value in env.lex(source) if kind == "variable_begin"]
        except TemplateSyntaxError as exc:
            from prefixlint.render.jinja_syntax import syntax_location

            line, column, hint = syntax_location(
                source, exc, lambda at, column: source_location(self.template, message, at, column))
            raise self._error(message, f"Jinja syntax error: {exc.message}", line, hint, column) from None
        outputs: list[tuple[int, nodes.Expr]] = []  # (index, expression), in source order
        for output in ast.find_all(nodes.Output):
            wrapped: list[nodes.Expr] = []
            for child in output.nodes:
                if isinstance(child, nodes.TemplateData):
                    wrapped.append(child)
                    continue
                index = first + len(outputs)
                outputs.append((index, child))
                wrapped += [nodes.Const(f"{OPEN}{index}{SEP}"), child, nodes.Const(CLOSE)]
            output.nodes = wrapped
        from prefixlint.render.jinja_filters import drop_unknown_filters

        drop_unknown_filters(env, ast)  # the application's own filters (`env.filters["xml_text"] = ...`)
        try:
            compiled, undeclared = _generate(env, ast, f"{self.template.path}#{number}")
        except TemplateError as exc:  # an unknown filter or test, `loop` assigned, a constant that fails
            text = getattr(exc, "message", None) or str(exc)
            raise self._error(message, f"Jinja template error: {text}", getattr(exc, "lineno", None)) from None
        # Jinja's own globals (range, dict, namespace, cycler ...) are not template variables.
        free = undeclared - set(env.globals)
        offsets = _begin_offsets(source, begins)
        found = [self._placeholder(number, message, index, expr, offsets, local, free)
                 for local, (index, expr) in enumerate(outputs)]
        calls = {call for p in found for call in p.calls}
        for call in ast.find_all(nodes.Call):
            if isinstance(call.node, nodes.Name):
                calls.add(call.node.name)
        return compiled, found, free, calls & free

    def _placeholder(self, number, message, index, expr, offsets, local, free) -> Placeholder:
        from jinja2 import nodes

        source = message.content
        if len(offsets) > local and offsets[local] is not None:
            start = offsets[local]
        else:  # fall back to the start of the expression's line
            start = sum(len(line) + 1 for line in source.split("\n")[: expr.lineno - 1])
        end = source.find("}}", start)
        text = source[start : end + 2] if end >= 0 else source[start : start + 40]
        names = tuple(dict.fromkeys(n.name for n in _walk(expr, nodes.Name) if n.name in free))
        calls, args = [], []
        for call in _walk(expr, nodes.Call):
            if isinstance(call.node, nodes.Name):
                calls.append(call.node.name)
            elif isinstance(call.node, nodes.Getattr):
                calls.append(call.node.attr)
            args += [a.value for a in call.args if isinstance(a, nodes.Const) and isinstance(a.value, str)]
        if isinstance(expr, nodes.Call) and not calls:
            calls.append("call")
        offset = message.file_offset(start)
        line, column = self.template.position(offset)
        return Placeholder(index, number, text, offset, line, column,
                           tuple(n for n in names if n not in calls), tuple(calls), tuple(args), start)

    def render(self, values: Mapping[str, Any], functions: Mapping[str, Callable]) -> tuple[RenderedMessage, ...]:
        from jinja2 import TemplateError
        from jinja2.exceptions import SecurityError

        context = {**functions, **values}
        rendered = []
        for message, compiled in zip(self.template.messages, self._compiled):
            if compiled is None:
                rendered.append(RenderedMessage(message.role, _newlines(message.content), ()))
                continue
            try:
                with time_limit():
                    raw = self._rendered(compiled, context)
            except RenderTimeout as exc:
                raise self._error(message, f"cannot render: {exc}", _template_line(exc),
                                  "a loop in the template runs too long") from None
            except output_limit() as exc:
                raise self._error(message, f"cannot render: {exc}", _template_line(exc),
                                  "a prompt template does not need outputs this large") from None
            except SecurityError as exc:
                raise self._error(message, f"template tries to reach Python internals, refused by the sandbox: {exc}",
                                  _template_line(exc)) from None
            except TemplateError as exc:
                hint = None
                if "is undefined" in str(exc) and self.template.declares_variables:
                    hint = "declare it under `variables`"
                elif "has no attribute" in str(exc):
                    hint = "give the variable `samples` shaped the way the template uses it (a mapping, a list)"
                raise self._error(message, f"cannot render: {exc}", _template_line(exc), hint) from None
            except (TypeError, ValueError, ArithmeticError, LookupError, AttributeError) as exc:
                raise self._error(message, f"cannot render: {type(exc).__name__}: {exc}", _template_line(exc)) from None
            if len(raw) > MAX_OUTPUT_CHARS:
                raise self._error(message, f"the template renders to more than {MAX_OUTPUT_CHARS:,} characters", None)
            rendered.append(unmark(message.role, raw))
        return tuple(rendered)


    def _rendered(self, compiled, context) -> str:
        """The message rendered; where the format's runtime reads a missing attribute as nothing
        (a loader's `lenient_attributes`: a sample `customer: Jane` read as `customer.firstName`),
        rendered again that way."""
        from jinja2 import UndefinedError

        from prefixlint.load.registry import loader_for

        try:
            return compiled.render(context)
        except UndefinedError as exc:
            loader = loader_for(self.template.format)
            if "has no attribute" not in str(exc) or not loader.lenient_attributes:
                raise
        return _lenient(compiled).render(context)


def _newlines(text: str) -> str:
    """Line breaks as Jinja renders them (newline_sequence "\\n")."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _generate(env, ast, name: str):
    """Compile `ast` once, collecting the names it reads but never assigns on the way (what
    jinja2.meta.find_undeclared_variables does with a second code-generation pass)."""
    from io import StringIO

    stream = StringIO()
    generator = _tracking_generator()(env, name, _FILENAME, stream, False, env.optimized)
    try:
        generator.visit(ast)
    except Exception as exc:  # jinja2 folds constants while generating: `'a'.role` fails here
        if getattr(exc, "lineno", None) is None:
            exc.lineno = generator.line  # type: ignore[attr-defined]
        raise
    code = compile(stream.getvalue(), _FILENAME, "exec")
    compiled = env.template_class.from_code(env, code, env.make_globals(None), None)
    compiled.prefixlint_code = code  # for a lenient render of the same code (`_lenient`)
    return compiled, generator.undeclared


def _lenient(compiled):
    """The same compiled template, in the sandbox whose missing attribute renders as nothing
    (`Undefined`): how a format's own runtime renders it (Prompty's jinja2 is not strict)."""
    env = environment(strict=False)
    return env.template_class.from_code(env, compiled.prefixlint_code, env.make_globals(None), None)


@lru_cache(maxsize=1)
def _tracking_generator():
    """jinja2's code generator, recording every name a frame resolves from the context (the
    class is made once, on first use: jinja2 is imported only when a template is compiled)."""
    from prefixlint.sandbox import environment

    class TrackingGenerator(environment().code_generator_class):  # type: ignore[name-defined, misc]
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.undeclared: set[str] = set()
            self.line: int | None = None  # of the node being generated, for errors

        def visit(self, node, *args, **kwargs):
            self.line = getattr(node, "lineno", None) or self.line
            return super().visit(node, *args, **kwargs)

        def enter_frame(self, frame) -> None:
            super().enter_frame(frame)
            for _, (action, param) in frame.symbols.loads.items():
                if action == "resolve":
                    self.undeclared.add(param)

    return TrackingGenerator


def _walk(expr, node_type):
    """`expr` itself and every node below it of `node_type`."""
    if isinstance(expr, node_type):
        yield expr
    yield from expr.find_all(node_type)


def _begin_offsets(source: str, begins: list[tuple[int, str]]) -> list[int | None]:
    """Content offset of each `{{` token the lexer saw, found in order on its line."""
    starts = line_starts(source)
    # `{{` inside raw blocks and comments is text, not a placeholder: blank it out (same length).
    source = _NOT_CODE.sub(lambda m: " " * len(m.group()), source)
    cursor, offsets = 0, []
    for line, value in begins:
        at = source.find(value, max(cursor, starts[min(line, len(starts)) - 1]))
        offsets.append(at if at >= 0 else None)
        if at >= 0:  # go on after this expression's `}}` (a string in it may hold `{{`)
            end = source.find("}}", at + len(value))
            cursor = end + 2 if end >= 0 else at + len(value)
    return offsets


def _template_line(exc: BaseException) -> int | None:
    """The template line of the innermost traceback frame inside the compiled template."""
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == _FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line if line is not None else getattr(exc, "lineno", None)


def unmark(role: str | None, raw: str) -> RenderedMessage:
    """Remove the markers from a render, turning them into spans (nested spans allowed).

    Spans come in the order their placeholders started output (document order).
    """
    parts: list[str] = []
    opened: list[list[int]] = []  # [placeholder, start, end] in opening order
    stack: list[int] = []
    length, last = 0, 0
    for match in _MARK.finditer(raw):
        piece = raw[last : match.start()]
        parts.append(piece)
        length += len(piece)
        last = match.end()
        if match.group(1) is not None:
            stack.append(len(opened))
            opened.append([int(match.group(1)), length, -1])
        elif stack:
            opened[stack.pop()][2] = length
    parts.append(raw[last:])
    spans = tuple(Span(index, start, end) for index, start, end in opened if end >= 0)
    return RenderedMessage(role, "".join(parts), spans)
