"""Which of the files the pre-commit hook names are checked: those a directory walk of their
repository would take, so the hook checks what `check .` checks, on the same evidence
(documentation trees left out, Markdown only when code names it or it sits in a prompt
folder ...), no more."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from prefixlint.limits import directory_root
from prefixlint.load.discover import discover


def walk_takes(path: str | Path) -> bool:
    """Whether a directory walk of the repository holding `path` takes that file."""
    absolute = os.path.abspath(path)
    return absolute in _walked(directory_root(os.path.dirname(absolute)))


@lru_cache(maxsize=8)
def _walked(root: str) -> frozenset[str]:
    """The files (absolute) a walk of `root` takes: walked once a run, however many files the
    hook names."""
    return frozenset(os.path.abspath(p) for p in discover([root], errors=[], exclude_root=Path(root)))
