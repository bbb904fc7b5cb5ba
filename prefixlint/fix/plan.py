"""The fixes of one template combined into one: what `--fix`/`--diff` write and what the
file's "after the suggested fixes" measures (issue 24 item 4: one fixed text, one number).

Fixes are taken in the order of their findings; one that no longer combines with those taken
(its edits cannot be written together, or the combined text fails `prefixlint.fix.verify`)
is left out. Loading the template once and building many fixes from it is the shape here:
`reload` loads an edited text as the same template.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from prefixlint.fix.build import Builder, Fix, NoFix
from prefixlint.fix.verify import Rejected


@dataclass(frozen=True)
class Offered:
    """One finding's fix as offered: its sort key, the moves it makes and its applicability."""

    key: tuple
    modes: dict[int, str]
    applicability: str


@dataclass(frozen=True)
class FixSource:
    """One template of a file and the fixes its findings offer, in the findings' order."""

    template: Any
    placeholders: tuple
    offered: list[Offered] = field(default_factory=list)
    #: `check(fixed_template)`: raises Rejected for a fixed text that must not be written.
    check: Callable[[Any], Any] | None = None
    #: The token ids of the fixed text's first request (the HTML page's "after" side), () for none.
    fixed_ids: tuple[int, ...] = ()
    #: `reload(text)`: an edited text loaded as this template (`fix.attach.reloader`, or the
    #: file's prompts loaded together, `fix.file_reload`); None: a reloader of its own.
    reload: Callable[[str], Any] | None = None
    #: The template's fixes as `check` built them (None: built anew).
    build: Builder | None = None


def combine(build: Builder, offered, reload, check: Callable[[Any], None] | None = None
            ) -> tuple[Fix | None, int, Any]:
    """(the combined fix, how many findings it fixes, the fixed template loaded again), the
    fixes made by `build`; `check(fixed_template)` raises Rejected for a combination that must
    not be offered."""
    combined: dict[int, str] = {}
    taken, count, fixed = None, 0, None
    for item in offered:
        trial = {**combined, **item.modes}
        try:
            fix = build(trial, reload)
            again = reload(build.text(trial)) if check is not None else None
            if check is not None:
                check(again)
        except (NoFix, Rejected):
            continue
        combined, taken, count, fixed = trial, fix, count + 1, again
    return taken, count, fixed
