"""Configuration: `[tool.prefixlint]` in pyproject.toml or `.prefixlint.yaml`; the closest file wins.

For each checked file, prefixlint looks in the file's directory, then in each parent, up to the
git root (the directory holding `.git`) or the filesystem root, and takes the first directory
with a configuration. Within one directory the first of `CONFIG_FILES` that exists counts:
`.prefixlint.yaml`, then `.prefixlint.yml`, then `pyproject.toml` (and a pyproject.toml without a
`[tool.prefixlint]` table does not count: the search goes on upward). Files are not merged.
`--config PATH` uses one file for every path; `--isolated` uses none. Flags win over files
(`Config.merge_cli`).

Keys are written with dashes (`block-size`) like the command-line flags; underscores are
accepted too. Every problem is a PrefixlintError naming the file and line (TOML: the key).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

from prefixlint.errors import PrefixlintError

#: The names looked for in each directory, highest precedence first.
CONFIG_FILES = (".prefixlint.yaml", ".prefixlint.yml", "pyproject.toml")
#: A rule code (`PFX001`) or a prefix of one (`PFX`, `PFX0`, `PFX00`), as select/ignore take them.
CODE_SELECTOR = re.compile(r"PFX\d{0,3}")
DEFAULT_MIN_STABLE_TOKENS = 16


@dataclass(frozen=True)
class Config:
    tokenizer: str | None = None
    engine: str | None = None
    block_size: int | None = None
    #: Codes or prefixes to report; None means all rules.
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    #: A volatile value followed by fewer stable tokens than this is not a finding.
    min_stable_tokens: int = DEFAULT_MIN_STABLE_TOKENS
    #: Extra volatile-value signals (mappings in the rule catalog's signal format).
    extend_volatile: list[dict[str, Any]] = field(default_factory=list, hash=False)
    #: gitignore-style patterns, relative to the directory of `source` (see `exclude_root`).
    exclude: tuple[str, ...] = ()
    #: The file this configuration came from; None for the defaults.
    source: Path | None = None

    @property
    def exclude_root(self) -> Path | None:
        """The directory `exclude` patterns are relative to: the config file's directory."""
        return self.source.parent if self.source is not None else None

    def merge_cli(self, **flags: Any) -> "Config":
        """A copy where every flag that is not None replaces the file's value.

        `select`/`ignore` take a comma-separated string or a sequence of codes.
        """
        known = {item.name for item in fields(self)}
        unknown = sorted(set(flags) - known)
        if unknown:
            raise TypeError(f"Config.merge_cli got unknown flags: {', '.join(unknown)}")
        changes: dict[str, Any] = {}
        for name, value in flags.items():
            if value is None:
                continue
            if name in ("select", "ignore"):
                try:
                    value = _selectors(value)
                except ConfigValueError as exc:
                    raise PrefixlintError(f"--{name}: {exc.message}", hint=_CODE_HINT) from None
            elif name in ("exclude",):
                value = tuple(value)
            changes[name] = value
        return replace(self, **changes)

    def is_enabled(self, code: str) -> bool:
        """Whether findings with `code` are reported, with ruff's select/ignore semantics.

        The longest selector that is a prefix of the code decides: `select = ["PFX0"]`,
        `ignore = ["PFX003"]` reports PFX001 but not PFX003, and `select = ["PFX003"]`,
        `ignore = ["PFX0"]` reports PFX003 only. At equal length `ignore` wins. No `select`
        means `PFX` (every rule).
        """
        selected = _specificity(code, self.select if self.select is not None else ("PFX",))
        ignored = _specificity(code, self.ignore)
        return selected >= 0 and selected > ignored


def _specificity(code: str, selectors: tuple[str, ...]) -> int:
    return max((len(item) for item in selectors if code.startswith(item)), default=-1)


def load_config(path: Path, *, config_file: Path | None = None, isolated: bool = False) -> Config:
    """The configuration that applies to `path` (a file or a directory); cached per directory."""
    if isolated:
        if config_file is not None:
            raise PrefixlintError("--config and --isolated cannot be used together")
        return Config()
    if config_file is not None:
        config = _read_config_file(Path(os.path.abspath(config_file)))
        if config is None:
            raise PrefixlintError("no [tool.prefixlint] table in this file", path=str(config_file))
        return config
    start = Path(os.path.abspath(path))
    if not start.is_dir():
        start = start.parent
    return _config_in_directory(start)


def clear_cache() -> None:
    """Forget every configuration read so far (for long-lived processes and tests)."""
    _config_in_directory.cache_clear()
    _read_config_file_cached.cache_clear()


@lru_cache(maxsize=None)
def _config_in_directory(directory: Path) -> Config:
    for name in CONFIG_FILES:
        candidate = directory / name
        if candidate.is_file():
            config = _read_config_file(candidate)
            if config is not None:
                return config
    if (directory / ".git").exists() or directory.parent == directory:
        return Config()
    return _config_in_directory(directory.parent)


def _read_config_file(path: Path) -> Config | None:
    """The Config in `path`, or None for a TOML file without `[tool.prefixlint]`."""
    result = _read_config_file_cached(path)
    if isinstance(result, PrefixlintError):
        raise result
    return result


@lru_cache(maxsize=None)
def _read_config_file_cached(path: Path) -> Config | None | PrefixlintError:
    # A broken file is read once: every checked file below it gets the same error.
    shown = _shown(path)
    try:
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise PrefixlintError("configuration file not found", path=shown) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise PrefixlintError(f"cannot read configuration file: {exc}", path=shown) from None
        if path.suffix == ".toml":
            from prefixlint.config_files import read_toml

            values = read_toml(text, shown)
        elif path.suffix in (".yaml", ".yml"):
            from prefixlint.config_files import read_yaml

            values = read_yaml(text, shown)
        else:
            raise PrefixlintError(
                "unsupported configuration file type", path=shown,
                hint="use pyproject.toml ([tool.prefixlint]) or .prefixlint.yaml",
            )
        return None if values is None else Config(**values, source=path)
    except PrefixlintError as exc:
        return exc


def _shown(path: Path) -> str:
    """The path as diagnostics show it: relative to the working directory when inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


# --- validation shared by the TOML and YAML readers ------------------------------------------

_CODE_HINT = "rule codes look like PFX001; a prefix such as PFX0 stands for all codes it starts"


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


def _selectors(value: Any) -> tuple[str, ...]:
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
    "select": ("select", _selectors),
    "ignore": ("ignore", _selectors),
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
