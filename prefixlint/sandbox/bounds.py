"""How large a value a template operation would make, worked out before it is made.

jinja2's sandbox refuses what reaches Python internals but not what grows without bound:
`'a'|center(10**9)`, `'{:>3000000000}'.format(x)`, `'%999999999s' % x`, `s ~ s` doubled in
a loop, `s.replace('a', s)`. The sandbox (`prefixlint.sandbox`) asks these functions
for the size of a result first and refuses one over `MAX_OUTPUT_CHARS`; sizes are counted
in characters (strings) and items plus the characters of string items (lists).
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from prefixlint.limits import MAX_OUTPUT_CHARS

#: A printf conversion (`%-30s`, `%*d`, `%.5f`, `%(name)20s`): its width and precision.
_PRINTF = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?[a-zA-Z%]")
#: A format spec (`>30`, `^{w}` once substituted, `,.2f`): its width and precision.
_SPEC = re.compile(r"^(?:.?[<>=^])?[-+ ]?z?#?0?(\d*)[,_]?(?:\.(\d+))?")


class TooLarge(Exception):
    """A result larger than MAX_OUTPUT_CHARS; the sandbox turns it into a SecurityError."""


def size(value: Any) -> int:
    """Characters of a string; items plus the characters of string items of a list or tuple."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, (list, tuple)):
        return len(value) + sum(len(item) for item in value if isinstance(item, str))
    return 0


def refuse_over(estimate: int, what: str) -> None:
    if estimate > MAX_OUTPUT_CHARS:
        raise TooLarge(f"{what} is too large: {estimate:,} characters (the limit is {MAX_OUTPUT_CHARS:,})")


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def printf_size(template: str, values: Any) -> int:
    """An upper bound of `template % values` (widths and precisions, `*` taken from values)."""
    values = values if isinstance(values, tuple) else (values,)
    stars = iter(_int(v) for v in values)
    total = len(template) + sum(size(v) if isinstance(v, str) else 32 for v in values)
    for width, precision in _PRINTF.findall(template):
        for part in (width, precision):
            total += next(stars, 0) if part == "*" else int(part) if part else 0
    return total


def spec_width(spec: str) -> int:
    """Width plus precision of one format spec (the characters it may pad a field to)."""
    found = _SPEC.match(spec)
    return sum(int(part) for part in found.groups() if part) if found else 0


#: Per call of a str method or a filter: the size of its result from (value, args, kwargs).
def _replace(value: str, old: Any, new: Any, count: Any = -1) -> int:
    if not (isinstance(old, str) and isinstance(new, str)):
        return 0
    hits = (len(value) + 1) if not old else value.count(old)
    if isinstance(count, int) and count >= 0:
        hits = min(hits, count)
    return len(value) + hits * max(len(new) - len(old), 0)


def _join(separator: Any, items: Iterable[Any]) -> int:
    items = list(items) if isinstance(items, (list, tuple)) else []
    return size(items) + len(str(separator)) * len(items)


def _indent(value: Any, width: Any = 4, *_: Any, **__: Any) -> int:
    text = str(value)
    pad = len(width) if isinstance(width, str) else _int(width)
    return len(text) + pad * (text.count("\n") + 1)


METHODS: dict[str, Callable[..., int]] = {
    "center": lambda value, width=0, *_: max(len(value), _int(width)),
    "ljust": lambda value, width=0, *_: max(len(value), _int(width)),
    "rjust": lambda value, width=0, *_: max(len(value), _int(width)),
    "zfill": lambda value, width=0, *_: max(len(value), _int(width)),
    "expandtabs": lambda value, tabsize=8: len(value) * max(_int(tabsize), 1),
    "replace": _replace,
    "join": _join,
}

FILTERS: dict[str, Callable[..., int]] = {
    "center": lambda value, width=80: max(len(str(value)), _int(width)),
    "indent": _indent,
    "replace": lambda value, old, new, count=None: _replace(str(value), old, new, -1 if count is None else count),
    "join": lambda value, d="", attribute=None: _join(d, value if isinstance(value, (list, tuple)) else []),
    "format": lambda value, *args, **kwargs: printf_size(str(value), kwargs and (kwargs,) or tuple(args)),
    "batch": lambda value, linecount, fill_with=None: size(value) + _int(linecount),
    "slice": lambda value, slices, fill_with=None: size(value) + _int(slices),
    "tojson": lambda value, indent=None: _int(indent) * 1024,
    "wordwrap": lambda value, width=79, *_, **__: len(str(value)) * 2,
    "truncate": lambda value, length=255, *_, **__: min(len(str(value)), _int(length)) + 3,
}
