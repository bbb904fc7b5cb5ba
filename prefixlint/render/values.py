"""Values to render a template with: declared samples, or two realistic generated values.

Variant 0 is the first request, variant 1 a later one; a volatile variable gets different
values in the two, a stable one the same. Generated values look like the real thing
(a real date, a UUID, a person's name, a paragraph) because their token counts matter.
"""

from __future__ import annotations

from typing import Any, Callable

from prefixlint.load.sample_values import GENERATED, MOMENTS
from prefixlint.sandbox.standin import Sample


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
