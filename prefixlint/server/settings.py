"""The settings an open document is checked with, as `check` builds them for that file.

The configuration comes from the same discovery as `check` (the nearest `.prefixlint.yaml` or
`[tool.prefixlint]`, up to the git root; `config` names one file, `isolated` none). The client's
`initializationOptions` win over it, as `check`'s flags do: any configuration key (dashes or
underscores), plus `offline`, `config`, `isolated` and the server's own `debounce-ms`. They may
also sit under a `settings` key, as ruff's server takes them. A bad option is reported to the
user once and left out; the other options still apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

#: Options of the server itself (not configuration keys), with their defaults.
SERVER_OPTIONS = {"offline": False, "config": None, "isolated": False, "debounce-ms": 200}


@dataclass
class ServerSettings:
    """What the server was started with: `builder(path)` gives a document's `Settings`."""

    builder: Any
    debounce_seconds: float
    #: Options left out, each with why (shown to the user once).
    problems: list[str] = field(default_factory=list)


def from_options(options: Any, root: str | None) -> ServerSettings:
    """The server's settings from the client's `initializationOptions` (None: none given);
    relative paths in them (`config`, `chat-template`) are relative to the workspace `root`."""
    from prefixlint.check.settings import SettingsBuilder
    from prefixlint.config_keys import KEYS, ConfigValueError, check_value, normalize_key, unknown_key_message

    problems: list[str] = []
    given: Mapping[str, Any] = options if isinstance(options, Mapping) else {}
    if options is not None and not isinstance(options, Mapping):
        problems.append(f"initializationOptions must be an object, not {type(options).__name__}: ignored")
    if isinstance(given.get("settings"), Mapping):
        given = {**{k: v for k, v in given.items() if k != "settings"}, **given["settings"]}
    server: dict[str, Any] = dict(SERVER_OPTIONS)
    flags: dict[str, Any] = {}
    base = Path(root) if root else Path.cwd()
    for raw_key, value in given.items():
        key = normalize_key(str(raw_key))
        if key in SERVER_OPTIONS:
            problem = _server_option(key, value)
            if problem:
                problems.append(problem)
            else:
                server[key] = value
            continue
        if key not in KEYS:
            problems.append(unknown_key_message(key))
            continue
        try:
            name, checked = check_value(key, value)
        except ConfigValueError as exc:
            problems.append(f"option {key!r}: {exc.message}")
            continue
        if key == "chat-template" and not Path(checked).is_absolute():
            checked = str(base / checked)
        # select/ignore are validated again by the builder (they take strings or lists).
        flags[name] = value if key in ("select", "ignore") else checked
    config_file = server["config"]
    if config_file is not None and not Path(config_file).is_absolute():
        config_file = base / config_file
    builder = SettingsBuilder(flags, bool(server["offline"]), Path(config_file) if config_file else None,
                              bool(server["isolated"]))
    return ServerSettings(builder, server["debounce-ms"] / 1000, problems)


def _server_option(key: str, value: Any) -> str | None:
    """Why a server option's value is wrong; None when it is right."""
    if key in ("offline", "isolated") and not isinstance(value, bool):
        return f"option {key!r} must be true or false"
    if key == "config" and not (value is None or isinstance(value, str)):
        return "option 'config' must be the path of a configuration file"
    if key == "debounce-ms" and (isinstance(value, bool) or not isinstance(value, (int, float)) or
                                 not 0 <= value <= 10_000):
        return "option 'debounce-ms' must be a number of milliseconds from 0 to 10000"
    return None
