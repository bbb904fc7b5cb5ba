"""Writing a fixed file so that no failure can lose data (issue 24 item 5).

The fixed text goes to a temporary file in the same directory, is flushed and fsynced, takes
the original's mode, and is renamed over the original: a full disk, a kill or any other
failure part-way leaves the original whole (at worst a stray temporary file, removed when the
failure is an exception). A path that is a symbolic link is written through to its target,
which must lie inside the repository, as every other reference must (`limits.confined`).
"""

from __future__ import annotations

import os
import stat
import tempfile

from prefixlint.errors import PrefixlintError


def target_of(path: str) -> str:
    """The file `path` names, every link resolved; refused when a link leads outside the repository."""
    from prefixlint.limits import containing_root, inside_root

    if os.path.islink(path) and not inside_root(path, containing_root(os.path.abspath(path))):
        raise PrefixlintError("not fixed: it is a link to a file outside the repository; refused", path=path,
                              hint="fix the target in its own repository, or pass --allow-outside-paths")
    return os.path.realpath(path)


def replace_atomically(path: str, data: bytes) -> None:
    """Write `data` as the new content of `path` (through a link inside the repository)."""
    target = target_of(path)
    directory = os.path.dirname(target) or "."
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
        handle, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".prefixlint-fix",
                                             dir=directory)
    except OSError as exc:
        raise PrefixlintError(f"not fixed: {exc.strerror}", path=path) from None
    try:
        with os.fdopen(handle, "wb") as out:
            view = memoryview(data)
            while view:  # os.write may write less than asked
                written = os.write(out.fileno(), view)
                view = view[written:]
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException as exc:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise PrefixlintError(f"not fixed, the file is as it was: {exc.strerror or exc}", path=path) from None
        raise
    _sync_directory(directory)


def _sync_directory(directory: str) -> None:
    """The rename itself made durable (where the platform allows opening a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
