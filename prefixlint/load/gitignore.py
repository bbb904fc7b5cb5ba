"""git's ignore files for a directory walk: `.gitignore` from the git root down, and
`.git/info/exclude` (read with pathspec; a line git cannot read is skipped, as git does)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from prefixlint.errors import PrefixlintError


def ancestor_specs(top: Path) -> list[tuple[Path, Any]]:
    """The ignore files above `top` that apply to it: from the git root down to top's parent."""
    chain = []
    for directory in [top, *top.parents]:
        chain.append(directory)
        if (directory / ".git").exists():
            break
    else:
        return []  # not in a git repository: only the .gitignore files inside `top` apply
    root = chain[-1]
    specs = []
    info_exclude = read_ignore_file(root / ".git" / "info" / "exclude")
    if info_exclude is not None:
        specs.append((root, info_exclude))
    for directory in reversed(chain[1:]):
        spec = read_ignore_file(directory / ".gitignore")
        if spec is not None:
            specs.append((directory, spec))
    return specs


def read_ignore_file(path: Path) -> Any:
    import pathspec

    from prefixlint.limits import read_bytes

    try:
        text = read_bytes(str(path)).decode("utf-8", errors="replace")
    except PrefixlintError:  # absent, or not a regular file (a FIFO would block the walk)
        return None
    try:
        return pathspec.GitIgnoreSpec.from_lines(text.splitlines())
    except (ValueError, TypeError, re.error):  # git skips a line it cannot read (`!` alone, `[z-a]`): so do we
        return pathspec.GitIgnoreSpec.from_lines([line for line in text.splitlines() if _valid_line(line)])


def _valid_line(line: str) -> bool:
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line])
    except (ValueError, TypeError, re.error):
        return False
    return True
