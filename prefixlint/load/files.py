"""Read an input file as text, refusing what is not a prompt: too large, binary, not UTF-8."""

from __future__ import annotations

import sys

from prefixlint.errors import PrefixlintError
from prefixlint.limits import MAX_FILE_BYTES as MAX_BYTES
from prefixlint.limits import open_error, read_bytes  # noqa: F401 - open_error: its home was here


class EmptyFile(PrefixlintError):
    """A file with no text: for `check`, nothing to measure (not an error); `compare` refuses it."""

    @property
    def reason(self) -> str:
        """Why `check` skips the file, as `--show-files` and JSON say it."""
        return "empty: nothing to measure"


class TextElsewhere(EmptyFile):
    """A file whose prompt is all another package's text (`prompt: TEMPLATE`, imported from
    `langchain/memory`): measured where that text is written, nothing of it here."""

    @property
    def reason(self) -> str:
        return str(self.args[0])


class EmptyBody(EmptyFile):
    """A prompt file whose front matter declares a prompt with no body (a Dotprompt or Prompty
    file holding only its settings): nothing to measure, not an error."""

    @property
    def reason(self) -> str:
        return f"{self.args[0]}: nothing to measure"


STDIN = "-"
STDIN_NAME = "<stdin>"  # how standard input is named in diagnostics


def decode_text(data: bytes, source: str, *, allow_empty: bool = False) -> str:
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise PrefixlintError("binary file (it contains NUL bytes), not a prompt", path=source, line=line)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        head = data[: exc.start]
        line = head.count(b"\n") + 1
        column = len(head[head.rfind(b"\n") + 1 :].decode("utf-8", errors="replace")) + 1
        raise PrefixlintError(
            f"not valid UTF-8: byte 0x{data[exc.start]:02x} at byte offset {exc.start}",
            path=source, line=line, column=column,
            hint="save the file as UTF-8",
        ) from None
    text = text.removeprefix("\ufeff")
    if not text and not allow_empty:
        raise EmptyFile("file is empty", path=source)
    return text


def read_text(source: str, *, max_bytes: int = MAX_BYTES, allow_empty: bool = False) -> str:
    """The text of `source` (a path, or `-` for standard input)."""
    if source == STDIN:
        source = STDIN_NAME
        data = sys.stdin.buffer.read(max_bytes + 1)
    else:
        data = read_bytes(source, max_bytes)
    if len(data) > max_bytes:
        raise PrefixlintError(f"input is larger than {max_bytes / 1048576:.0f} MiB", path=source)
    return decode_text(data, source, allow_empty=allow_empty)
