"""Configuration keys: their names, types and validators, shared by the TOML and YAML readers."""

from __future__ import annotations

import re
from typing import Any, Callable

from prefixlint.errors import PrefixlintError
from prefixlint.limits import MAX_BLOCK_TOKENS, MAX_CONFIG_ITEMS, MAX_HISTORY_TURNS, MAX_RENDER_TOKENS, user_pattern

#: A rule code (`PFX001`) or a prefix of one (`PFX`, `PFX0`, `PFX00`), as select/ignore take them.
CODE_SELECTOR = re.compile(r"PFX\d{0,3}")
CODE_HINT = "rule codes look like PFX001; a prefix such as PFX0 stands for all codes it starts"


class ConfigValueError(Exception):
    """A value of the wrong shape; `index` points at the offending item of a list."""

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.index = index


def _string(value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigValueError(f"must be a non-empty string, not {_describe(value)}")
    return value


def _integer(minimum: int, maximum: int) -> Callable[[Any], int]:
    """An integer in [minimum, maximum]: a configuration a pull request edits must not make the
    run model 30,000,000 turns of history (every numeric key has its documented maximum)."""
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigValueError(f"must be an integer, not {_describe(value)}")
        if value < minimum:
            raise ConfigValueError(f"must be at least {minimum}, not {value}")
        if value > maximum:
            raise ConfigValueError(f"must be at most {maximum:,}, not {_digits(value)}")
        return value

    return check


def _digits(value: int) -> str:
    return f"{value:,}" if abs(value) < 10 ** 30 else f"a number of {len(str(abs(value))):,} digits"


def _counted(items: Any) -> None:
    """A list or table of configuration of at most MAX_CONFIG_ITEMS entries."""
    if isinstance(items, (list, tuple, dict)) and len(items) > MAX_CONFIG_ITEMS:
        raise ConfigValueError(f"has {len(items):,} entries (the limit is {MAX_CONFIG_ITEMS:,})")


def _string_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    if not isinstance(value, (list, tuple)):
        raise ConfigValueError(f"must be a list of strings, not {_describe(value)}")
    _counted(value)
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise ConfigValueError(f"item {index + 1} must be a string, not {_describe(item)}", index)
    return list(value)


def selectors(value: Any) -> tuple[str, ...]:
    """Codes or prefixes, upper-cased (`pfx001` is PFX001); each must match at least one rule:
    a mistyped code would otherwise turn linting off without a word."""
    from prefixlint.rules.catalog import did_you_mean, rule_codes

    items = [item.strip() for item in _string_list(value)]
    codes = rule_codes()
    for index, item in enumerate(items):
        if not CODE_SELECTOR.fullmatch(item.upper()):
            raise ConfigValueError(f"{item!r} is not a rule code or code prefix (like PFX001 or PFX0)"
                                   f"{did_you_mean(item)}", index)
        if not any(code.startswith(item.upper()) for code in codes):
            raise ConfigValueError(f"{item!r} matches no rule{did_you_mean(item)} (the rules:"
                                   f" {', '.join(codes)})", index)
    return tuple(item.upper() for item in items)


def _per_file_ignores(value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`{"legacy/*.yaml": ["PFX004"]}` -> ((pattern, codes), ...), patterns in gitignore syntax."""
    if not isinstance(value, dict):
        raise ConfigValueError(f"must be a table/mapping of patterns to codes, not {_describe(value)}")
    _counted(value)
    entries = []
    for index, (pattern, codes) in enumerate(value.items()):
        if not isinstance(pattern, str) or not pattern.strip():
            raise ConfigValueError("each pattern must be a non-empty string", index)
        try:
            entries.append((pattern, selectors(codes)))
        except ConfigValueError as exc:
            raise ConfigValueError(f"{pattern!r}: {exc.message}", index) from None
    return tuple(entries)


def _patterns(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        raise ConfigValueError("must be a list of patterns, not a string")
    import pathspec

    patterns = tuple(_string_list(value))
    for index, pattern in enumerate(patterns):
        try:
            pathspec.GitIgnoreSpec.from_lines([pattern])
        except (ValueError, TypeError, re.error) as exc:  # `!` alone; a range `[z-a]` (re.error)
            raise ConfigValueError(f"{pattern!r} is not a gitignore pattern ({exc})", index) from None
    return patterns


#: The shape of one volatility signal (see rules/signals.yaml): required and optional keys.
#: Values (which class, which frequency) are checked against the catalog when it is loaded.
SIGNAL_REQUIRED = ("id", "class", "frequency")
SIGNAL_LISTS = ("names", "calls", "samples")
SIGNAL_KEYS = (*SIGNAL_REQUIRED, *SIGNAL_LISTS, "generate")


def _signals(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise ConfigValueError(f"must be a list of tables/mappings, not {_describe(value)}")
    _counted(value)
    for index, item in enumerate(value):
        problem = _signal_problem(item)
        if problem:
            raise ConfigValueError(f"item {index + 1} {problem}", index)
    return [dict(item) for item in value]


def _signal_problem(item: Any) -> str | None:
    if not isinstance(item, dict):
        return f"must be a table/mapping, not {_describe(item)}"
    unknown = [str(key) for key in item if key not in SIGNAL_KEYS]
    if unknown:
        return f"has unknown key {unknown[0]!r} (signal keys: {', '.join(SIGNAL_KEYS)})"
    missing = [key for key in SIGNAL_REQUIRED if key not in item]
    if missing:
        return f"lacks {', '.join(repr(key) for key in missing)}"
    for key in (*SIGNAL_REQUIRED, "generate"):
        if key in item and not (isinstance(item[key], str) and item[key]):
            return f"{key}: must be a non-empty string, not {_describe(item[key])}"
    for key in SIGNAL_LISTS:
        values = item.get(key, [])
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            return f"{key}: must be a list of strings"
        if len(values) > MAX_CONFIG_ITEMS:
            return f"{key}: has {len(values):,} entries (the limit is {MAX_CONFIG_ITEMS:,})"
    classes, frequencies = _catalog_values()
    for key, known in (("class", classes), ("frequency", frequencies)):
        if item[key] not in known:
            return f"{key}: {item[key]!r} is not one of {', '.join(known)}"
    for pattern in item.get("samples", []):
        try:
            user_pattern(pattern)  # compiled as the run will: a user's pattern, time-bounded
        except ValueError as exc:
            return f"samples: {pattern!r} is not a regular expression ({exc})"
    if not any(item.get(key) for key in SIGNAL_LISTS):
        return f"matches nothing: give at least one of {', '.join(SIGNAL_LISTS)}"
    return None


def _catalog_values() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The classes and frequencies a signal may name (those of rules/signals.yaml)."""
    from prefixlint.load.classify import builtin_catalog

    catalog = builtin_catalog()
    return tuple(catalog.classes), tuple(catalog.frequencies)


def _describe(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "a list", dict: "a table/mapping", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def price(value: Any) -> tuple[float, float]:
    """`"2.50/0.25"` (or a number, or {computed, cached}): dollars per million input tokens the
    engine computes, and per million it reuses from the cache (default 0: not computed again)."""
    if isinstance(value, dict):
        parts = [value.get("computed"), value.get("cached", 0)]
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        parts = [value, 0]
    elif isinstance(value, str):
        parts = value.split("/")
    else:
        raise ConfigValueError(f"must be a price like \"2.50/0.25\", not {_describe(value)}")
    try:
        computed, cached = (float(part) for part in (parts + [0])[:2])
    except (TypeError, ValueError):
        raise ConfigValueError(f"{value!r} is not a price like \"2.50/0.25\" (dollars per million tokens:"
                               " computed/cached)") from None
    if not (0 <= computed < 1e6 and 0 <= cached < 1e6) or len(parts) > 2:
        raise ConfigValueError(f"{value!r}: two prices from 0 to 1,000,000 dollars per million tokens")
    return computed, cached


#: Config key (as written in files, dashed) -> (Config field, validator).
KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "tokenizer": ("tokenizer", _string),
    "engine": ("engine", _string),
    "block-size": ("block_size", _integer(1, MAX_BLOCK_TOKENS)),
    "select": ("select", selectors),
    "extend-select": ("extend_select", selectors),
    "ignore": ("ignore", selectors),
    "per-file-ignores": ("per_file_ignores", _per_file_ignores),
    "min-stable-tokens": ("min_stable_tokens", _integer(0, MAX_RENDER_TOKENS)),
    "min-tail-tokens": ("min_tail_tokens", _integer(0, MAX_RENDER_TOKENS)),
    "extend-volatile": ("extend_volatile", _signals),
    "exclude": ("exclude", _patterns),
    "chat-template": ("chat_template", _string),
    "system-prompts": ("system_prompts", _patterns),
    "prompts": ("prompts", _patterns),
    "history-turns": ("history_turns", _integer(0, MAX_HISTORY_TURNS)),
    "extend": ("extend", _string),
    "price": ("price", price),
}


def normalize_key(key: str) -> str:
    return key.replace("_", "-")


def check_value(key: str, value: Any) -> tuple[str, Any]:
    """(Config field, validated value) for a dashed key; raises ConfigValueError."""
    name, validate = KEYS[key]
    return name, validate(value)


def close_key(key: str) -> str | None:
    """The known key `key` is a typo of: its words in another order (`select-extend`), else the
    closest spelling (`blocksize`, `Tokenizer`); None when none is close."""
    import difflib

    words = sorted(normalize_key(key).lower().split("-"))
    reordered = [known for known in KEYS if sorted(known.split("-")) == words]
    close = reordered or difflib.get_close_matches(normalize_key(key).lower(), KEYS, n=1)
    return close[0] if close else None


def unknown_key_message(key: str) -> str:
    close = close_key(key)
    guess = f"did you mean {close!r}? " if close else ""
    return f"unknown configuration key {key!r} ({guess}known keys: {', '.join(KEYS)})"


def cli_per_file_ignore(item: str) -> tuple[str, tuple[str, ...]]:
    """`--per-file-ignores "PATTERN:CODES"` (ruff's form) -> (pattern, codes)."""
    pattern, colon, codes = str(item).rpartition(":")
    if not colon or not pattern.strip():
        raise PrefixlintError(f"--per-file-ignores: {item!r} is not PATTERN:CODES",
                              hint='for example --per-file-ignores "legacy/*.yaml:PFX001,PFX004"')
    try:
        return pattern, selectors(codes)
    except ConfigValueError as exc:
        raise PrefixlintError(f"--per-file-ignores: {pattern!r}: {exc.message}", hint=CODE_HINT) from None
