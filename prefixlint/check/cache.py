"""The result cache of `prefixlint check` (`.prefixlint_cache/`, as ruff's `.ruff_cache/`).

A file's results are kept under a key made of prefixlint's build (its version and the size and
modification time of each of its own files, so an edited checkout is a new build), the file's path and
content, its whole configuration (`Config`, flags merged) and the identity of the tokenizer
it names (a path's files by size and modification time). Every other file the check read
(a LangChain `template_path`, Prompty `${file:...}` samples, a chat template) is recorded
with its sha256 and checked on a hit, so a changed reference is a miss. Files measured with
a model's chat template or through a promptfoo configuration are not cached (their results
are shared between files), nor are files that fail, nor a file with a prompt nothing in the
repository reads (`load.reach`: a caller added anywhere would change it). What only `--fix`, `--diff` and `--format
html` use (a result's `fix_sources` and `token_view`: closures over the loaded template) is not
stored: those runs do not use the cache.

Entries are pickles signed with HMAC-SHA256 under a key kept in the user's cache directory,
never in the repository: a `.prefixlint_cache/` committed by someone else is not loaded.
`--no-cache` (or `PREFIXLINT_NO_CACHE=1`) neither reads nor writes; `PREFIXLINT_CACHE_DIR`
moves the cache. The `PREFIXLINT_*` limits in the environment are part of the key.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import secrets
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Iterator

from prefixlint import __version__

CACHE_DIR = ".prefixlint_cache"


def enabled() -> bool:
    return os.environ.get("PREFIXLINT_NO_CACHE", "") in ("", "0")


def _secret() -> bytes:
    home = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "prefixlint"
    key_file = home / "cache-key"
    try:
        return key_file.read_bytes()
    except OSError:
        pass
    key = secrets.token_bytes(32)
    try:
        home.mkdir(parents=True, exist_ok=True)
        fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(key)
    except FileExistsError:
        return key_file.read_bytes()
    except OSError:
        pass  # an unwritable home: this process's key only (its entries never hit later)
    return key


@cache
def build_identity() -> str:
    """prefixlint's version and the size and modification time of every file of the package.

    A release has one identity; an editable checkout gets a new one with each edit, so a result
    computed by older code is never served (a few hundred `stat` calls, once per process)."""
    package = Path(__file__).resolve().parent.parent
    parts = [__version__]
    for path in sorted(package.rglob("*")):
        if path.suffix in (".py", ".yaml", ".toml", ".json") and "__pycache__" not in path.parts:
            try:
                stat = path.stat()
            except OSError:
                continue
            parts.append(f"{path.relative_to(package)}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def tokenizer_identity(spec: str | None) -> str:
    """A tokenizer name, and for a path the size and modification time of its files."""
    if not spec or not os.path.exists(spec):
        return str(spec)
    root = Path(spec)
    files = sorted(root.iterdir()) if root.is_dir() else [root]
    return repr([(f.name, f.stat().st_size, f.stat().st_mtime_ns) for f in files if f.is_file()])


def _sha256(path: str) -> str | None:
    content = _content(path)
    return None if content is None else hashlib.sha256(content).hexdigest()


def _content(path: str) -> bytes | None:
    """The bytes of a regular file within the file limit, else None (nothing cached for it): a
    FIFO would block the run here and /dev/zero be read until memory runs out, before the file is
    even checked (where it gets its diagnostic)."""
    from prefixlint.errors import PrefixlintError
    from prefixlint.limits import read_bytes

    try:
        return read_bytes(path)
    except PrefixlintError:
        return None


class ResultCache:
    def __init__(self, root: Path | None = None) -> None:
        self.root = Path(os.environ.get("PREFIXLINT_CACHE_DIR") or root or CACHE_DIR) / __version__
        self._secret = _secret()
        self.hits = self.misses = 0

    def key(self, path: str, config_repr: str, tokenizer: str | None) -> str | None:
        content = _content(path)
        if content is None:
            return None
        digest = hashlib.sha256()
        limits = repr(sorted((k, v) for k, v in os.environ.items() if k.startswith("PREFIXLINT_")))
        for part in (build_identity(), os.path.abspath(path), config_repr, tokenizer_identity(tokenizer), limits):
            digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(content)
        return digest.hexdigest()

    def get(self, key: str):
        """The results stored under `key` if every file they read is unchanged; else None."""
        try:
            blob = (self.root / key[:2] / key).read_bytes()
        except OSError:
            self.misses += 1
            return None
        mac, data = blob[:32], blob[32:]
        if len(blob) < 32 or not hmac.compare_digest(mac, hmac.new(self._secret, data, "sha256").digest()):
            self.misses += 1
            return None
        try:
            results, reads = pickle.loads(data)
        except Exception:
            self.misses += 1
            return None
        if any(_sha256(path) != sha for path, sha in reads):
            self.misses += 1
            return None
        self.hits += 1
        return results

    def put(self, key: str, results: list, reads: list[str]) -> None:
        try:
            data = pickle.dumps((results, [(path, _sha256(path)) for path in sorted(set(reads))]))
            folder = self.root / key[:2]
            folder.mkdir(parents=True, exist_ok=True)
            (self.root.parent / ".gitignore").write_text("# created by prefixlint\n*\n")
            temporary = folder / f".{key}.{os.getpid()}"
            temporary.write_bytes(hmac.new(self._secret, data, "sha256").digest() + data)
            os.replace(temporary, folder / key)
        except Exception:  # an unwritable folder, an unpicklable result: no cache, same output
            return


@contextmanager
def tracked_reads() -> Iterator[list[str]]:
    """Every file `prefixlint.limits.read_bytes` opens inside the block, in order."""
    from prefixlint import limits

    reads: list[str] = []
    previous = limits.READ_LOG
    limits.READ_LOG = reads
    try:
        yield reads
    finally:
        limits.READ_LOG = previous


def check_cached(files: list[str], settings_for, walked: frozenset[str], cache: ResultCache, *,
                 progress=None) -> list:
    """`check_files(files, ...)`, taking each file's results from `cache` where its key hits
    and storing those of the files checked now that qualify (see the module's docstring)."""
    from prefixlint.check.runner import check_files
    from prefixlint.errors import PrefixlintError

    keys: dict[str, str | None] = {}
    hits: dict[str, list] = {}
    for path in files:
        try:
            config = settings_for.config(path)
        except PrefixlintError:
            keys[path] = None
            continue
        context = repr((config, settings_for.offline, settings_for.token_view, path in walked))
        keys[path] = key = cache.key(path, context, config.tokenizer)
        found = cache.get(key) if key else None
        if found is not None:
            hits[path] = found
            if progress is not None:
                progress()
    misses = [path for path in files if path not in hits]
    reads: dict[str, list[str]] = {}  # what checking each file read, in its worker
    results = check_files(misses, settings_for, walked, progress=progress, reads=reads.__setitem__) if misses else []
    by_file: dict[str, list] = {path: [] for path in misses}
    extra: list = []
    for result in results:
        # A file a promptfoo configuration references stays where `check_files` put it: after
        # its configuration's own results (not at the end, which reordered the output).
        home = result.path if result.path in by_file else result.config if result.config in by_file else None
        (by_file[home] if home is not None else extra).append(result)
    # A promptfoo configuration and the files it references are measured together: not cached.
    shared = {path for result in results if result.config for path in (result.path, result.config)}
    for path in misses:
        own, segment = by_file[path], reads.get(path, [])
        key = keys.get(path)
        if (path not in shared and key and os.path.abspath(path) in segment
                and all(r.error is None and r.chat_format != "jinja" for r in own)
                and not any("unread" in f.extra for r in own for f in r.findings)):  # read from the whole repository
            cache.put(key, [replace(r, fix_sources=(), token_view=None) for r in own], segment)
    return [r for path in files for r in (hits[path] if path in hits else by_file[path])] + extra
