"""Whether anything in the repository reads the definition a prompt is written in (issue 19: a
prompt nothing sends is not a finding to fail a commit on).

A prompt written in a module-level function or constant (`export async function extractTopics()
{ const prompt = ... }`, `def build_prompt(...)`, `SYSTEM = "..."`) reaches a model only if
something calls or reads that definition. `unread` answers for a file inside a repository
checkout (a folder with `.git` above it: the whole program is there to look at): the
definition's name when that name is written nowhere else, neither elsewhere in its own module
nor in any other code or configuration file of the repository (prose, a design note's Markdown,
is no reader; an import, a call, a registration by name, a `serverless.yml` handler, comments
too all count, but not an import line in a file that uses the name nowhere else, nor another
file's own definition of the same name: a copy of the module); else None.

What a framework calls without the repository naming it is never claimed: a decorated Python
function, a class, `export default`, the conventional exports of route modules (`GET`, `POST`,
`loader`, `handler`, `main` ...), the files of route and function trees (`route.ts`, `page.tsx`,
`+server.ts`, `pages/`, `api/`, `functions/`), a test, fixture or example, a package other programs import (a `package.json`
with `main`/`exports` that is not private; a Python repository with `setup.py`, `setup.cfg` or a
`[build-system]`: its users' code is elsewhere), a module read through `import *`, `getattr` or
`globals()`. A repository over the bounds below is not searched (no claim).
"""

from __future__ import annotations

import ast
import json
import os
import re
from functools import lru_cache
from pathlib import Path

from prefixlint.limits import directory_root
from prefixlint.load.prompt_evidence import GENERATED_DIRECTORIES, NOT_PROMPT_TREES
from prefixlint.load.ts_grammar import SUFFIXES

#: Bounds of one repository's search (files walked, bytes of one file, bytes in all).
MAX_FILES = 20000
MAX_FILE_BYTES = 1024 * 1024
MAX_TOTAL_BYTES = 128 * 1024 * 1024
#: Names a framework calls by convention (route handlers, entry points).
ENTRY_NAMES = frozenset({
    "main", "handler", "lambda_handler", "app", "run", "default", "config", "middleware", "GET", "POST", "PUT", "PATCH",
    "DELETE", "HEAD", "OPTIONS", "loader", "action", "actions", "load", "metadata", "generateMetadata",
    "generateStaticParams", "getServerSideProps", "getStaticProps", "getStaticPaths", "prerender",
})
#: File stems of modules a framework loads by their place (Next.js, SvelteKit, Remix ...).
_ENTRY_FILES = frozenset({"route", "page", "layout", "template", "middleware", "loading", "error", "not-found",
                          "worker", "index"})
#: Folders whose modules a framework or a platform loads by their place.
_ENTRY_FOLDERS = frozenset({"pages", "api", "functions", "netlify", "routes", "lambda", "lambdas", "handlers"})
#: Folders of modules nothing is meant to import: tests, fixtures, examples.
_STANDALONE = NOT_PROMPT_TREES | {"examples", "example", "samples", "sample", "demo", "demos"}
#: Prose: a function named in a design note is not called by it.
_PROSE = (".md", ".mdx", ".markdown", ".rst", ".txt", ".adoc", ".org")


def unread(path: str, source: str, line: int) -> str | None:
    """The name of the module-level definition holding 1-based `line` of the Python or TS/JS
    module `path` (text `source`) when nothing in its repository reads it; else None. Read only
    by other definitions of its module that nothing reads, it is not read either (the name
    returned is then the outermost of them)."""
    here = Path(os.path.abspath(path))
    root = _checkout(here.parent)
    if root is None or _entry_module(here, root):
        return None
    python, script = path.endswith((".py", ".pyi")), path.lower().endswith(SUFFIXES)
    if not (python and not _python_package(root) or script and not _published(here.parent, root)):
        return None  # not a module of ours, or others import it
    definitions = _definitions(path, source)
    holding = next((d for d in definitions if d[1] <= line <= d[2]), None)
    if holding is None or re.search(r"\bglobals\(\)|\bvars\(\)", source):
        return None
    files = _repository_files(str(root))  # read only now: for a definition that may be unread
    return _unread_definition(holding, definitions, source, here, files, set()) if files is not None else None


def _unread_definition(definition, definitions, source: str, here: Path, files, seen: set) -> str | None:
    name, start, end = definition
    if name is None or name in ENTRY_NAMES or name.startswith("__") or name in seen or len(seen) > 8:
        return None
    seen.add(name)
    word = re.compile(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])")
    found = name
    for match in word.finditer(source):
        at = source.count("\n", 0, match.start()) + 1
        if start <= at <= end:
            continue  # its declaration, or itself
        reader = next((d for d in definitions if d[1] <= at <= d[2]), None)
        if reader is None:
            return None  # module-level code reads it (a call, `module.exports = {...}`, `export { ... }`)
        outer = _unread_definition(reader, definitions, source, here, files, seen)
        if outer is None:
            return None
        found = outer
    if _read_elsewhere(name, here, files):
        return None
    return found


def _read_elsewhere(name: str, here: Path, files) -> bool:
    """Whether another file of the repository reads `name` (or its module by `import *`/`getattr`):
    names it anywhere but in an import line (an import nothing in its file uses reads nothing)
    and in a definition of its own of the same name (a copy of the module elsewhere)."""
    stem = here.stem.encode()
    needle, pattern = name.encode(), re.compile(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])")
    star = re.compile(rb"from\s+[\w.]*\b" + re.escape(stem) + rb"\s+import\s+\*|getattr\(\s*" + re.escape(stem) + rb"\b")
    return any(other != str(here) and (needle in data and _reads(data, pattern)
                                       or stem in data and star.search(data) is not None)
               for other, data in files)


#: An import line (`from config import A, B`, `import { A } from "./a"`), not a re-export.
_IMPORT_LINE = re.compile(rb"[ \t]*(?:from[ \t]+[\w.]+[ \t]+import\b|import\b)")
#: What comes before a name its own line defines (`def A(`, `export const A =`, `function A`).
_DEFINES = re.compile(rb"[ \t]*(?:export[ \t]+)?(?:async[ \t]+)?(?:def|function\*?|const|let|var|class)[ \t]+")


#: What follows a name assigned at the top of a module (`A = ...`, `A: str = ...`), not `A == 1`.
_ASSIGNED = re.compile(rb"[ \t]*(?::[^=\n]*)?=(?!=)")


def _reads(data: bytes, pattern) -> bool:
    """Whether one of the name's occurrences in `data` is a use (anything else counts)."""
    for match in pattern.finditer(data):
        start = data.rfind(b"\n", 0, match.start()) + 1
        if _IMPORT_LINE.match(data, start):
            continue
        before = data[start : match.start()]
        if _DEFINES.fullmatch(before) or not before and _ASSIGNED.match(data, match.end()):
            continue  # `A = ...` at the top of a module, `def A(`: its own definition
        return True
    return False


def _checkout(folder: Path) -> Path | None:
    """The repository `folder` is in (`limits.directory_root`) when it is a checkout (has `.git`), else None."""
    root = Path(directory_root(str(folder)))
    return root if (root / ".git").exists() else None


def _entry_module(path: Path, root: Path) -> bool:
    """A module a framework loads by its place (a route file, a `+page.server.ts`, a file of a
    `pages/`, `api/` or `functions/` tree), or one nothing is meant to import: a test, a
    fixture, an example."""
    stem = path.name.split(".", 1)[0]
    folders = {part.lower() for part in (path.parent.relative_to(root).parts if path.parent != root else ())}
    return stem in _ENTRY_FILES or stem.startswith("+") or bool(folders & _ENTRY_FOLDERS) or bool(folders & _STANDALONE)


def _published(folder: Path, root: Path) -> bool:
    """Whether the nearest `package.json` (up to the repository's root) is a package others import."""
    for candidate in [folder, *folder.parents]:
        manifest = candidate / "package.json"
        if manifest.is_file():
            try:
                data = json.loads(manifest.read_text(encoding="utf-8", errors="replace"))
            except (OSError, ValueError):
                return True
            return not isinstance(data, dict) or (data.get("private") is not True and any(
                key in data for key in ("main", "module", "exports", "types", "typings", "bin")))
        if candidate == root:
            return False
    return False


def _python_package(root: Path) -> bool:
    """Whether the repository builds a Python distribution (others import its modules)."""
    if (root / "setup.py").is_file() or (root / "setup.cfg").is_file():
        return True
    try:
        return "[build-system]" in (root / "pyproject.toml").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


#: A module-level definition: (its name, or None when it cannot be claimed: a class, a decorated
#: function, `export default`, ...; first line; last line).
Definition = tuple


@lru_cache(maxsize=8)
def _definitions(path: str, source: str) -> tuple[Definition, ...]:
    """The module's definitions, parsed once for all its findings."""
    return tuple(_python_definitions(source) if path.endswith((".py", ".pyi")) else _ts_definitions(path, source))


def _python_definitions(source: str) -> list[Definition]:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found: list[Definition] = []
    for node in tree.body:
        name = None
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            name = None if node.decorator_list else node.name
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            name = node.target.id
        elif not isinstance(node, ast.ClassDef):
            continue  # module-level code: what it reads is read
        found.append((name, node.lineno, node.end_lineno or node.lineno))
    return found


def _ts_definitions(path: str, source: str) -> list[Definition]:
    from prefixlint.load.ts_grammar import parse

    try:
        root = parse(path, source)
    except Exception:  # noqa: BLE001 - an unreadable module: no claim
        return []
    found: list[Definition] = []
    for node in root.children:
        lines = (node.start_point[0] + 1, node.end_point[0] + 1)
        declaration = node
        if node.type == "export_statement":
            declaration = None if any(c.type == "default" for c in node.children) else \
                node.child_by_field_name("declaration")
            if declaration is None:
                if any(c.type == "default" for c in node.children):
                    found.append((None, *lines))
                continue  # `export { a, b }`: module-level code
        name = None
        if declaration.type in ("function_declaration", "generator_function_declaration"):
            named = declaration.child_by_field_name("name")
            name = named.text.decode() if named is not None else None
        elif declaration.type in ("lexical_declaration", "variable_declaration"):
            declarators = [c for c in declaration.children if c.type == "variable_declarator"]
            named = declarators[0].child_by_field_name("name") if len(declarators) == 1 else None
            name = named.text.decode() if named is not None and named.type == "identifier" else None
        elif declaration.type not in ("class_declaration", "abstract_class_declaration"):
            continue
        found.append((name, *lines))
    return found


@lru_cache(maxsize=4)
def _repository_files(root: str) -> tuple[tuple[str, bytes], ...] | None:
    """Every code or configuration file of the repository (absolute path, bytes), once per
    process; None over the bounds."""
    found: list[tuple[str, bytes]] = []
    walked = total = 0
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in GENERATED_DIRECTORIES)
        for file in sorted(files):
            walked += 1
            if walked > MAX_FILES:
                return None
            full = os.path.join(folder, file)
            try:
                if file.lower().endswith(_PROSE) or os.path.islink(full) or os.path.getsize(full) > MAX_FILE_BYTES:
                    continue
                with open(full, "rb") as handle:
                    data = handle.read(MAX_FILE_BYTES + 1)
            except OSError:
                continue
            if b"\0" in data[:4096]:
                continue
            total += len(data)
            if total > MAX_TOTAL_BYTES:
                return None
            found.append((os.path.abspath(full), data))
    return tuple(found)
