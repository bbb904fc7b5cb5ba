"""tiktoken encodings (o200k_base, cl100k_base, o200k_harmony), offline from shipped rank files.

tiktoken keeps downloaded rank files in its cache (`TIKTOKEN_CACHE_DIR`, else
`$TMPDIR/data-gym-cache`) under the sha1 of their URL. A verified file already there is used
as it is. Otherwise the copy shipped in this package is verified against the sha256 that
tiktoken expects and written into that cache, and tiktoken then loads it through its own code
path, so prefixlint never downloads a rank file.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from prefixlint.errors import PrefixlintError
from prefixlint.tokenize.base import BaseTokenizer
from prefixlint.tokenize.bytelevel import char_offset_from_bytes

_BASE_URL = "https://openaipublic.blob.core.windows.net/encodings/"

#: A line break followed by a letter. No piece of o200k_base's or cl100k_base's pre-tokenizer
#: (the regular expression that splits a text before BPE runs inside each piece) spans it:
#: a piece holding the line break is whitespace, or punctuation followed by line breaks (and,
#: in o200k_base, `/`), and a letter ends both; pieces are matched left to right and none looks
#: further than one character past its end, where the cut leaves the same decision (cl100k's
#: `\s++$` takes at the end of the first text the same whitespace run that `\s*[\r\n]` takes
#: in the whole). Special tokens hold no line break. So the ids of the text before the cut
#: followed by those of the text after it are exactly the ids of the whole text.
LINE_START = re.compile(r"(?<=\n)(?=[^\W\d_])")
#: The same cuts found from the line break itself (the regular expression engine then skips to
#: each line break instead of trying both look-arounds at every character: a third of the time).
_LINE_BREAK_BEFORE_LETTER = re.compile(r"\n(?=[^\W\d_])")


def line_pieces(text: str) -> list[str]:
    """`LINE_START.split(text)`: the text cut after each line break followed by a letter."""
    pieces, last = [], 0
    for cut in _LINE_BREAK_BEFORE_LETTER.finditer(text):
        pieces.append(text[last : cut.end()])
        last = cut.end()
    pieces.append(text[last:])
    return pieces


@dataclass(frozen=True)
class RankFile:
    url: str
    sha256: str
    shipped: str  # file name under prefixlint/tokenize/data/


RANK_FILES = {
    "o200k_base": RankFile(
        _BASE_URL + "o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
        "o200k_base.tiktoken.gz",
    ),
    "cl100k_base": RankFile(
        _BASE_URL + "cl100k_base.tiktoken",
        "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "cl100k_base.tiktoken.gz",
    ),
}
# Which rank file each supported encoding is built from.
ENCODING_RANKS = {"o200k_base": "o200k_base", "o200k_harmony": "o200k_base", "cl100k_base": "cl100k_base"}


def tiktoken_cache_dir() -> str:
    """The directory tiktoken reads and writes, decided exactly as `tiktoken.load` does."""
    if "TIKTOKEN_CACHE_DIR" in os.environ:
        return os.environ["TIKTOKEN_CACHE_DIR"]
    if "DATA_GYM_CACHE_DIR" in os.environ:
        return os.environ["DATA_GYM_CACHE_DIR"]
    return os.path.join(tempfile.gettempdir(), "data-gym-cache")


def cache_path(rank_file: RankFile, cache_dir: str) -> Path:
    return Path(cache_dir) / hashlib.sha1(rank_file.url.encode()).hexdigest()


def _verified(path: Path, sha256: str) -> bool:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == sha256
    except OSError:
        return False


def shipped_ranks(rank_file: RankFile) -> bytes:
    """The rank file shipped in this package, checked against tiktoken's expected sha256."""
    import gzip
    from importlib import resources

    blob = resources.files("prefixlint.tokenize").joinpath("data", rank_file.shipped).read_bytes()
    data = gzip.decompress(blob)
    if hashlib.sha256(data).hexdigest() != rank_file.sha256:
        raise PrefixlintError(
            f"the shipped rank file {rank_file.shipped} does not match tiktoken's sha256",
            hint="reinstall prefixlint: `pip install --force-reinstall prefixlint`",
        )
    return data


@contextmanager
def environment(name: str, value: str) -> Iterator[None]:
    """`os.environ[name] = value` for the duration of the block (tiktoken and openai-harmony
    read their rank-file locations there), then as it was."""
    previous = os.environ.get(name)
    os.environ[name] = value
    try:
        yield
    finally:
        if previous is None:
            del os.environ[name]
        else:
            os.environ[name] = previous


def write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def ensure_cached(rank_file: RankFile) -> str:
    """Make tiktoken's cache hold a verified copy of `rank_file`; return the cache dir to use."""
    cache_dir = tiktoken_cache_dir()
    if cache_dir and _verified(cache_path(rank_file, cache_dir), rank_file.sha256):
        return cache_dir
    data = shipped_ranks(rank_file)
    candidates = [cache_dir] if cache_dir else []  # "" means the user turned tiktoken's cache off
    candidates.append(os.path.join(tempfile.gettempdir(), f"prefixlint-tiktoken-{os.getuid()}"))
    for directory in candidates:
        try:
            write_atomically(cache_path(rank_file, directory), data)
            return directory
        except OSError:
            continue
    raise PrefixlintError(
        f"cannot write the {rank_file.shipped} rank file to a tiktoken cache directory",
        hint="set TIKTOKEN_CACHE_DIR to a writable directory",
    )


class TiktokenTokenizer(BaseTokenizer):
    family = "tiktoken"

    def __init__(self, encoding_name: str) -> None:
        import tiktoken

        rank_file = RANK_FILES[ENCODING_RANKS[encoding_name]]
        cache_dir = ensure_cached(rank_file)
        with environment("TIKTOKEN_CACHE_DIR", cache_dir):
            self._encoding = tiktoken.get_encoding(encoding_name)
        self.name = encoding_name

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        # Servers parse special-token text in a rendered prompt as the special token.
        return self._encoding.encode(text, allowed_special="all")

    def encode_lines(self, text: str, cache: dict[str, list[int]]) -> list[int]:
        """`encode(text)`, built from the ids of its pieces between `LINE_START` cuts, each
        looked up in `cache` (and added to it): renders of one template that share most of their
        lines tokenize only the lines where they differ."""
        ids: list[int] = []
        for piece in line_pieces(text):
            found = cache.get(piece)
            if found is None:
                found = cache[piece] = self.encode(piece)
            ids += found
        return ids

    def char_offset(self, text: str, ids: Sequence[int], index: int) -> int:
        return char_offset_from_bytes(text, len(self._encoding.decode_bytes(list(ids[:index]))))

    def token_text(self, token_id: int) -> str:
        return self._encoding.decode_single_token_bytes(token_id).decode("utf-8", errors="replace")


class TiktokenTexts:
    """The text of a tiktoken encoding's ids without building its encoder (what a report of a
    token-id log needs): OpenAI's rank files list `base64(token bytes) rank` with the rank equal
    to the line number, so id N is line N. An id past them (a special token) or a line that does
    not hold its id is asked of tiktoken itself."""

    family = "tiktoken"

    def __init__(self, encoding_name: str) -> None:
        rank_file = RANK_FILES[ENCODING_RANKS[encoding_name]]
        self.name = encoding_name
        self._lines = cache_path(rank_file, ensure_cached(rank_file)).read_bytes().split(b"\n")

    def token_text(self, token_id: int) -> str:
        if 0 <= token_id < len(self._lines):
            piece, _, rank = self._lines[token_id].partition(b" ")
            if rank == b"%d" % token_id:
                return base64.b64decode(piece).decode("utf-8", errors="replace")
        from prefixlint.tokenize.registry import load

        return load(self.name).token_text(token_id)
