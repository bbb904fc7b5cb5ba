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
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from prefixlint.config_files import key_line, read_toml, read_yaml
from prefixlint.config_files import shown_path as _shown
from prefixlint.config_keys import CODE_HINT, ConfigValueError, cli_per_file_ignore, selectors
from prefixlint.errors import PrefixlintError
from prefixlint.render.history import DEFAULT_TURNS

#: The names looked for in each directory, highest precedence first.
CONFIG_FILES = (".prefixlint.yaml", ".prefixlint.yml", "pyproject.toml")
DEFAULT_MIN_STABLE_TOKENS = 16
#: `min-tail-tokens`: five 16-token blocks (docs/check.md, "How a finding is measured").
DEFAULT_MIN_TAIL_TOKENS = 80


@dataclass(frozen=True)
class Config:
    tokenizer: str | None = None
    engine: str | None = None
    block_size: int | None = None
    #: Codes or prefixes to report; None means all rules.
    select: tuple[str, ...] | None = None
    #: Codes or prefixes reported on top of `select` (ruff's `extend-select`).
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    #: (gitignore-style pattern relative to the configuration's directory, codes) pairs: the
    #: codes are not reported in the files the pattern matches (ruff's `per-file-ignores`).
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: A volatile value followed by fewer stable tokens than this is not a finding.
    min_stable_tokens: int = DEFAULT_MIN_STABLE_TOKENS
    #: A value no conversation follows is a finding only with a run of this many stable tokens after it.
    min_tail_tokens: int = DEFAULT_MIN_TAIL_TOKENS
    #: Extra volatile-value signals (mappings in the rule catalog's signal format).
    extend_volatile: list[dict[str, Any]] = field(default_factory=list, hash=False)
    #: gitignore-style patterns, relative to the directory of `source` (see `exclude_root`).
    exclude: tuple[str, ...] = ()
    #: The chat template (.jinja or tokenizer_config.json) chat files are rendered with; in a
    #: file, relative to that file's directory (resolved when it is read).
    chat_template: str | None = None
    #: gitignore-style patterns (relative as `exclude`) of the templates that are system prompts,
    #: measured followed by the conversation history (`prefixlint.load.system_prompt`).
    system_prompts: tuple[str, ...] = ()
    #: gitignore-style patterns (relative as `exclude`) of files that are prompts whatever the
    #: evidence: a walk takes them (Markdown, text, files in documentation trees), and what cannot
    #: be read in them is an error, as for a file named on the command line.
    prompts: tuple[str, ...] = ()
    #: How many turns (a user message and the reply) the conversation history has.
    history_turns: int = DEFAULT_TURNS
    #: `price`: dollars per million input tokens computed and reused (`report`'s cost column).
    price: tuple[float, float] | None = None
    #: `extend`: the configuration file this one builds on (its keys, overridden by this file's).
    extend: str | None = None
    #: `--per-file-ignores` given on the command line: patterns relative to the working directory.
    cli_per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: The file this configuration came from; None for the defaults.
    source: Path | None = None
    #: The line each field given in that file (or a file it extends) is written on: field -> (file, line).
    key_lines: dict[str, tuple[str, int | None]] = field(default_factory=dict, compare=False, hash=False)
    #: The fields that file sets (for `check --show-settings`).
    given: frozenset[str] = field(default=frozenset(), compare=False)

    @property
    def exclude_root(self) -> Path | None:
        """The directory `exclude` patterns are relative to: the config file's directory."""
        return self.source.parent if self.source is not None else None

    def merge_cli(self, **flags: Any) -> "Config":
        """A copy where every flag that is not None replaces the file's value.

        `select`/`ignore` take a comma-separated string or a sequence of codes. An empty
        `select`, `ignore` or `exclude` (what click gives for a `multiple=True` option that was
        not used) counts as not given.
        """
        known = {item.name for item in fields(self)}
        unknown = sorted(set(flags) - known)
        if unknown:
            raise TypeError(f"Config.merge_cli got unknown flags: {', '.join(unknown)}")
        changes: dict[str, Any] = {}
        for name, value in flags.items():
            if value is None or (name in ("select", "ignore", "exclude", "extend_select", "cli_per_file_ignores")
                                 and not value):
                continue
            if name == "extend_select":  # added to the file's, as ruff's --extend-select
                try:
                    value = self.extend_select + selectors(value)
                except ConfigValueError as exc:
                    raise PrefixlintError(f"--extend-select: {exc.message}", hint=CODE_HINT) from None
            elif name == "cli_per_file_ignores":
                value = tuple(cli_per_file_ignore(item) for item in value)
            elif name in ("select", "ignore"):
                try:
                    value = selectors(value)
                except ConfigValueError as exc:
                    raise PrefixlintError(f"--{name}: {exc.message}", hint=CODE_HINT) from None
            elif name in ("exclude",):
                value = tuple(value)
            changes[name] = value
        return replace(self, **changes)

    def is_excluded(self, path: Path) -> bool:
        """Whether `exclude` matches `path`, relative to `exclude_root` (else the working directory).

        A directory walk applies the `exclude` of one configuration; the check command applies
        each walked file's own configuration with this, so a nested file's `exclude` counts too.
        """
        if not self.exclude:
            return False
        return _exclude_spec(self.exclude).match_file(self._relative(Path(path)))

    def is_configured_prompt(self, path: Path | str) -> bool:
        """Whether `prompts` or `system-prompts` names `path`."""
        patterns = self.prompts + self.system_prompts
        return bool(patterns) and _exclude_spec(patterns).match_file(self._relative(Path(path)))

    def is_system_prompt(self, path: Path | str) -> bool:
        """Whether `system-prompts` lists `path` (patterns relative as `exclude`'s)."""
        if not self.system_prompts:
            return False
        return _exclude_spec(self.system_prompts).match_file(self._relative(Path(path)))

    def ignored_in(self, path: Path | str) -> tuple[str, ...]:
        """The codes `per-file-ignores` (and `--per-file-ignores`) turns off in `path`."""
        found: tuple[str, ...] = ()
        if self.per_file_ignores:
            relative = self._relative(Path(path))
            found += tuple(code for pattern, codes in self.per_file_ignores
                           if _exclude_spec((pattern,)).match_file(relative) for code in codes)
        if self.cli_per_file_ignores:
            absolute = Path(os.path.abspath(path))
            from_cwd = (absolute.relative_to(Path.cwd()) if absolute.is_relative_to(Path.cwd()) else Path(path))
            found += tuple(code for pattern, codes in self.cli_per_file_ignores
                           if _exclude_spec((pattern,)).match_file(from_cwd.as_posix()) for code in codes)
        return found

    def where(self, name: str) -> tuple[str | None, int | None]:
        """(configuration file, line) where field `name` is set; (None, None) when not in a file."""
        return self.key_lines.get(name, (_shown(self.source) if self.source else None, None))

    def _relative(self, path: Path) -> str:
        root = self.exclude_root or Path.cwd()
        absolute = Path(os.path.abspath(path))
        return (absolute.relative_to(root) if absolute.is_relative_to(root) else path).as_posix()

    def is_enabled(self, code: str, path: Path | str | None = None) -> bool:
        """Whether findings with `code` are reported, with ruff's select/ignore semantics.

        The longest selector that is a prefix of the code decides: `select = ["PFX0"]`,
        `ignore = ["PFX003"]` reports PFX001 but not PFX003, and `select = ["PFX003"]`,
        `ignore = ["PFX0"]` reports PFX003 only. At equal length `ignore` wins. No `select`
        means `PFX` (every rule). `extend-select` adds to `select`. With `path`, a code that
        `per-file-ignores` gives for it is off whatever selects it (as in ruff).
        """
        if path is not None and _specificity(code, self.ignored_in(path)) >= 0:
            return False
        selected = _specificity(code, (self.select if self.select is not None else ("PFX",)) + self.extend_select)
        ignored = _specificity(code, self.ignore)
        return selected >= 0 and selected > ignored


@lru_cache(maxsize=64)
def _exclude_spec(patterns: tuple[str, ...]) -> Any:
    import pathspec

    return pathspec.GitIgnoreSpec.from_lines(patterns)


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
def _read_config_file_cached(path: Path, chain: tuple[Path, ...] = ()) -> Config | None | PrefixlintError:
    # A broken file is read once: every checked file below it gets the same error.
    shown = _shown(path)
    try:
        try:
            from prefixlint.limits import read_bytes

            text = read_bytes(str(path)).decode("utf-8")
        except PrefixlintError as exc:
            if exc.message == "no such file":
                exc.message = "configuration file not found"
            exc.path = shown
            raise
        except FileNotFoundError:
            raise PrefixlintError("configuration file not found", path=shown) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise PrefixlintError(f"cannot read configuration file: {exc}", path=shown) from None
        if path.suffix == ".toml":
            values = read_toml(text, shown)
        elif path.suffix in (".yaml", ".yml"):
            values = read_yaml(text, shown)
        else:
            raise PrefixlintError(
                "unsupported configuration file type", path=shown,
                hint="use pyproject.toml ([tool.prefixlint]) or .prefixlint.yaml",
            )
        if values is None:
            return None
        if values.get("chat_template"):
            values["chat_template"] = _shown(path.parent / values["chat_template"])
        lines = {name: (shown, key_line(text, path.suffix, name)) for name in values}
        base = _extended(path, values, lines, chain) if values.get("extend") else None
        if base is not None:
            values = {**{name: getattr(base, name) for name in base.given}, **values}
            lines = {**base.key_lines, **lines}
        return Config(**values, source=path, given=frozenset(values), key_lines=lines)
    except PrefixlintError as exc:
        return exc


def _extended(path: Path, values: dict, lines: dict, chain: tuple[Path, ...]) -> Config:
    """The configuration `extend = "../base.toml"` names, relative to `path`'s directory (as
    ruff's `extend`). Its keys apply unless this file sets them; its `chat-template` is
    relative to its own directory, its patterns to the directory of the file that uses them."""
    file, line = lines["extend"]
    target = Path(os.path.abspath(path.parent / values["extend"]))
    if target in chain or target == path:
        raise PrefixlintError(f"extend: {values['extend']!r} extends this file again (a cycle)", path=file, line=line)
    if not target.is_file():
        raise PrefixlintError(f"extend: no configuration file {values['extend']!r}", path=file, line=line,
                              hint="the path is relative to this configuration file's directory")
    result = _read_config_file_cached(target, chain + (path,))
    if isinstance(result, PrefixlintError):
        raise result
    if result is None:
        raise PrefixlintError(f"extend: {values['extend']!r} has no [tool.prefixlint] table", path=file, line=line,
                              hint="a TOML base holds its keys under [tool.prefixlint], as pyproject.toml does")
    return result
