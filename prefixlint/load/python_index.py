"""The repository's Python modules, each read and parsed at most once per process (for
`python_modules`, which follows names across them, and `python_turns`): the files under the
repository's root (the nearest folder with `.git`, `pyproject.toml`, `setup.py` or
`setup.cfg`), at most MAX_MODULES, each at most MAX_BYTES, no symlinks, no virtual
environments, build output or hidden folders; and which modules mention a prompt-like name."""

from __future__ import annotations

import ast
import os
import re
import warnings
from functools import lru_cache
from pathlib import Path

from prefixlint.load.prompt_evidence import GENERATED_DIRECTORIES, TEST_TREES

MAX_MODULES = 2000
MAX_BYTES = 1024 * 1024
_ROOT_MARKS = (".git", "pyproject.toml", "setup.py", "setup.cfg")
#: A name of the kind a prompt has, as bytes (`mentioning`).
_PROMPT_WORD = re.compile(rb"\b\w*(?:[Pp]rompt|PROMPT|[Ss]ystem|SYSTEM|[Ii]nstruction|INSTRUCTION|[Tt]emplate|TEMPLATE)\w*\b")


_PLACES: dict[str, tuple[Path, Path]] = {}


def module_place(path: str) -> tuple[Path, Path] | None:
    """The module at `path` and its repository's root, found once per path (every prompt of
    the module asks); a path that is no file yet is asked again next time."""
    if path not in _PLACES:
        try:
            module = Path(path).resolve()
        except (OSError, RuntimeError):
            return None
        if not module.is_file():
            return None
        if len(_PLACES) > 4096:
            _PLACES.clear()
        _PLACES[path] = (module, repository_root(module.parent))
    return _PLACES[path]


def repository_root(folder: Path) -> Path:
    """The nearest folder with a repository's mark; for a folder inside a test tree of it
    (`tests/fixtures/...`), that test tree: its modules are read with each other, not with the
    application's, whose index leaves test trees out (`repository_modules`)."""
    marked = next((c for c in [folder, *list(folder.parents)[:12]] if any((c / mark).exists() for mark in _ROOT_MARKS)),
                  folder)
    inside = folder.relative_to(marked).parts  # marked is folder or one of its parents
    test = next((number for number, part in enumerate(inside) if part in TEST_TREES), None)
    return marked.joinpath(*inside[: test + 1]) if test is not None else marked


@lru_cache(maxsize=8)
def repository_modules(root: Path) -> tuple[Path, ...]:
    """The repository's Python modules (at most MAX_MODULES), in a stable order; not its tests
    (test trees, `test_*.py`, `*_test.py`, `conftest.py`): what they fill and send is made up."""
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in GENERATED_DIRECTORIES and d not in TEST_TREES)
        for file in sorted(files):
            if file.endswith(".py") and not (file.startswith("test_") or file.endswith("_test.py")
                                             or file == "conftest.py"):
                if len(found) == MAX_MODULES:
                    return tuple(found)
                found.append(Path(folder) / file)
    return tuple(found)


def module_bytes(path: Path) -> bytes | None:
    """The module's bytes; None for a symlink, a file over MAX_BYTES or one that cannot be read."""
    try:
        return None if path.is_symlink() or path.stat().st_size > MAX_BYTES else path.read_bytes()
    except OSError:
        return None


@lru_cache(maxsize=256)
def module_source(path: Path) -> str | None:
    try:
        data = module_bytes(path)
        return data.decode("utf-8") if data is not None else None
    except UnicodeDecodeError:
        return None


@lru_cache(maxsize=8)
def mentioning(root: Path) -> dict[str, tuple[Path, ...]]:
    """Each prompt-like name of the repository (`SYSTEM_PROMPT`, `build_instructions`) -> the
    modules that mention it: every module's bytes read once, for every prompt asking."""
    found: dict[str, list[Path]] = {}
    for module in repository_modules(root):
        for word in set(_PROMPT_WORD.findall(module_bytes(module) or b"")):
            found.setdefault(word.decode("ascii"), []).append(module)
    return {word: tuple(modules) for word, modules in found.items()}


@lru_cache(maxsize=256)
def module_tree(path: Path) -> ast.Module | None:
    text = module_source(path)
    return parse_module(text) if text is not None else None


def parse_module(text: str) -> ast.Module | None:
    """Another module's tree, None when it is no valid Python; its warnings (an invalid escape
    sequence) are that module's business, not printed while checking this one."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
