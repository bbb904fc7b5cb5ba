"""Values to render a template with: declared samples, or two realistic generated values.

Variant 0 is the first request, variant 1 a later one; a volatile variable gets different
values in the two, a stable one the same. Generated values look like the real thing
(a real date, a UUID, a person's name, a paragraph) because their token counts matter.
"""

from __future__ import annotations

from typing import Any, Callable

from prefixlint.load.sample_values import GENERATED, MOMENTS


class Sample(str):
    """A generated value that also stands in for a structure the template expects.

    Files without samples (plain templates) may loop over a variable or read its fields
    (`{% for item in chat_history %}{{ item.inputs.question }}`). A Sample is its text, and
    additionally: iterating it gives two items, and a field or key it lacks gives the same
    text again, so such templates render with realistic text in every place. `title`,
    `count` and `index` read as fields, not as the str methods of the same names.

    Methods a template calls on an input are the safe ones of a mapping (`items`, `keys`,
    `values`, `get`) besides str's own (`split`, `strip`, `upper` ...); the sandbox lets any
    other method called on a Sample return its text (`prefixlint.render.sandbox`). Names that
    reach Python internals (`_`-prefixed) or mark a callable unsafe are never stood in for.
    """

    FIELDS = frozenset({"title", "count", "index"})
    #: attributes the sandbox (and other engines) probe: their absence means "safe", so no stand-in
    PROBES = frozenset({"unsafe_callable", "alters_data", "mro", "func_globals", "func_code", "gi_frame",
                        "gi_code", "cr_frame", "cr_code", "ag_code", "ag_frame", "tb_frame", "f_globals"})

    def __getattribute__(self, name: str):
        if name in Sample.FIELDS:
            return Sample(str(self))
        return super().__getattribute__(name)

    def __getattr__(self, name: str):
        if name.startswith("_") or name in Sample.PROBES:
            raise AttributeError(name)
        return Sample(str(self))

    def items(self):
        return [(Sample(str(self)), Sample(str(self))), (Sample(str(self)), Sample(str(self)))]

    def keys(self):
        return list(self)

    def values(self):
        return list(self)

    def get(self, key=None, default=None):
        return Sample(str(self))

    def __getitem__(self, key):
        if isinstance(key, str):
            return Sample(str(self))
        return str.__getitem__(self, key)

    def __iter__(self):
        return iter((Sample(str(self)), Sample(str(self))))


def generated(generate: str, variant: int) -> str:
    return Sample(GENERATED.get(generate, GENERATED["text"])[variant])


def variable_value(name: str, samples: tuple[Any, ...], generate: str, variant: int, volatile: bool) -> Any:
    """The value of a variable in a render variant (0 or 1)."""
    if not volatile:
        return samples[0] if samples else Sample(name.replace("_", " "))
    if len(samples) > variant and (variant == 0 or samples[variant] != samples[0]):
        return samples[variant]
    value = generated(generate, variant)
    if samples and value == samples[0]:
        value = generated(generate, 1 - variant)
    return value


def stable_function(*args: Any, **kwargs: Any) -> str:
    """A helper the template calls that the catalog does not know: stable, echoes its arguments."""
    return " ".join(str(a) for a in args)


def call_function(generate: str, variant: int) -> Callable:
    """A volatile function (strftime_now, now, uuid4, random ...) as it behaves in one variant."""
    moment = MOMENTS[variant]
    if generate == "strftime":
        return lambda fmt="%Y-%m-%d %H:%M:%S", *args, **kwargs: moment.strftime(str(fmt))
    if generate in ("iso_datetime", "iso_date", "rfc2822", "epoch"):
        return lambda *args, **kwargs: moment
    value = generated(generate, variant)
    return lambda *args, **kwargs: value
