"""Template composition (issue 19 item 3): `{% include %}`, `{% extends %}` / `{% block %}` and
Handlebars partials (`{{> name}}`) resolved inside the repository, so the prompt measured is
the one the application sends.

`compose(path, text)` gives the composed text and, for each of its characters, its offset in
`path`: text from another file points at the tag that brought it in (a finding there names the
include line; the base template's own text of an `{% extends %}` is also given as `Origin` runs
by `compose_origins`, so a finding on it names the base's file and line, where the value is
written). A name is looked up relative to the template's folder, then to each folder above it
up to the repository root (where a Jinja `FileSystemLoader` root usually sits); a file
outside the repository, past `MAX_DEPTH` levels of nesting or past `MAX_FILES` files, or a name
that is not a string literal, is left as written (Jinja then reports it, or the walk skips the
file). `{% import %}` / `{% from ... import %}` stay as written: their macros are called, not
inlined. A base template checked itself is measured as a child beside it renders it
(`through_child`): its own lines are where a finding on its text points.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

#: Nesting levels and files one template may bring in.
MAX_DEPTH = 8
MAX_FILES = 64

_INCLUDE = re.compile(r"\{%-?\s*include\s+([\"'])([^\"']+)\1(?:\s+ignore missing)?(?:\s+(?:with|without) context)?\s*-?%\}")
_EXTENDS = re.compile(r"\{%-?\s*extends\s+([\"'])([^\"']+)\1\s*-?%\}")
_BLOCK = re.compile(r"\{%-?\s*block\s+(\w+)\s*(?:scoped\s*)?-?%\}(.*?)\{%-?\s*endblock(?:\s+\1)?\s*-?%\}", re.DOTALL)
_PARTIAL = re.compile(r"\{\{>\s*([\w./-]+)\s*\}\}")
_PARTIAL_SUFFIXES = ("", ".hbs", ".handlebars", ".mustache", ".md", ".txt", ".prompt")


def composes(text: str) -> bool:
    """Whether the text brings in another template at all (most do not: nothing to do)."""
    return "include" in text and _INCLUDE.search(text) is not None or "extends" in text and (
        _EXTENDS.search(text) is not None) or "{{>" in text and _PARTIAL.search(text) is not None


def compose(path: str, text: str) -> tuple[str, tuple[int, ...]]:
    """The text with its includes, base template and partials brought in, and each character's
    offset in `path`."""
    composed, offsets, _ = compose_origins(path, text)
    return composed, offsets


def compose_origins(path: str, text: str) -> tuple[str, tuple[int, ...], tuple[Origin, ...]]:
    """`compose`, and the runs of the composed text that are a base template's own text."""
    from prefixlint.limits import directory_root

    root = directory_root(os.path.dirname(os.path.abspath(path)) or ".")
    budget = [MAX_FILES]
    chars, offsets = _composed(os.path.abspath(path), text, root, 0, budget)
    plain = [o[0] if isinstance(o, tuple) else o for o in offsets]
    runs: list[Origin] = []
    for index, item in enumerate(offsets):
        if not isinstance(item, tuple):
            continue
        _, base_path, base_text, base_offset = item
        last = runs[-1] if runs else None
        if last is not None and last.end == index and last.path == base_path and last.offset + index - last.start == base_offset:
            runs[-1] = Origin(last.start, index + 1, base_path, base_text, last.offset)
        else:
            runs.append(Origin(index, index + 1, base_path, base_text, base_offset))
    return "".join(chars), tuple(plain), tuple(runs)


@dataclass(frozen=True)
class Origin:
    """Composed characters `start:end` are `path`'s own text from `offset` on (`text`: its text)."""

    start: int
    end: int
    path: str
    text: str = field(repr=False)
    offset: int = 0


def _composed(path: str, text: str, root: str, depth: int, budget: list[int]) -> tuple[list[str], list]:
    extends = _EXTENDS.search(text)
    if extends is not None and depth < MAX_DEPTH:
        base = _read(path, extends.group(2), root, budget)
        if base is not None:
            return _extended(path, text, base, extends.start(), root, depth, budget)
    chars: list[str] = []
    offsets: list[int] = []
    at = 0
    for match in _tags(text):
        chars += text[at:match.start()]
        offsets += range(at, match.start())
        at = match.end()
        name = match.group(2) if match.re is _INCLUDE else match.group(1)
        found = _read(path, name, root, budget, _PARTIAL_SUFFIXES if match.re is _PARTIAL else ("",))
        if found is None or depth >= MAX_DEPTH:
            chars += match.group(0)
            offsets += range(match.start(), match.end())
            continue
        inner, _ = _composed(found[0], found[1], root, depth + 1, budget)
        chars += inner
        offsets += [match.start()] * len(inner)  # another file's text: at the tag that brings it in
    chars += text[at:]
    offsets += range(at, len(text))
    return chars, offsets


def _extended(path, text, base, tag, root, depth, budget) -> tuple[list[str], list]:
    """The base template with the child's blocks in place of its own (the child's text outside
    blocks is not rendered by Jinja, so it is dropped). The base's text points at the child's
    `{% extends %}` tag, given as (tag, base path, base text, offset in the base) for
    `compose_origins`; each block of the child points at its own text."""
    base_path, base_text = base
    composed, base_offsets = _composed(base_path, base_text, root, depth + 1, budget)
    whole = "".join(composed)

    def own_text(own, _match):
        inner, inner_offsets = _composed(path, own.group(2), root, depth + 1, budget)
        return inner, [own.start(2) + (o[0] if isinstance(o, tuple) else o) for o in inner_offsets]

    origins = [(tag, base_path, base_text, o) if isinstance(o, int) else (tag, *o[1:]) for o in base_offsets]
    return _filled(whole, origins, _blocks(text), own_text)


def through_child(path: str, text: str) -> tuple[str, tuple[int, ...]] | None:
    """A base template (`{% block %}`s and no `{% extends %}`) as the first template of its
    folder that extends it renders it: nobody renders a base alone, and its empty `{% block
    body %}` stands for the child's content. The child's blocks point at the base's block tag,
    so a finding on the base's own text names the base's line; None when nothing extends it."""
    from prefixlint.confine import directory_root

    if "block" not in text or _EXTENDS.search(text) is not None or _BLOCK.search(text) is None:
        return None
    path = os.path.abspath(path)
    root = directory_root(os.path.dirname(path))
    budget = [MAX_FILES]
    child = _child(path, root, budget)
    if child is None:
        return None
    blocks = _blocks(child[1])
    chars, offsets = _composed(path, text, root, 0, budget)

    def child_text(own, match):
        inner, _ = _composed(child[0], own.group(2), root, 1, budget)
        return inner, [offsets[match.start()]] * len(inner)

    out, out_offsets = _filled("".join(chars), offsets, blocks, child_text)
    return "".join(out), tuple(out_offsets)


def _blocks(text: str) -> dict[str, re.Match[str]]:
    return {m.group(1): m for m in _BLOCK.finditer(text)}


def _filled(whole: str, offsets, blocks: dict[str, re.Match[str]], fill) -> tuple[list[str], list[int]]:
    """`whole` (a composed base template, `offsets` its characters' offsets) with each block the
    child defines (`blocks`) replaced by `fill(child's block, base's block)`: (characters, their
    offsets); a block the child leaves out keeps the base's default content."""
    chars: list[str] = []
    out_offsets: list[int] = []
    at = 0
    for match in _BLOCK.finditer(whole):
        chars += whole[at:match.start()]
        out_offsets += offsets[at:match.start()]
        at = match.end()
        own = blocks.get(match.group(1))
        if own is None:  # the base's default content
            chars += match.group(2)
            out_offsets += offsets[match.start(2):match.end(2)]
            continue
        inner, inner_offsets = fill(own, match)
        chars += inner
        out_offsets += inner_offsets
    chars += whole[at:]
    out_offsets += offsets[at:]
    return chars, out_offsets


def _child(path: str, root: str, budget: list[int]) -> tuple[str, str] | None:
    """(path, text) of the first file beside `path` (in name order) that extends it."""
    name = os.path.basename(path)
    try:
        entries = sorted(os.listdir(os.path.dirname(path)))
    except OSError:
        return None
    for entry in entries:
        if budget[0] <= 0:
            return None
        if entry == name:
            continue
        found = _read(path, entry, root, budget)
        if found is None:
            continue
        extends = _EXTENDS.search(found[1])
        if extends is not None and os.path.basename(extends.group(2)) == name:
            return found
    return None


def _tags(text: str):
    found = [*_INCLUDE.finditer(text), *_PARTIAL.finditer(text)]
    return sorted(found, key=lambda m: m.start())


def _read(path: str, name: str, root: str, budget: list[int], suffixes=("",)) -> tuple[str, str] | None:
    """(path, text) of the template `name` as seen from `path`, inside `root`; None if not found."""
    from prefixlint.errors import PrefixlintError
    from prefixlint.limits import inside_root
    from prefixlint.load.files import read_text

    if budget[0] <= 0 or os.path.isabs(name):
        return None
    directory = os.path.dirname(path)
    while True:
        for suffix in suffixes:
            candidate = os.path.normpath(os.path.join(directory, name + suffix))
            if os.path.isfile(candidate) and inside_root(candidate, root):
                try:
                    text = read_text(candidate, allow_empty=True)
                except PrefixlintError:
                    return None
                budget[0] -= 1
                return candidate, text
        if os.path.realpath(directory) == os.path.realpath(root) or os.path.dirname(directory) == directory:
            return None
        directory = os.path.dirname(directory)
