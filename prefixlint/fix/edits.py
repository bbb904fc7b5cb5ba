"""An edit of a file's text, as ruff has them: replace [start, end) with `content`.

Offsets are 0-based characters of the text as read (BOM removed); the JSON output gives each
edit's start and end as 1-based line and column, end exclusive, as ruff does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Sequence, overload

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


class EditedLineStarts(Sequence[int]):
    """`line_starts(apply_edits(text, edits))`, each start worked out when asked for from the line
    starts of `text` and the edits' contents: a fix of one prompt of a large module costs that
    prompt's edits, not the module's lines (a fixed template asks for a few positions)."""

    def __init__(self, text: str, edits: Iterable[Edit]) -> None:
        from bisect import bisect_right

        self._starts = starts = line_starts(text)
        #: runs of the result, in order: (its first index, the first index in `starts` or -1 for
        #: the starts an edit's content adds, what to add to the starts or those starts)
        self._runs: list[tuple[int, int, Any]] = []
        self._firsts: list[int] = []
        length = cursor = delta = 0  # where the text after the last edit starts; what the edits so far add

        def add(first: int, data) -> None:
            nonlocal length
            size = len(data) if first < 0 else data[1] - first
            if size:
                self._runs.append((length, first, data))
                self._firsts.append(length)
                length += size

        add(-1, (0,))
        for edit in sorted(edits, key=lambda e: (e.start, e.end)):
            add(bisect_right(starts, cursor), (delta, bisect_right(starts, edit.start)))
            at = edit.start + delta
            add(-1, tuple(at + k + 1 for k, char in enumerate(edit.content) if char == "\n"))
            delta += len(edit.content) - (edit.end - edit.start)
            cursor = edit.end
        add(bisect_right(starts, cursor), (delta, len(starts)))
        self._length = length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> int: ...
    @overload
    def __getitem__(self, index: slice) -> list[int]: ...
    def __getitem__(self, index):
        from bisect import bisect_right

        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._length))]
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("line start index out of range")
        begin, first, data = self._runs[bisect_right(self._firsts, index) - 1]
        return data[index - begin] if first < 0 else self._starts[first + index - begin] + data[0]


def position(starts: Sequence[int], offset: int) -> dict[str, int]:
    from bisect import bisect_right

    line = bisect_right(starts, offset)
    return {"line": line, "column": offset - starts[line - 1] + 1}


def edits_json(text: str, edits: Sequence[Edit]) -> list[dict]:
    """Ruff's edit shape with prefixlint's position names: start, end ({line, column}), content."""
    starts = line_starts(text)
    return [{"start": position(starts, e.start), "end": position(starts, e.end), "content": e.content}
            for e in sorted(edits)]
