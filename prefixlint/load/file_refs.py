"""Prompty's `${file:NAME}` references: a sample kept in a file beside the `.prompty` file.

    sample: ${file:chat.json}          # the whole sample mapping
    inputs: {research: {sample: ${file:research.json}}}

Prompty reads NAME relative to the `.prompty` file, as JSON when it ends in `.json`, as YAML
for `.yaml`/`.yml`, as text otherwise. prefixlint does the same, but only inside the folder
tree the file belongs to: the repository holding it (the nearest folder with `.git` above it)
or, outside a repository, the file's own folder. A reference that leaves it (`../../etc/x`,
an absolute path, a symbolic link pointing out) is an error naming the file and line. A
referenced file that does not exist (a sample kept out of the repository, or not copied with
the `.prompty` file) gives no sample: the inputs get generated stand-ins, as undeclared ones do,
since the sample only fills in values and the template itself is all there.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from prefixlint.errors import PrefixlintError
from prefixlint.limits import loads_json
from prefixlint.load.yaml_source import load_yaml

REFERENCE = re.compile(r"^\$\{file:(?P<name>[^}]+)\}$")


def is_reference(value: Any) -> bool:
    return isinstance(value, str) and REFERENCE.match(value.strip()) is not None


def _boundary(folder: Path) -> Path:
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def resolve(value: Any, path: str, line: int | None) -> Any:
    """The value a `${file:NAME}` reference stands for (other values are returned as they are)."""
    if not is_reference(value):
        return value
    from prefixlint.load.files import read_text

    name = REFERENCE.match(value.strip()).group("name").strip()  # type: ignore[union-attr]
    folder = Path(path).resolve().parent
    target = (folder / name).resolve()
    boundary = _boundary(folder)
    if Path(name).is_absolute() or not target.is_relative_to(boundary):
        raise PrefixlintError(f"{value} points outside {'the repository' if boundary != folder else 'the folder of this file'}",
                              path=path, line=line, hint="keep sample files beside the .prompty file")
    if not target.exists():
        return None
    try:
        text = read_text(str(target))
    except PrefixlintError as exc:
        raise PrefixlintError(f"cannot read {value}: {exc.message}", path=path, line=line) from None
    suffix = target.suffix.lower()
    try:  # the file's limits (depth, aliases, long integers) as for any file prefixlint reads
        if suffix == ".json":
            return loads_json(text, str(target))
        if suffix in (".yaml", ".yml"):
            return load_yaml(text, str(target))
    except PrefixlintError as exc:
        raise PrefixlintError(f"cannot read {value}: {exc.message}", path=path, line=line) from None
    except ValueError as exc:  # json.JSONDecodeError
        raise PrefixlintError(f"cannot read {value}: {exc}", path=path, line=line) from None
    return text
