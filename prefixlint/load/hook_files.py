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


def walk_skips(path: str | Path) -> str | None:
    """Why a directory walk of the repository holding `path` leaves that file out (`--show-files`
    says it, and `--format json` under `skipped`); None when the walk takes it."""
    absolute = os.path.abspath(path)
    taken, reasons = _walked(directory_root(os.path.dirname(absolute)))
    if absolute in taken:
        return None
    for place in (absolute, *(str(folder) for folder in Path(absolute).parents)):  # the file, or a folder left out
        if place in reasons:
            return reasons[place]
    return "a directory walk of its repository does not take it"


@lru_cache(maxsize=8)
def _walked(root: str) -> tuple[frozenset[str], dict[str, str]]:
    """The files (absolute) a walk of `root` takes, and why it leaves out each other file it saw:
    walked once a run, however many files the hook names."""
    reasons: dict[str, str] = {}
    taken = frozenset(os.path.abspath(p) for p in discover([root], errors=[], exclude_root=Path(root), skipped=reasons))
    return taken, {os.path.abspath(os.path.join(root, p)).rstrip(os.sep) or os.sep: why for p, why in reasons.items()}
