"""Positions in an open document: prefixlint's and the editor's.

prefixlint counts lines split at "\\n" and columns in characters (code points), 1-based, in the
text as loaded (a byte-order mark removed). LSP counts 0-based lines ended by "\\r\\n", "\\r" or
"\\n", and columns in the code units the client and server agreed on (UTF-16 unless
negotiated otherwise). Both go through the character offset in the document's text, so a
file with lone "\\r" line ends, or a form feed or U+2028 in a line, is placed right too.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

BOM = "\ufeff"
LSP_LINE_END = re.compile(r"\r\n|\r|\n")


def _units(text: str, encoding: str) -> int:
    if encoding == "utf-32":
        return len(text)
    if encoding == "utf-8":
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


@dataclass
class LineIndex:
    """The lines of a document's text (as the editor holds it, BOM included)."""

    text: str
    encoding: str = "utf-16"
    #: Characters the loader does not see at the start of line 1 (a byte-order mark).
    shift: int = field(init=False)
    _starts: list[int] = field(init=False, repr=False)  # prefixlint's lines, offsets in `text`
    _lsp_starts: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.shift = 1 if self.text.startswith(BOM) else 0
        self._starts = [self.shift] + [m.end() for m in re.finditer("\n", self.text)]
        self._lsp_starts = [0] + [m.end() for m in LSP_LINE_END.finditer(self.text)]

    @property
    def loaded_text(self) -> str:
        """The text prefixlint checks: without the byte-order mark."""
        return self.text[self.shift:]

    def _line_span(self, line: int | None) -> tuple[int, int]:
        """[start, end) offsets of prefixlint's 1-based line, its "\\n" included."""
        number = min(max(line or 1, 1), len(self._starts))
        end = self._starts[number] if number < len(self._starts) else len(self.text)
        return self._starts[number - 1], end

    def _lsp(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._lsp_starts, offset) - 1
        return line, _units(self.text[self._lsp_starts[line]: offset], self.encoding)

    def position(self, line: int | None, column: int | None = None) -> tuple[int, int]:
        """(LSP line, LSP character) of a prefixlint 1-based line and column (None: the line's start)."""
        start, end = self._line_span(line)
        return self._lsp(min(start + max((column or 1) - 1, 0), end - 1 if end > start and
                             self.text[end - 1] == "\n" else end))

    def line_end(self, line: int | None) -> tuple[int, int]:
        """(LSP line, character) of the end of a prefixlint 1-based line (before "\\r\\n" or "\\n")."""
        start, end = self._line_span(line)
        body = self.text[start:end].removesuffix("\n").removesuffix("\r")
        return self._lsp(start + len(body))

    def end(self) -> tuple[int, int]:
        """The end of the document."""
        return self._lsp(len(self.text))

    def from_lsp(self, line: int, character: int) -> tuple[int, int]:
        """(1-based line, 1-based column in characters, as prefixlint counts) of an LSP position."""
        number = min(max(line, 0), len(self._lsp_starts) - 1)
        start = self._lsp_starts[number]
        stop = self._lsp_starts[number + 1] - 1 if number + 1 < len(self._lsp_starts) else len(self.text)
        offset, units = start, 0
        while offset < stop and units < character:
            units += _units(self.text[offset], self.encoding)
            offset += 1
        line_number = bisect_right(self._starts, offset) if offset >= self.shift else 1
        return line_number, max(offset - self._starts[line_number - 1], 0) + 1
