"""Positions in an open document: prefixlint's and the editor's.

prefixlint counts lines split at "\\n" and columns in characters (code points), 1-based, in the
text as loaded (a byte-order mark removed). LSP counts 0-based lines and columns in the code
units the client and server agreed on (UTF-16 unless negotiated otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass, field

BOM = "\ufeff"


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
    lines: list[str] = field(init=False)
    #: Characters the loader does not see at the start of line 1 (a byte-order mark).
    shift: int = field(init=False)

    def __post_init__(self) -> None:
        self.lines = self.text.split("\n")
        self.shift = 1 if self.text.startswith(BOM) else 0

    @property
    def loaded_text(self) -> str:
        """The text prefixlint checks: without the byte-order mark."""
        return self.text[self.shift:]

    def line_text(self, line: int) -> str:
        """Line `line` (1-based) without its line ending; "" past the end."""
        if not 1 <= line <= len(self.lines):
            return ""
        return self.lines[line - 1].removesuffix("\r")

    def position(self, line: int | None, column: int | None = None) -> tuple[int, int]:
        """(LSP line, LSP character) of a prefixlint 1-based line and column (None: the line's start)."""
        line = min(max(line or 1, 1), len(self.lines))
        text = self.lines[line - 1]
        chars = max((column or 1) - 1, 0) + (self.shift if line == 1 else 0)
        return line - 1, _units(text[: min(chars, len(text))], self.encoding)

    def line_end(self, line: int | None) -> tuple[int, int]:
        """(LSP line, character) of the end of a prefixlint 1-based line (before its line ending)."""
        line = min(max(line or 1, 1), len(self.lines))
        return line - 1, _units(self.line_text(line), self.encoding)

    def end(self) -> tuple[int, int]:
        """The end of the document."""
        return len(self.lines) - 1, _units(self.lines[-1], self.encoding)

    def from_lsp(self, line: int, character: int) -> tuple[int, int]:
        """(1-based line, 1-based column in characters, as prefixlint counts) of an LSP position."""
        number = min(max(line, 0), len(self.lines) - 1)
        text = self.lines[number]
        units, index = 0, len(text)  # past the line's end: its end
        for at, char in enumerate(text):
            if units >= character:
                index = at
                break
            units += _units(char, self.encoding)
        column = index + 1 - (self.shift if number == 0 else 0)
        return number + 1, max(column, 1)
