"""An edit of a file's text, as ruff has them: replace [start, end) with `content`.

Offsets are 0-based characters of the text as read (BOM removed); the JSON output gives each
edit's start and end as 1-based line and column, end exclusive, as ruff does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from prefixlint.load.template import line_starts


@dataclass(frozen=True, order=True)
class Edit:
    start: int
    end: int
    content: str


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """`text` with every edit made; edits must not overlap (an insertion at the start of a
    deletion goes before it)."""
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    out, last = [], 0
    for edit in ordered:
        if edit.start < last:
            raise ValueError(f"overlapping edits at offset {edit.start}")
        out.append(text[last : edit.start])
        out.append(edit.content)
        last = edit.end
    out.append(text[last:])
    return "".join(out)


def edited_line_starts(text: str, edits: Iterable[Edit]) -> list[int]:
    """`line_starts(apply_edits(text, edits))` from the line starts of `text`: only the edits'
    contents are read, the lines between them are shifted (a fix of one prompt of a large module
    costs that prompt)."""
    from bisect import bisect_right

    starts, out = line_starts(text), [0]
    cursor = delta = 0  # where the text after the last edit starts; what the edits so far add
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        out += map(delta.__add__, starts[bisect_right(starts, cursor) : bisect_right(starts, edit.start)])
        at = edit.start + delta
        out += (at + k + 1 for k, char in enumerate(edit.content) if char == "\n")
        delta += len(edit.content) - (edit.end - edit.start)
        cursor = edit.end
    out += map(delta.__add__, starts[bisect_right(starts, cursor) :])
    return out


def position(starts: Sequence[int], offset: int) -> dict[str, int]:
    from bisect import bisect_right

    line = bisect_right(starts, offset)
    return {"line": line, "column": offset - starts[line - 1] + 1}


def edits_json(text: str, edits: Sequence[Edit]) -> list[dict]:
    """Ruff's edit shape with prefixlint's position names: start, end ({line, column}), content."""
    starts = line_starts(text)
    return [{"start": position(starts, e.start), "end": position(starts, e.end), "content": e.content}
            for e in sorted(edits)]
