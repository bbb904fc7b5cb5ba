"""Read one configuration file (TOML or YAML) into validated Config fields, with locations.

The keys, their types and their validators (`KEYS`) live here too, so `config.py` holds only
the Config dataclass and which file applies to which path.

YAML problems point at the node (line and column, from PyYAML's marks); tomllib keeps no
positions, so TOML problems name the key and the line where the key is written.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from prefixlint.errors import PrefixlintError

#: A rule code (`PFX001`) or a prefix of one (`PFX`, `PFX0`, `PFX00`), as select/ignore take them.
CODE_SELECTOR = re.compile(r"PFX\d{0,3}")

_HINT = "see docs/configuration.md for the keys and their types"
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)|\s*\(at end of document\)")
_TOML_HEADER = re.compile(r"\s*\[\[?\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")


def read_toml(text: str, source: str) -> dict[str, Any] | None:
    """The `[tool.prefixlint]` table of a TOML file as Config fields; None when there is none."""
    import tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        position = _TOML_POSITION.search(message)
        line = column = None
        if position and position.group(1):
            line, column = int(position.group(1)), int(position.group(2))
        raise PrefixlintError(
            f"invalid TOML: {_TOML_POSITION.sub('', message)}", path=source, line=line, column=column,
        ) from None
    tool = data.get("tool")
    table = tool.get("prefixlint") if isinstance(tool, dict) else None
    if table is None:
        return None
    if not isinstance(table, dict):
        raise PrefixlintError(
            "tool.prefixlint must be a table", path=source, line=_toml_key_line(text, None), hint=_HINT
        )
    values: dict[str, Any] = {}
    seen: dict[str, str] = {}
    for raw_key, value in table.items():
        key = normalize_key(raw_key)
        line = _toml_key_line(text, raw_key)
        if key not in KEYS:
            raise PrefixlintError(
                f"tool.prefixlint: {unknown_key_message(raw_key)}", path=source, line=line, hint=_HINT
            )
        if key in seen:
            raise PrefixlintError(
                f"tool.prefixlint: {raw_key!r} and {seen[key]!r} are the same key; keep one",
                path=source, line=line,
            )
        seen[key] = raw_key
        try:
            name, checked = check_value(key, value)
        except ConfigValueError as exc:
            raise PrefixlintError(
                f"tool.prefixlint.{raw_key}: {exc.message}", path=source, line=line, hint=_HINT
            ) from None
        values[name] = checked
    return values


def _toml_key_line(text: str, key: str | None) -> int | None:
    """The line where `key` of [tool.prefixlint] is written (the table's header for None)."""
    lines = text.splitlines()
    in_table = False
    header_line = None
    escaped = re.escape(key) if key is not None else None
    for number, line in enumerate(lines, start=1):
        header = _TOML_HEADER.match(line)
        if header:
            name = re.sub(r"[\s\"']", "", header.group(1))
            in_table = name == "tool.prefixlint" or name.startswith("tool.prefixlint.")
            if name == "tool.prefixlint" and header_line is None:
                header_line = number
            if escaped and re.fullmatch(rf"tool\.prefixlint\.{escaped}", name):
                return number
            continue
        if escaped is None:
            if re.match(r"\s*(tool\s*\.\s*)?prefixlint\s*=", line):
                return number
            continue
        if in_table and re.match(rf"\s*[\"']?{escaped}[\"']?\s*=", line):
            return number
        if re.match(rf"\s*(tool\s*\.\s*)?prefixlint\s*\.\s*[\"']?{escaped}[\"']?\s*=", line):
            return number
        if re.match(r"\s*(tool\s*\.\s*)?prefixlint\s*=", line) and re.search(rf"[{{,]\s*{escaped}\s*=", line):
            return number
    return header_line


def read_yaml(text: str, source: str) -> dict[str, Any]:
    """A `.prefixlint.yaml` file (a mapping at the top) as Config fields; {} when it is empty."""
    import yaml

    loader = yaml.SafeLoader(text)
    try:
        root = loader.get_single_node()
        if root is None:
            return {}
        if not isinstance(root, yaml.MappingNode):
            raise _at(root, source, "the configuration must be a mapping of keys to values")
        values: dict[str, Any] = {}
        seen: dict[str, tuple[str, int]] = {}
        for key_node, value_node in root.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag != "tag:yaml.org,2002:str":
                raise _at(key_node, source, "configuration keys must be strings")
            raw_key = key_node.value
            key = normalize_key(raw_key)
            if key not in KEYS:
                raise _at(key_node, source, unknown_key_message(raw_key), hint=_HINT)
            if key in seen:
                first, first_line = seen[key]
                raise _at(key_node, source, f"{raw_key!r} is given twice (first as {first!r} on line {first_line})")
            seen[key] = (raw_key, key_node.start_mark.line + 1)
            value = loader.construct_object(value_node, deep=True)
            try:
                name, checked = check_value(key, value)
            except ConfigValueError as exc:
                node = value_node
                if exc.index is not None and isinstance(value_node, yaml.SequenceNode):
                    node = value_node.value[exc.index]
                raise _at(node, source, f"{raw_key}: {exc.message}", hint=_HINT) from None
            values[name] = checked
        return values
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise PrefixlintError(
            f"invalid YAML: {exc.problem or exc.context}", path=source,
            line=mark.line + 1 if mark else None, column=mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as exc:
        raise PrefixlintError(f"invalid YAML: {exc}", path=source) from None
    finally:
        loader.dispose()


def _at(node: Any, source: str, message: str, hint: str | None = None) -> PrefixlintError:
    mark = node.start_mark
    return PrefixlintError(message, path=source, line=mark.line + 1, column=mark.column + 1, hint=hint)


# --- validation shared by the TOML and YAML readers ------------------------------------------

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


def _integer(minimum: int) -> Callable[[Any], int]:
    def check(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigValueError(f"must be an integer, not {_describe(value)}")
        if value < minimum:
            raise ConfigValueError(f"must be at least {minimum}, not {value}")
        return value

    return check


def _string_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    if not isinstance(value, (list, tuple)):
        raise ConfigValueError(f"must be a list of strings, not {_describe(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise ConfigValueError(f"item {index + 1} must be a string, not {_describe(item)}", index)
    return list(value)


def selectors(value: Any) -> tuple[str, ...]:
    items = _string_list(value)
    for index, item in enumerate(items):
        if not CODE_SELECTOR.fullmatch(item):
            raise ConfigValueError(f"{item!r} is not a rule code or code prefix (like PFX001 or PFX0)", index)
    return tuple(items)


def _patterns(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        raise ConfigValueError("must be a list of patterns, not a string")
    return tuple(_string_list(value))


def _signals(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise ConfigValueError(f"must be a list of tables/mappings, not {_describe(value)}")
    for index, item in enumerate(value):
        if not isinstance(item, dict) or not all(isinstance(key, str) for key in item):
            raise ConfigValueError(f"item {index + 1} must be a table/mapping, not {_describe(item)}", index)
    return [dict(item) for item in value]


def _describe(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
             list: "a list", dict: "a table/mapping", type(None): "null"}
    return names.get(type(value), type(value).__name__)


#: Config key (as written in files, dashed) -> (Config field, validator).
KEYS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "tokenizer": ("tokenizer", _string),
    "engine": ("engine", _string),
    "block-size": ("block_size", _integer(1)),
    "select": ("select", selectors),
    "ignore": ("ignore", selectors),
    "min-stable-tokens": ("min_stable_tokens", _integer(0)),
    "extend-volatile": ("extend_volatile", _signals),
    "exclude": ("exclude", _patterns),
}


def normalize_key(key: str) -> str:
    return key.replace("_", "-")


def check_value(key: str, value: Any) -> tuple[str, Any]:
    """(Config field, validated value) for a dashed key; raises ConfigValueError."""
    name, validate = KEYS[key]
    return name, validate(value)


def unknown_key_message(key: str) -> str:
    return f"unknown configuration key {key!r} (known keys: {', '.join(KEYS)})"
