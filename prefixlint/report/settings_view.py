"""`prefixlint check --show-settings PATH`: the settings that apply to one file, and where each
value comes from (a flag, the template's own key, a configuration file, an engine profile, the
default), as ruff's `--show-settings` does."""

from __future__ import annotations

import json as json_module
from pathlib import Path
from typing import Any

#: Config field -> (key as written, flag).
FIELDS = {
    "tokenizer": ("tokenizer", "--tokenizer"), "engine": ("engine", "--engine"),
    "block_size": ("block-size", "--block-size"), "select": ("select", "--select"),
    "extend_select": ("extend-select", None), "ignore": ("ignore", "--ignore"),
    "per_file_ignores": ("per-file-ignores", None), "min_stable_tokens": ("min-stable-tokens", None),
    "extend_volatile": ("extend-volatile", None), "exclude": ("exclude", None),
    "chat_template": ("chat-template", "--chat-template"),
}


def settings_of(path: str, flags: dict[str, Any], *, config_file: Path | None, isolated: bool) -> dict[str, dict]:
    """{key: {"value", "source"}} for `path`."""
    from prefixlint.config import _shown, load_config
    from prefixlint.engines.profiles import DEFAULT_ENGINE, get_profile
    from prefixlint.tokenize import DEFAULT_TOKENIZER

    config = load_config(Path(path), config_file=config_file, isolated=isolated)
    merged = config.merge_cli(**flags)
    where = _shown(config.source) if config.source else None
    own = _own_keys(path)
    rows: dict[str, dict] = {"configuration": {"value": where or "none", "source": "closest to the file"
                                               if where and config_file is None else ("--config" if where else "-")}}
    for name, (key, flag) in FIELDS.items():
        value = getattr(merged, name)
        if name in own:
            value, source = own[name], f"the file's own `{key}:`"
        elif flag and flags.get(name) is not None:
            source = flag
        elif name in config.given:
            source = where
        else:
            source = "default"
        rows[key] = {"value": value, "source": source}
    rows["tokenizer"]["value"] = rows["tokenizer"]["value"] or DEFAULT_TOKENIZER
    rows["engine"]["value"] = rows["engine"]["value"] or DEFAULT_ENGINE
    if rows["block-size"]["value"] is None:
        rows["block-size"] = {"value": get_profile(rows["engine"]["value"]).unit,
                              "source": f"engine profile {rows['engine']['value']}"}
    rows["select"]["value"] = rows["select"]["value"] or ["PFX"]
    rows["per-file-ignores"]["value"] = list(merged.ignored_in(path))
    return {key: {"value": _plain(row["value"]), "source": row["source"]} for key, row in rows.items()}


def _own_keys(path: str) -> dict[str, str]:
    """The template's own `tokenizer:` / `engine:` (they win over everything)."""
    try:
        from prefixlint.load.registry import load_template

        template = load_template(path)
    except Exception:  # not a template, unreadable: the configuration is still shown
        return {}
    return {name: getattr(template, name) for name in ("tokenizer", "engine") if getattr(template, name, None)}


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


def show(path: str, flags: dict[str, Any], *, config_file: Path | None, isolated: bool, json: bool = False) -> str:
    rows = settings_of(path, flags, config_file=config_file, isolated=isolated)
    if json:
        return json_module.dumps(rows, indent=2)
    width = max(map(len, rows)) + 2
    lines = [f"Settings for {path}"]
    for key, row in rows.items():
        value = row["value"]
        shown = ",".join(map(str, value)) if isinstance(value, list) else ("none" if value is None else str(value))
        if key == "extend-volatile":
            shown = str(len(value))  # how many signals
        lines.append(f"  {key:<{width}}{shown or 'none':<28} {row['source']}")
    return "\n".join(lines)
