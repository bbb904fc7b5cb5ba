"""Give each finding of a moved value (PFX001-PFX005) its fix, as ruff's JSON has it.

A finding's fix moves exactly what its "Moved into ..." figure measured: the placeholders
its value changed, each as the measurement placed it (`Measurer.modes`). A finding that
cannot be fixed in its file's syntax gets `"fix": null` and the reason (`fix_unavailable`).
`FixSource` keeps what `--fix`/`--diff` need to write the fixes of a whole file at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from prefixlint.fix.build import NoFix, build_fix
from prefixlint.fix.edits import edits_json
from prefixlint.match.variants import LINE
from prefixlint.rules.registry import MOVING_CODES  # derived from the catalog


@dataclass(frozen=True)
class FixSource:
    """One template of a file and, per fixable finding (by its sort key), the moves it makes."""

    template: Any
    placeholders: tuple
    moves: dict[tuple, dict[int, str]] = field(default_factory=dict)


def reloader(template):
    """Load an edited text as the same template (the same prompt of a file holding several)."""
    from prefixlint.errors import PrefixlintError
    from prefixlint.load.registry import load_templates

    def reload(text: str):
        try:
            before = [t for t in load_templates(template.path, template.source) if t.path == template.path]
            after = [t for t in load_templates(template.path, text) if t.path == template.path]
        except (PrefixlintError, RecursionError, ValueError):
            return None
        index = next((i for i, t in enumerate(before) if t.messages == template.messages), None)
        return after[index] if index is not None and len(after) == len(before) else None

    return reload


def attach(findings, template, placeholders, measurer, measured) -> tuple[list, FixSource]:
    """The findings with their `fix`, and the file's FixSource."""
    by_name = {m.volatility.name: m for m in measured}
    source = FixSource(template, tuple(placeholders))
    reload = reloader(template)
    out = []
    base = measurer.render()
    for finding in findings:
        item = by_name.get(finding.variable) if finding.code in MOVING_CODES else None
        if item is None or not item.moved or finding.path != template.path:
            out.append(finding)
            continue
        modes = measurer.modes(set(item.moved), base)
        try:
            fix = build_fix(template, placeholders, modes, reload)
        except NoFix as exc:
            out.append(replace(finding, extra={**finding.extra, "fix": None, "fix_unavailable": str(exc)}))
            continue
        source.moves[finding.sort_key()] = modes
        data = {"applicability": fix.applicability, "message": fix.message,
                "edits": edits_json(template.source, fix.edits)}
        out.append(replace(finding, extra={**finding.extra, "fix": data}))
    return out, source


def applicability(modes: dict[int, str]) -> str:
    return "unsafe" if any(mode != LINE for mode in modes.values()) else "safe"
