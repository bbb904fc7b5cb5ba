"""Chat templates rendered as transformers' `apply_chat_template` renders them, with a fixed clock.

The environment, filters, globals and input conversion are transformers' own
(`prefixlint.render.chat_env`, compared byte for byte with transformers in the tests), so no
transformers import is needed. The clock is controlled where transformers defines it: for the
duration of one render, the compiled template's own globals map `strftime_now` to a function
that reads a fixed datetime. That function also records the template line each call came from
(found by walking up to the compiled template's frame), which is where a date-injecting
template takes its date.

jinja2 is imported inside these functions only: `prefixlint --help` must stay light.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from types import FrameType
from typing import Any, Iterator, Mapping, Sequence

from prefixlint.errors import PrefixlintError, TemplateRenderError
from prefixlint.limits import MAX_OUTPUT_CHARS
from prefixlint.render.chat_env import compile_chat_template, template_context
from prefixlint.sandbox import time_limit


def compiled_template(source: str):
    """The compiled (sandboxed, cached) chat template for `source`."""
    try:
        return compile_chat_template(source)
    except PrefixlintError:
        raise
    except Exception as exc:  # TemplateSyntaxError and friends
        error = template_error(exc, "the chat template does not compile")
        if getattr(exc, "lineno", None) is not None and type(exc).__name__ == "TemplateSyntaxError":
            # where the fix goes, as for any template: an unclosed block at the tag that opens it
            from prefixlint.render.jinja_syntax import syntax_location

            line, _, hint = syntax_location(source, exc)
            if hint and line:
                error = TemplateRenderError(f"the chat template does not compile (template line {line}): "
                                            f"{type(exc).__name__}: {exc}", template_line=line, hint=hint)
        raise error from None


def template_line(exc: BaseException) -> int | None:
    """The template line an exception was raised at (jinja2 rewrites tracebacks to them)."""
    line = getattr(exc, "lineno", None)
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        else:
            found = frame.f_globals.get("__jinja_template__")
            if found is not None:
                line = found.get_corresponding_lineno(tb.tb_lineno)
        tb = tb.tb_next
    return line


def template_error(exc: BaseException, what: str) -> TemplateRenderError:
    line = template_line(exc)
    where = f" (template line {line})" if line else ""
    return TemplateRenderError(f"{what}{where}: {type(exc).__name__}: {exc}", template_line=line)


def _caller_template_line() -> int | None:
    frame: FrameType | None = sys._getframe(2)
    while frame is not None:
        template = frame.f_globals.get("__jinja_template__")
        if template is not None:
            return template.get_corresponding_lineno(frame.f_lineno)
        frame = frame.f_back
    return None


@contextmanager
def fixed_clock(template, now: datetime, calls: list[int | None]) -> Iterator[None]:
    """Make `strftime_now` in `template` read `now`, recording each call's template line."""

    def strftime_now(format: str) -> str:
        calls.append(_caller_template_line())
        return now.strftime(format)

    namespace = template.globals  # a ChainMap over the environment's globals (jinja2 >= 3)
    missing = object()
    previous = namespace.get("strftime_now", missing)
    namespace["strftime_now"] = strftime_now
    try:
        yield
    finally:
        if previous is missing:
            del namespace["strftime_now"]
        else:
            namespace["strftime_now"] = previous


@dataclass(frozen=True)
class JinjaRender:
    """One render of a Jinja chat template, as transformers' `render_jinja_template` takes it."""

    source: str
    messages: Sequence[Mapping[str, Any]]
    tools: Sequence[Mapping[str, Any]] | None
    add_generation_prompt: bool
    special_tokens: Mapping[str, Any]  # bos_token, eos_token, ... as template variables
    now: datetime  # what `strftime_now` reads


def render_template(render: JinjaRender) -> tuple[str, tuple[int, ...]]:
    """The rendered text, and the template lines where `strftime_now` was called."""
    template = compiled_template(render.source)
    context = template_context(render.messages, render.tools, render.add_generation_prompt, render.special_tokens)
    calls: list[int | None] = []
    with fixed_clock(template, render.now, calls):
        try:
            with time_limit():
                rendered = template.render(**context)
        except Exception as exc:  # raise_exception, undefined attributes, type errors in templates
            raise template_error(exc, "the chat template failed") from None
    return rendered, tuple(sorted({line for line in calls if line}))


def trace_template(render: JinjaRender) -> list[tuple[int, int]]:
    """(char offset, template line) for each piece of output, in order.

    Renders the same compiled template chunk by chunk (jinja2's root render generator), and
    reads the template line each chunk was yielded from. Output built inside a macro is
    attributed to the line that calls it.
    """
    template = compiled_template(render.source)
    context = template_context(render.messages, render.tools, render.add_generation_prompt, render.special_tokens)
    origins: list[tuple[int, int]] = []
    offset = 0
    with fixed_clock(template, render.now, []):
        generator = template.root_render_func(template.new_context(context))
        try:
            with time_limit():
                for chunk in generator:
                    frame = generator.gi_frame
                    line = template.get_corresponding_lineno(frame.f_lineno) if frame else 0
                    if chunk:
                        origins.append((offset, line))
                        offset += len(chunk)
                        if offset > MAX_OUTPUT_CHARS:
                            raise OverflowError(f"the output grows past {MAX_OUTPUT_CHARS:,} characters")
        except Exception as exc:
            raise template_error(exc, "the chat template failed") from None
    return origins


def line_at(origins: Sequence[tuple[int, int]], char_offset: int) -> int | None:
    """The template line that produced the character at `char_offset`."""
    found = None
    for start, line in origins:
        if start > char_offset:
            break
        found = line
    return found
