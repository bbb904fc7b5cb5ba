"""The YAML files prefixlint ships (the rule catalog, rules/signals.yaml), parsed once per content.

Parsing them (`yaml_source.load_yaml`: libyaml's parser, then PyYAML's constructors in Python)
costs some 20 ms of every `prefixlint check`, more than the templates of a small repository
take; the same values read back from JSON cost under a millisecond. So the values are kept
in the user's cache directory (beside the result cache's key: `$XDG_CACHE_HOME/prefixlint/`,
else `~/.cache/prefixlint/`), in one JSON file named by the sha256 of the files' names and
texts: an edited or upgraded catalog is another name, parsed anew. This is no result cache
(`--no-cache` is about results): it holds nothing of the files checked, as a bytecode cache
holds nothing of a program's input.

Only values that JSON gives back equal are kept (a date, or a mapping with a key that is no
string, would not be): the files are then parsed on every run, as they are when the
directory cannot be written or its entry is not JSON.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

#: Part of every entry's name: a change to what is kept (or how) starts new entries.
FORMAT = "1"


def cache_dir() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "prefixlint" / "shipped"


def shipped_values(texts: dict[str, str]) -> dict[str, Any]:
    """name -> the plain values of the YAML `texts[name]`, as `load_yaml(text, name)` gives them
    (and raises for a malformed one); `name` is the file as diagnostics name it (`rules/PFX001.yaml`)."""
    digest = hashlib.sha256(json.dumps([FORMAT, texts], sort_keys=True).encode("utf-8", "surrogatepass"))
    entry = cache_dir() / f"{digest.hexdigest()}.json"
    try:
        kept = json.loads(entry.read_text(encoding="utf-8"))
        if isinstance(kept, dict) and kept.keys() == texts.keys():
            return kept
    except (OSError, ValueError):
        pass
    from prefixlint.load.yaml_source import load_yaml

    values = {name: load_yaml(text, name) for name, text in texts.items()}
    _keep(entry, values)
    return values


def _keep(entry: Path, values: dict[str, Any]) -> None:
    try:
        text = json.dumps(values, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):  # a value JSON cannot hold
        return
    if json.loads(text) != values:  # one it would give back changed (a key that was no string)
        return
    partial = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, entry)  # a concurrent run reads the whole entry or none
    except OSError:  # an unwritable cache directory: parsed again next time
        try:
            partial.unlink()
        except OSError:
            pass
