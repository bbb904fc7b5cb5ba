"""Read files as they are at a git revision: the base side of `prefixlint report --base REF`.

Plain git plumbing through subprocess (`rev-parse`, `ls-tree`, `cat-file`, `diff
--name-status`), always with paths relative to the repository root and forward slashes.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from prefixlint.errors import PrefixlintError


@dataclass(frozen=True)
class FileChange:
    """One file as it is at the base revision and in the working tree."""

    path: str  # repository-relative; for a removed file, its path at the base
    status: str  # added | removed | modified | renamed | unchanged
    base_blob: str | None  # blob id at the base, None when added
    old_path: str | None = None  # the base path of a renamed file


@dataclass(frozen=True)
class Repository:
    root: Path

    def git(self, *args: str, data: bytes | None = None) -> bytes:
        return run_git(self.root, *args, data=data)

    def commit(self, ref: str) -> str:
        """The full commit id `ref` names; a located error when it names none."""
        try:
            return self.git("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()
        except PrefixlintError:
            raise PrefixlintError(
                f"unknown git revision {ref!r}",
                hint="fetch it first (actions/checkout with `fetch-depth: 0`), or pass a branch, tag or commit",
            ) from None

    def tree(self, commit: str) -> dict[str, str]:
        """Every file at `commit`: repository-relative path -> blob id (submodules left out)."""
        files: dict[str, str] = {}
        for entry in self.git("ls-tree", "-r", "-z", "--full-tree", commit).split(b"\0"):
            if not entry:
                continue
            meta, _, path = entry.partition(b"\t")
            _mode, kind, blob = meta.decode().split()
            if kind == "blob":
                files[path.decode("utf-8", errors="surrogateescape")] = blob
        return files

    def blob(self, blob_id: str, path: str | None = None, max_bytes: int | None = None) -> bytes:
        """The blob's bytes; one larger than `max_bytes` (the limit of a file on disk) is refused
        by its size (`git cat-file -s`) before a byte of it is read."""
        from prefixlint.limits import MAX_FILE_BYTES, too_large

        limit = MAX_FILE_BYTES if max_bytes is None else max_bytes
        size = self.blob_size(blob_id)
        if size > limit:
            raise too_large(path or blob_id, size, limit)
        return self.git("cat-file", "blob", blob_id)

    def blob_size(self, blob_id: str) -> int:
        return int(self.git("cat-file", "-s", blob_id).decode().strip())

    def renames(self, commit: str) -> dict[str, str]:
        """Files renamed between `commit` and the working tree: new path -> old path."""
        out = self.git("diff", "--name-status", "-z", "-M", commit, "--")
        fields = [field.decode("utf-8", errors="surrogateescape") for field in out.split(b"\0")]
        moved: dict[str, str] = {}
        i = 0
        while i < len(fields) and fields[i]:
            status = fields[i]
            if status.startswith(("R", "C")):
                if status.startswith("R"):
                    moved[fields[i + 2]] = fields[i + 1]
                i += 3
            else:
                i += 2
        return moved

    def working_files(self) -> list[str]:
        """Files in the working tree that git tracks or would track (.gitignore respected)."""
        out = self.git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
        names = {name.decode("utf-8", errors="surrogateescape") for name in out.split(b"\0") if name}
        return sorted(name for name in names if (self.root / name).is_file())

    def blob_ids(self, paths: list[str]) -> dict[str, str]:
        """The blob id each working-tree file would get if added (git's filters applied)."""
        if not paths:
            return {}
        out = self.git("hash-object", "--stdin-paths", data="\n".join(paths).encode() + b"\n")
        return dict(zip(paths, out.decode().split(), strict=True))

    def compare(self, commit: str, wanted: Callable[[str], bool]) -> list[FileChange]:
        """Every `wanted` file at `commit` or in the working tree, with what happened to it."""
        base = {path: blob for path, blob in self.tree(commit).items() if wanted(path)}
        now = [path for path in self.working_files() if wanted(path)]
        moved = {new: old for new, old in self.renames(commit).items() if new in now and old in base}
        current = self.blob_ids(now)
        changes = []
        for path in now:
            if path in moved:
                changes.append(FileChange(path, "renamed", base[moved[path]], moved[path]))
            elif path not in base:
                changes.append(FileChange(path, "added", None))
            else:
                status = "unchanged" if base[path] == current[path] else "modified"
                changes.append(FileChange(path, status, base[path]))
        gone = set(base) - set(now) - set(moved.values())
        changes += [FileChange(path, "removed", base[path]) for path in gone]
        return sorted(changes, key=lambda change: change.path)

    def relative(self, path: str | os.PathLike) -> str:
        """`path` (relative to the current directory, or absolute) relative to the root."""
        absolute = Path(os.path.abspath(path))
        try:
            return absolute.relative_to(self.root).as_posix()
        except ValueError:
            raise PrefixlintError("is outside the git repository", path=str(path)) from None


def run_git(cwd: Path, *args: str, data: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(
            ["git", "-c", "core.quotepath=off", *args], cwd=cwd, input=data,
            capture_output=True, check=False,
        )
    except FileNotFoundError:
        raise PrefixlintError("git is not installed", hint="install git, or run without --base") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip() or f"git {args[0]} failed"
        raise PrefixlintError(message.splitlines()[-1].removeprefix("fatal: "))
    return done.stdout


def open_repository(start: str | os.PathLike = ".") -> Repository:
    """The repository containing `start`; a clear error outside one."""
    try:
        top = run_git(Path(start), "rev-parse", "--show-toplevel").decode().strip()
    except PrefixlintError:
        raise PrefixlintError(
            "not inside a git repository", path=str(start),
            hint="`prefixlint report --base` compares the working tree with a git revision",
        ) from None
    return Repository(Path(top).resolve())


def repository_root(start: str | os.PathLike = ".") -> Path:
    """The git work tree root containing `start`, or `start` itself outside a repository."""
    try:
        return open_repository(start).root
    except PrefixlintError:
        return Path(start).resolve()
