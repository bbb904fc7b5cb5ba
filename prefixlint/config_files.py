"""Read one configuration file (TOML or YAML) into validated Config fields, with locations.

YAML problems point at the node (line and column, from PyYAML's marks); tomllib keeps no
positions, so TOML problems name the key and the line where the key is written.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from prefixlint.config_keys import KEYS, ConfigValueError, check_value, close_key, normalize_key, unknown_key_message
from prefixlint.errors import PrefixlintError

_HINT = "see docs/configuration.md for the keys and their types"
#: A key that names its own namespace: `x-team`, `acme.owner`, `acme/owner`, `acme:owner`.
_EXTENSION = re.compile(r"x[-_].+|[^.:/]+[.:/].+")
#: A key spelled as prefixlint's keys are (`max-cost`, `max_cost`): a newer version's key?
_WELL_FORMED = re.compile(r"[a-z][a-z0-9]*([-_][a-z0-9]+)*")
_WARNED: set[tuple[str, int | None, str]] = set()


def unknown_key(raw_key: str, source: str, line: int | None, prefix: str = "") -> PrefixlintError | None:
    """What an unknown key is (docs/configuration.md#unknown-keys): the error to raise for a
    typo of a known key (did you mean) or for a name no version would use; None, after one
    warning on stderr, for a namespaced extension key or a well-formed key that is no known
    key's typo (a newer version's key), which are ignored."""
    from prefixlint import __version__

    if close_key(raw_key) or not (_EXTENSION.fullmatch(raw_key) or _WELL_FORMED.fullmatch(raw_key)):
        return PrefixlintError(f"{prefix}{unknown_key_message(raw_key)}", path=source, line=line, hint=_HINT)
    why = ("an extension key (x-..., or a namespace.key): prefixlint reads none" if _EXTENSION.fullmatch(raw_key)
           else f"not a key of prefixlint {__version__}, perhaps a newer version's")
    message = f"{prefix}unknown configuration key {raw_key!r} ignored ({why})"
    if (source, line, raw_key) not in _WARNED:
        _WARNED.add((source, line, raw_key))
        where = f"{source}:{line}" if line else source
        print(f"prefixlint: warning: {where}: {message}", file=sys.stderr)
    return None
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
    except RecursionError:
        from prefixlint.limits import too_deep

        raise too_deep(source) from None
    except ValueError as exc:  # an integer Python refuses to convert (over 4,300 digits)
        raise PrefixlintError(f"invalid TOML: {exc}", path=source) from None
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
            error = unknown_key(raw_key, source, line, "tool.prefixlint: ")
            if error:
                raise error
            continue
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


def key_line(text: str, suffix: str, field: str) -> int | None:
    """The line a Config field's key is written on in a configuration file's text."""
    spellings = (field.replace("_", "-"), field)
    if suffix == ".toml":
        return next((line for key in spellings if (line := _toml_key_line(text, key)) is not None
                     and re.search(rf"\b{re.escape(key)}\b", text.splitlines()[line - 1])), None)
    for number, written in enumerate(text.splitlines(), start=1):
        if any(re.match(rf"[\"']?{re.escape(key)}[\"']?\s*:", written) for key in spellings):
            return number
    return None


def read_yaml(text: str, source: str) -> dict[str, Any]:
    """A `.prefixlint.yaml` file (a mapping at the top) as Config fields; {} when it is empty."""
    import yaml

    from prefixlint.load.yaml_source import compose, to_python

    root = compose(text, source, "invalid YAML", kind="configuration file")
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
            error = unknown_key(raw_key, source, key_node.start_mark.line + 1)
            if error:
                error.column = key_node.start_mark.column + 1
                raise error
            continue
        if key in seen:
            first, first_line = seen[key]
            raise _at(key_node, source, f"{raw_key!r} is given twice (first as {first!r} on line {first_line})")
        seen[key] = (raw_key, key_node.start_mark.line + 1)
        value = to_python(value_node, source, "invalid YAML")
        try:
            name, checked = check_value(key, value)
        except ConfigValueError as exc:
            node = value_node
            if exc.index is not None and isinstance(value_node, yaml.SequenceNode):
                node = value_node.value[exc.index]
            elif exc.index is not None and isinstance(value_node, yaml.MappingNode):
                node = value_node.value[exc.index][0]  # the entry's key
            raise _at(node, source, f"{raw_key}: {exc.message}", hint=_HINT) from None
        values[name] = checked
    return values


def _at(node: Any, source: str, message: str, hint: str | None = None) -> PrefixlintError:
    mark = node.start_mark
    return PrefixlintError(message, path=source, line=mark.line + 1, column=mark.column + 1, hint=hint)


def shown_path(path) -> str:
    """The path as diagnostics show it: relative to the working directory when inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)
