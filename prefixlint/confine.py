"""References stay inside the repository: `--allow-outside-paths` is the one way out.

A template, a configuration or a directory walk names files: LangChain `template_path`,
promptfoo `file://` (globs included), a template's or a configuration's `tokenizer:` and
`chat-template`, symlinks. A pull request must not make the linter read and report
`/etc/passwd` or `~/.ssh`, nor walk the whole filesystem for `file:///*/*/*/*/*`: every such
path is resolved and refused outside the repository, and a glob is matched by walking the
repository only, a bounded number of entries.
"""

from __future__ import annotations

import fnmatch
import os
import re

from prefixlint.errors import PrefixlintError

#: `--allow-outside-paths`: files a template refers to (LangChain `template_path`, promptfoo
#: `file://`) and symlinks found by a walk may lead outside the repository. Off by default: a
#: pull request must not make the linter read and report `/etc/passwd` or `~/.ssh`.
_outside_paths = {"allowed": False}


def allow_outside_paths(allowed: bool = True) -> None:
    _outside_paths["allowed"] = allowed


def containing_root(path: str | os.PathLike) -> str:
    """The repository `path` is in (the nearest folder above it with a `.git`), else the working
    directory when `path` is inside it, else the folder of `path` itself."""
    return directory_root(os.path.dirname(os.path.abspath(path)))


def directory_root(start: str) -> str:
    """`containing_root` of a directory."""
    start = os.path.abspath(start)
    directory = start
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    cwd = os.getcwd()
    return cwd if _is_within(start, cwd) else start


def inside_root(target: str | os.PathLike, root: str) -> bool:
    """Whether `target`, every symlink resolved, is inside `root` (or outside paths are allowed)."""
    return _outside_paths["allowed"] or _is_within(os.path.realpath(target), os.path.realpath(root))


def _is_within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def confined(referrer: str, target: str | os.PathLike, shown: str) -> str:
    """`target` (named in the file `referrer` as `shown`) if it resolves inside the referrer's
    repository, else a PrefixlintError the caller places at the reference's line."""
    root = containing_root(referrer)
    if not inside_root(target, root):
        raise PrefixlintError(
            f"{shown} resolves outside the repository ({root}); refused",
            hint="pass --allow-outside-paths to read files outside the repository",
        )
    return str(target)


def template_tokenizer_offline(name: str | None, template_path: str) -> bool:
    """Whether the tokenizer a template file names (`tokenizer:` in it) is loaded offline: under
    GitHub Actions (`GITHUB_ACTIONS`, which the Action runs in), always. A name that is an
    existing path must resolve inside the template's repository (PrefixlintError otherwise)."""
    if not name:
        return False
    if os.path.exists(name):
        confined(template_path, name, f"tokenizer {name}")
    return os.environ.get("GITHUB_ACTIONS") == "true"


#: Directory entries one glob may visit (a repository of 100,000 files is a large one).
MAX_GLOB_ENTRIES = 100_000


def repository_glob(referrer: str, pattern: str, shown: str) -> list[str]:
    """The files `pattern` (relative to the folder of `referrer`, or absolute) matches, sorted.

    Unlike `glob.glob`, it never walks outside the referrer's repository (unless outside paths
    are allowed): the folder before the first wildcard must be inside it, or the pattern is
    refused before anything is read; and it visits at most MAX_GLOB_ENTRIES entries, following
    no symlinked folder."""
    root = containing_root(referrer)
    full = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(referrer)), pattern))
    parts = full.split(os.sep)
    literal = next((i for i, part in enumerate(parts) if _WILD.search(part)), len(parts))
    base = os.sep.join(parts[:literal]) or os.sep
    if not inside_root(base, root):
        raise PrefixlintError(f"{shown} resolves outside the repository ({root}); refused",
                              hint="pass --allow-outside-paths to read files outside the repository")
    wanted = [p for p in parts[literal:] if p]
    if not wanted:
        return [full] if os.path.isfile(full) else []
    found: list[str] = []
    seen = [0]

    def walk(folder: str, rest: list[str]) -> None:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            return
        seen[0] += len(entries)
        if seen[0] > MAX_GLOB_ENTRIES:
            raise PrefixlintError(f"{shown} visits more than {MAX_GLOB_ENTRIES:,} files and folders; refused",
                                  hint="name the files with a narrower pattern")
        head, tail = rest[0], rest[1:]
        if head == "**":
            if tail:
                walk_here(folder, entries, tail)
            for entry in entries:
                if entry.is_dir(follow_symlinks=False) and not entry.name.startswith("."):
                    walk(entry.path, rest)
            return
        walk_here(folder, entries, rest)

    def walk_here(folder: str, entries, rest: list[str]) -> None:
        head, tail = rest[0], rest[1:]
        for entry in entries:
            if entry.name.startswith(".") and not head.startswith("."):
                continue  # as glob.glob: a wildcard does not match a hidden name
            if not fnmatch.fnmatchcase(entry.name, head):
                continue
            if not tail:
                if entry.is_file():
                    found.append(entry.path)
            elif entry.is_dir(follow_symlinks=False):
                walk(entry.path, tail)

    walk(base, wanted)
    return sorted(found)


_WILD = re.compile(r"[*?\[]")
