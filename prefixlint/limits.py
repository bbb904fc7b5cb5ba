"""Every bound prefixlint puts on untrusted input, in one place (docs/reliability.md lists them).

Templates, configuration, request logs and model configs come from pull requests: a value
Python refuses (an impossible date, an integer of 5,000 digits, nesting 100,000 deep), a
device or a FIFO named as a file, or a template built to run away must end as one located
diagnostic (`PrefixlintError`, exit 2), never as a crash of the whole run or a hang.
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any

# Their old home: references and walks confined to the repository live in prefixlint.confine.
from prefixlint.confine import (  # noqa: F401
    allow_outside_paths,
    confined,
    containing_root,
    directory_root,
    inside_root,
    template_tokenizer_offline,
)
from prefixlint.errors import PrefixlintError


def _setting(name: str, default: float, kind: type = int):
    """A limit, overridable by the environment variable PREFIXLINT_<NAME> (the workflow's
    environment, not a file a pull request can edit); a malformed value keeps the default."""
    raw = os.environ.get(f"PREFIXLINT_{name}")
    try:
        value = kind(raw) if raw else default
    except ValueError:
        return default
    return value if value > 0 else default


#: Input files larger than this are refused: a prompt of 10 MiB is roughly 2.5 million tokens.
MAX_FILE_BYTES = _setting("MAX_FILE_BYTES", 10 * 1024 * 1024)
#: One request-log line longer than this is a bad line (skipped, counted), never read whole.
MAX_LINE_BYTES = _setting("MAX_LINE_BYTES", 16 * 1024 * 1024)
#: A render (template, chat template) may produce at most this many characters.
MAX_OUTPUT_CHARS = _setting("MAX_OUTPUT_CHARS", 10 * 1024 * 1024)
#: Seconds one render may take.
RENDER_SECONDS = _setting("RENDER_SECONDS", 10.0, float)
#: Seconds all the renders of one file may take together (a file renders once per volatile value).
FILE_RENDER_SECONDS = _setting("FILE_RENDER_SECONDS", 30.0, float)
#: Address space (bytes) of the worker process that checks one file (`prefixlint.sandbox.workers`):
#: past it the file is reported as over its memory budget, and the run goes on.
FILE_MEMORY_BYTES = _setting("FILE_MEMORY_BYTES", 1 << 30)
#: CPU seconds the worker checking one file may take (loading, rendering, tokenizing, measuring)
#: before the parent kills it (and four times that of wall-clock time, for a worker that waits);
#: enforced from outside the work, unlike the render limits. CPU time: a loaded machine does
#: not make a good file overrun.
FILE_SECONDS = _setting("FILE_SECONDS", 15.0, float)
#: Worker processes that check files (0: in this process, with the sandbox's bounds only).
WORKERS = _setting("WORKERS", 1) if os.environ.get("PREFIXLINT_WORKERS", "").strip() != "0" else 0
#: Volatile values measured in one prompt: each costs two renders and their tokens, so a file
#: of thousands of placeholders is refused up front instead of rendered thousands of times.
MAX_VALUES = _setting("MAX_VALUES", 100)
#: Tokens of one render of a template (a prompt of a million tokens is past every context window).
MAX_RENDER_TOKENS = _setting("MAX_RENDER_TOKENS", 1_000_000)
#: Characters of one word (a run without a space or line break) of a text to tokenize: the merge
#: of one enormous word costs more than its length (9,000,000 letters took half a minute).
MAX_WORD_CHARS = _setting("MAX_WORD_CHARS", 100_000)
#: Tokens all the renders of one file may come to (about two renders per volatile value, and
#: the fixed variants): the work of a file is at most a fixed multiple of its size.
MAX_FILE_TOKENS = _setting("MAX_FILE_TOKENS", 10_000_000)
#: `history-turns`: the turns of conversation history a system prompt is measured followed by.
MAX_HISTORY_TURNS = 1_000
#: Entries of one list or table of configuration (`select`, `exclude`, `extend-volatile` ...).
MAX_CONFIG_ITEMS = 1_000
#: Largest cache block (page) size in tokens an engine profile takes (`--block-size`).
MAX_BLOCK_TOKENS = 1 << 20
#: Most cache blocks `replay --cache-tokens/--memory` models (the pool is allocated up front).
MAX_CACHE_BLOCKS = 1 << 24
#: Digits an integer in a file or an option may have (Python's own limit is 4,300).
MAX_INT_DIGITS = 100
#: Seconds a user's regular expression (configuration `extend-volatile` samples) may take on one text.
REGEX_SECONDS = _setting("REGEX_SECONDS", 1.0, float)


#: When a list: every file `read_bytes` opens is appended to it (the result cache's dependencies,
#: `prefixlint.check.cache.tracked_reads`).
READ_LOG: list[str] | None = None


def read_bytes(source: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file `source`, read at most `max_bytes` + 1 at a time.

    The file is opened without blocking and checked after opening (through any symlink):
    a FIFO, a socket or a device (`/dev/zero`) is refused instead of blocking or being read
    until memory runs out, and a file that grows while it is read stops at the limit.
    """
    if READ_LOG is not None:
        READ_LOG.append(os.path.abspath(source))
    try:
        fd = os.open(source, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        raise open_error(exc, source) from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise PrefixlintError("is a directory, not a file", path=source)
        if not stat.S_ISREG(mode):
            raise PrefixlintError("not a regular file (a device, FIFO or socket); refused", path=source)
        if os.fstat(fd).st_size > max_bytes:
            raise too_large(source, os.fstat(fd).st_size, max_bytes)
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise open_error(exc, source) from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise too_large(source, size, max_bytes)
    return b"".join(chunks)


def too_large(source: str, size: int, max_bytes: int) -> PrefixlintError:
    if max_bytes < 1048576:
        return PrefixlintError(f"file is too large ({size:,} bytes; the limit is {max_bytes:,})", path=source)
    return PrefixlintError(f"file is too large ({size / 1048576:.1f} MiB; the limit is"
                           f" {max_bytes / 1048576:.0f} MiB)", path=source)


def read_utf8(source: str, max_bytes: int = MAX_FILE_BYTES) -> str:
    """`read_bytes`, decoded as UTF-8."""
    try:
        return read_bytes(source, max_bytes).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PrefixlintError(f"not valid UTF-8 at byte offset {exc.start}", path=source) from None


def open_error(exc: OSError, source: str) -> PrefixlintError:
    """Why a file could not be opened, in a user's words."""
    if isinstance(exc, FileNotFoundError):
        return PrefixlintError("no such file", path=source)
    if isinstance(exc, IsADirectoryError):
        return PrefixlintError("is a directory, not a file", path=source)
    if isinstance(exc, PermissionError):
        return PrefixlintError("permission denied", path=source)
    return PrefixlintError(f"cannot read: {exc.strerror or exc}", path=source)


def bounded_int(text: str) -> int:
    """`int(text)` for a digit string from a file or an option, refused past MAX_INT_DIGITS."""
    digits = text.strip().lstrip("+-").replace("_", "")
    if len(digits) > MAX_INT_DIGITS:
        raise PrefixlintError(f"a number of {len(digits):,} digits is too large (the limit is {MAX_INT_DIGITS})")
    return int(text)


def loads_json(text: str, path: str | None = None) -> Any:
    """`json.loads` with the failures Python raises outside JSONDecodeError made diagnostics:
    integers too long to convert, nesting deeper than the interpreter's recursion limit,
    `NaN` and `Infinity` (not JSON). JSONDecodeError itself is left to the caller."""
    try:
        if not _long_digits(text):  # no integer can pass the bound: the digits bounded once
            if text.startswith("\ufeff"):  # json.loads names a BOM; the decoder would not
                return json.loads(text, parse_constant=_json_constant)
            return _DECODER.decode(text)  # json.loads(text, parse_constant=...) without a new decoder each time
        return json.loads(text, parse_int=_json_int, parse_constant=_json_constant)
    except RecursionError:  # the parser does not say where: the document, from its first line
        raise too_deep(path, line=1) from None
    except PrefixlintError as exc:
        raise exc.located(path) from None


def too_deep(path: str | None, line: int | None = None) -> PrefixlintError:
    return PrefixlintError("nested too deeply (more than about 1,000 levels of lists or mappings)",
                           path=path, line=line)


#: Every ASCII digit made 0, so that one substring search finds a run of MAX_INT_DIGITS + 1.
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_RUN = b"0" * (MAX_INT_DIGITS + 1)


def _long_digits(text: str) -> bool:
    """Whether `text` holds a run of digits longer than any integer may be (JSON numbers are
    ASCII digits); only such a text has its integers parsed one by one (a long run inside a
    string is text, and allowed). Three passes in C, about 15 times faster than a regex."""
    return _LONG_RUN in text.encode("utf-8", "surrogatepass").translate(_DIGITS_AS_ZERO)


def _json_constant(name: str) -> float:
    raise PrefixlintError(f"{name} is not a JSON number")


_DECODER = json.JSONDecoder(parse_constant=_json_constant)


def _json_int(text: str) -> int:
    return bounded_int(text)


def finite(value: Any, what: str) -> float:
    """A float that is a real number (not NaN, not infinite), else a diagnostic naming `what`."""
    import math

    try:
        number = float(value)
    except (TypeError, ValueError, OverflowError):
        raise PrefixlintError(f"{what} is not a number: {str(value)[:40]!r}") from None
    if not math.isfinite(number):
        raise PrefixlintError(f"{what} is not a finite number: {value!r}")
    return number


#: A tokenizer file (tokenizer.json, tekken.json) larger than this is refused; the largest
#: published ones are a few tens of MiB.
MAX_TOKENIZER_BYTES = 256 * 1024 * 1024


def regular_file(source: str | os.PathLike, max_bytes: int = MAX_TOKENIZER_BYTES) -> str:
    """`source` if it is a regular file (through symlinks) no larger than `max_bytes`: for files
    a library reads itself (a tokenizer), which would block on a FIFO or read /dev/zero forever."""
    try:
        info = os.stat(source)
    except OSError as exc:
        raise open_error(exc, str(source)) from None
    if not stat.S_ISREG(info.st_mode):
        raise PrefixlintError("not a regular file (a device, FIFO or socket); refused", path=str(source))
    if info.st_size > max_bytes:
        raise too_large(str(source), info.st_size, max_bytes)
    return str(source)


class TimedPattern:
    """A user's regular expression, searched with a time limit (the `regex` package), so that
    `^(a|aa)+$` on a long sample cannot hang the run: past REGEX_SECONDS it is an error."""

    def __init__(self, pattern: str) -> None:
        import regex

        try:
            re.compile(pattern)  # Python's syntax and messages: what the documentation promises
            self.compiled = regex.compile(pattern)
        except (re.error, regex.error) as exc:
            raise ValueError(str(exc)) from None
        self.pattern = pattern

    def search(self, text: str):
        try:
            return self.compiled.search(text, timeout=REGEX_SECONDS)
        except TimeoutError:
            raise PrefixlintError(
                f"the regular expression {self.pattern!r} of `extend-volatile` took longer than"
                f" {REGEX_SECONDS:g} s on a sample value", hint="avoid nested repetition such as (a+)+") from None


def user_pattern(pattern: str) -> TimedPattern:
    """A configuration's regular expression (ValueError if it does not compile)."""
    return TimedPattern(pattern)
