"""The clock of JavaScript's date libraries: `moment()` and `dayjs()` called with no argument are
the current time, as `new Date()` is (with an argument they parse a given date: no clock). How
often the value changes follows the format it is written with: `.format('YYYY-MM-DD HH:mm:ss')`
to the second (per request), `.format('YYYY-MM-DD')` or `.format('dddd')` per day, a year or a
month alone rarely (`.format('YYYY')`). Moment's and Day.js's format tokens are the same for this,
and Python's arrow and pendulum use them too (`token_frequency`).
"""

from __future__ import annotations

import re

#: Functions that return the current time when called with no argument (`moment.utc()` too).
FACTORIES = frozenset({"moment", "dayjs", "moment.utc", "dayjs.utc"})
_TIME_TOKENS = re.compile(r"[HhmsSaAkXx]|LT|LLL|lll")  # hour, minute, second, am/pm, timestamps, `LT`, `LLL`
_DAY_TOKENS = re.compile(r"[DdEewWLl]")  # day of month, of week, of year; week; `L`, `LL` (a date)


def factory_clock(call) -> bool:
    """Whether `call` is `moment()` / `dayjs()` (also `.utc()`) with no argument."""
    callee = call.child_by_field_name("function")
    arguments = call.child_by_field_name("arguments")
    return callee is not None and callee.text.decode() in FACTORIES and (
        arguments is None or not arguments.named_children)


def format_frequency(call) -> str | None:
    """How often `x.format('...')` of a clock changes by its literal format, else None."""
    arguments = call.child_by_field_name("arguments")
    given = arguments.named_children if arguments is not None else []
    if not given:
        return "per_request"  # moment's default format is to the second
    if given[0].type != "string":
        return None
    return token_frequency(given[0].text.decode()[1:-1])


def token_frequency(written: str) -> str:
    """How often a clock value written with moment-style tokens changes (`YYYY-MM-DD HH:mm` per
    request, `YYYY-MM-DD` per day, `YYYY` rarely): Moment, Day.js, and Python's arrow and pendulum."""
    written = re.sub(r"\[[^\]]*\]", "", written)  # `[at]`: literal text
    if _TIME_TOKENS.search(written):
        return "per_request"
    return "per_day" if _DAY_TOKENS.search(written) else "per_deployment"
