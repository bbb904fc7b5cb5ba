"""The Jinja environment chat templates render in: transformers' `apply_chat_template` environment.

transformers (`transformers/utils/chat_template_utils.py`, `_cached_compile_jinja_template`)
compiles a chat template in an `ImmutableSandboxedEnvironment(trim_blocks=True,
lstrip_blocks=True)` with two extensions (its `AssistantTracker`, the `{% generation %}` tag,
and `jinja2.ext.loopcontrols`, `{% break %}`/`{% continue %}`), its own `tojson` filter (no HTML
escaping, `ensure_ascii=False`, `indent`/`separators`/`sort_keys`), and the globals
`raise_exception`, `strftime_now`, `dict` (a callable with `fromkeys` only) and `namespace`
(refusing `_` names). `render_jinja_template` then rebuilds every input out of plain JSON types
and copies a message's reasoning under `thinking` and `reasoning_content`. This module builds
the same, on prefixlint's bounded sandbox (`prefixlint.sandbox.bounded_sandbox`, which adds
size bounds only), so checking a chat template needs jinja2 and not transformers;
`tests/render/test_chat_env_identical.py` renders every real template the tests know with both
and compares the bytes.

jinja2 is imported inside these functions only: `prefixlint --help` must stay light.
"""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime
from functools import lru_cache
from typing import Any, Mapping

#: Names a message's reasoning is passed under; the first is the one chat templates read.
REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")


def tojson(x: Any, ensure_ascii: bool = False, indent=None, separators=None, sort_keys: bool = False) -> str:
    """transformers' `tojson`: jinja2's own escapes `<`, `>`, `&` and `'` for HTML."""
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(format: str) -> str:
    return datetime.now().strftime(format)


def raise_exception(message: str):
    from jinja2.exceptions import TemplateError

    raise TemplateError(message)


class TemplateDict:
    """`dict` as templates see it: building dicts, and nothing else reachable from it."""

    def __call__(self, *args, **kwargs):
        return dict(*args, **kwargs)

    def fromkeys(self, *args, **kwargs):
        return dict.fromkeys(*args, **kwargs)


@lru_cache(maxsize=1)
def _extensions() -> tuple[type, type]:
    from contextlib import contextmanager
    from contextvars import ContextVar

    import jinja2
    import jinja2.ext
    import jinja2.nodes

    class AssistantTracker(jinja2.ext.Extension):
        """`{% generation %}...{% endgeneration %}`: renders its body, and records the span of
        the assistant's generated text when a tracker is active (transformers' assistant mask)."""

        tags = {"generation"}

        def __init__(self, environment) -> None:
            super().__init__(environment)
            environment.extend(activate_tracker=self.activate_tracker)
            self._tracking: ContextVar[tuple[list, list] | None] = ContextVar("assistant_tracker", default=None)

        def parse(self, parser):
            lineno = next(parser.stream).lineno
            body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
            return jinja2.nodes.CallBlock(self.call_method("_generation_support"), [], [], body).set_lineno(lineno)

        @jinja2.pass_eval_context
        def _generation_support(self, context, caller) -> str:
            rv = caller()
            tracking = self._tracking.get()
            if tracking is not None:
                rendered_blocks, generation_indices = tracking
                start = len("".join(rendered_blocks))
                generation_indices.append((start, start + len(rv)))
            return rv

        @contextmanager
        def activate_tracker(self, rendered_blocks: list, generation_indices: list):
            if self._tracking.get() is not None:
                raise ValueError("AssistantTracker should not be reused before closed")
            token = self._tracking.set((rendered_blocks, generation_indices))
            try:
                yield
            finally:
                self._tracking.reset(token)

    class TemplateNamespace(jinja2.utils.Namespace):
        """`namespace(...)` refusing `_`-prefixed attributes (no reach into CPython internals)."""

        def __init__(*args, **kwargs):  # jinja2's signature trick: `namespace(self=...)` works
            self, args = args[0], args[1:]
            attrs = dict(*args, **kwargs)
            for name in attrs:
                TemplateNamespace._check_name(name)
            jinja2.utils.Namespace.__init__(self, attrs)

        def __setitem__(self, name, value):
            TemplateNamespace._check_name(name)
            jinja2.utils.Namespace.__setitem__(self, name, value)

        @staticmethod
        def _check_name(name):
            if isinstance(name, str) and name.startswith("_"):
                raise jinja2.exceptions.SecurityError(
                    f"Chat templates cannot store underscore-prefixed attributes on a namespace, but got {name!r}. "
                    "Please rename the attribute."
                )

    return AssistantTracker, TemplateNamespace


@lru_cache(maxsize=1)
def chat_environment():
    """The one environment every chat template compiles in (bounded, transformers' options)."""
    import jinja2.ext

    from prefixlint.sandbox import bounded_sandbox

    tracker, namespace = _extensions()
    env = bounded_sandbox()(trim_blocks=True, lstrip_blocks=True, extensions=[tracker, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    env.globals["dict"] = TemplateDict()
    env.globals["namespace"] = namespace
    return env


@lru_cache(maxsize=64)
def compile_chat_template(source: str):
    """The compiled template for `source` (cached per source, as transformers caches it)."""
    return chat_environment().from_string(source)


def template_data(value: Any) -> Any:
    """`value` rebuilt out of plain JSON types, as transformers 5 gives every input to a
    template (subclasses of str/int/float stripped back, tuples kept, other objects a
    `<TypeName>` placeholder)."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, Mapping):
        return {template_data(key): template_data(item) for key, item in value.items()}
    if isinstance(value, list):
        return [template_data(item) for item in value]
    if isinstance(value, tuple):
        return tuple(template_data(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {field.name: template_data(getattr(value, field.name)) for field in dataclasses.fields(value)}
    item = getattr(value, "item", None)  # numpy scalars, without importing numpy
    if callable(item) and type(value).__module__ == "numpy":
        return template_data(item())
    dump = getattr(value, "model_dump", None)
    if callable(dump):  # pydantic models
        return template_data(dump())
    return f"<{type(value).__name__}>"


def alias_reasoning(messages: list) -> list:
    """Each message's reasoning also under `thinking` (gpt-oss) and `reasoning_content`."""
    aliased = []
    for message in messages:
        if isinstance(message, dict):
            reasoning = next((message[key] for key in REASONING_FIELDS if message.get(key) is not None), None)
            if reasoning is not None:
                message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
        aliased.append(message)
    return aliased


def template_context(messages, tools, add_generation_prompt: bool, special_tokens: Mapping[str, Any]) -> dict:
    """The variables a chat template is rendered with, as `render_jinja_template` passes them."""
    return dict(
        messages=alias_reasoning(template_data(list(messages))),
        tools=template_data(list(tools)) if tools else None,
        documents=None,
        add_generation_prompt=add_generation_prompt,
        **template_data(dict(special_tokens)),
    )
