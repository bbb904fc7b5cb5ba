"""Where a finding is, as code hosts want it: a path relative to the repository root.

GitHub resolves annotation `file=` and SARIF `%SRCROOT%` uris against the checkout, so a
path is made relative to the repository root (GITHUB_WORKSPACE in a workflow, else the git
work tree around the working directory, else the working directory), whichever folder the
command ran in. A template that is no file of the repository (a model's built-in chat format
such as `harmony format (openai-harmony)`, a file outside the checkout) has no such path.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path


def repository_root() -> Path:
    workspace = os.environ.get("GITHUB_WORKSPACE")
    return Path(workspace).resolve() if workspace else _git_root(Path.cwd().resolve())


@lru_cache(maxsize=8)
def _git_root(start: Path) -> Path:
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def repository_path(path: str, root: Path | None = None) -> str | None:
    """`path` relative to the repository root with forward slashes; None when it is not a file
    inside the repository."""
    if not is_file_name(path):
        return None
    root = root or repository_root()
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(root.resolve()).as_posix()
    except ValueError:
        return None


def is_file_name(path: str) -> bool:
    """Whether `path` names a file: an existing one, or one with an extension (a file removed
    since, a path in a test). A model's built-in chat format is named, not a path."""
    return bool(path) and (os.path.isfile(path) or bool(Path(path).suffix))
