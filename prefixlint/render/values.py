"""Values to render a template with: declared samples, or two realistic generated values.

Variant 0 is the first request, variant 1 a later one; a volatile variable gets different
values in the two, a stable one the same. Generated values look like the real thing
(a real date, a UUID, a person's name, a paragraph) because their token counts matter.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable

MOMENTS = (datetime(2025, 3, 14, 9, 26, 53, tzinfo=timezone.utc), datetime(2025, 3, 15, 17, 42, 8, tzinfo=timezone.utc))

GENERATED: dict[str, tuple[str, str]] = {
    "iso_date": ("2025-03-14", "2025-03-15"),
    "iso_datetime": ("2025-03-14T09:26:53Z", "2025-03-15T17:42:08Z"),
    "rfc2822": ("Fri, 14 Mar 2025 09:26:53 +0000", "Sat, 15 Mar 2025 17:42:08 +0000"),
    "epoch": ("1741944413", "1742060528"),
    "strftime": ("2025-03-14 09:26:53", "2025-03-15 17:42:08"),
    "uuid": ("3f8e2a71-5c4b-4d9e-a1f0-7b6c2d8e9f13", "b72c19d4-0e6a-4f38-9c25-e81a4b7d3c60"),
    "hex": ("9f86d081884c7d659a2feaa0c55ad015", "a3c5e8b1f27d4096be13c8d742f5a906"),
    "jwt": ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1XzQ4MTciLCJpYXQiOjE3NDE5NDQ0MTN9.Qm9kZWZ1bC1zaWduYXR1cmUtMQ",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1XzkwMjIiLCJpYXQiOjE3NDIwNjA1Mjh9.U2Vjb25kLXNpZ25hdHVyZS0yMg"),
    "person_name": ("Maria Garcia", "Kenji Watanabe"),
    "email": ("maria.garcia@example.com", "kenji.watanabe@example.org"),
    "location": ("Lisbon, Portugal", "Osaka, Japan"),
    "integer": ("3", "17"),
    "random": ("0.7312", "0.1849"),
    "paragraph": (
        "My order #48213 arrived yesterday but the charger is missing from the box. Can I get a"
        " replacement shipped, or do I need to return the whole laptop?",
        "I was billed twice for my March subscription. Please refund the duplicate charge and"
        " tell me when it will show up on my card.",
    ),
    "text": ("first sample value", "second sample value"),
}


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
