"""The picture of `prefixlint report`: per changed template, a bar of the share the engine
reuses at the base and at the compared revision (the same label as the header), in Unicode block
characters inside a `text` code block (GitHub Markdown shows it in a monospace font, and nothing is fetched to draw it)."""

from __future__ import annotations

from typing import Sequence

#: Cells of a bar; each is 5 percentage points.
WIDTH = 20
#: The last filled cell in eighths: nothing, 1/8 ... 7/8.
EIGHTHS = ("", "▏", "▎", "▍", "▌", "▋", "▊", "▉")
HEAD_LABEL = "working tree"


def bar(share: float) -> str:
    """`share` percent as WIDTH cells: █ full, a partial cell in eighths, ░ empty."""
    cells = max(0.0, min(share, 100.0)) * WIDTH / 100
    full = int(cells)
    partial = EIGHTHS[int((cells - full) * 8)] if full < WIDTH else ""
    return ("█" * full + partial).ljust(WIDTH, "░")


def picture(rows: Sequence, base_label: str, rounding: str, head_label: str = HEAD_LABEL) -> list[str]:
    """Markdown lines: a caption and one code block with the bars of the changed templates."""
    shown = [row for row in rows if row.status != "unchanged"
             and not (row.base and row.base.error) and not (row.now and row.now.error)]
    if not shown:
        return []
    width = max(len(base_label), len(head_label))
    lines = [f"{rounding}, `{base_label}` → `{head_label}`: █ reused, ░ computed again", "", "```text"]
    for row in shown:
        lines.append(row.path)
        for label, side in ((base_label, row.base), (head_label, row.now)):
            if side is not None:
                share = side.reusable_share()
                lines.append(f"  {label:<{width}}  {bar(share)} {share:5.1f}%")
    return lines + ["```"]
