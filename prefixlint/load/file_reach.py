"""Whether anything in the repository reads a prompt file (issue 19: a prompt nothing sends is not a
finding to fail a commit on), as `reach.unread` asks of a definition in code.

A prompt file reaches a model only if the program opens it, and a program opens a file by its
name. `unnamed` answers for a file inside a repository checkout: a sibling of its folder (the
same extension) is named in a code or configuration file (`get_template("system_prompt.jinja2")`),
so the program reads that folder's files by their names; and this file is named nowhere, by its
name or its stem as a word (`load_prompt("final_answer")`). Then it is left over (a draft, a file
the code asks for under another name) and its findings are information.

Never claimed where the code may build the name: the extension written after a substitution, a
concatenation or a glob (`f"{kind}.j2"`, `name + ".md"`, `"%s.txt"`, `glob("*.md")`), or a
repository over `MAX_INDEX_BYTES` of code and configuration; unless the names are built by
helpers of the repository (`load_prompt("CHAT")` building `f"{name.upper()}.md"`,
`file_helpers.named_stems`) whose every call passes a literal stem, a sibling's but not this
file's.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

#: The most bytes of code and configuration indexed (a larger repository: no claim).
MAX_INDEX_BYTES = 32 * 1024 * 1024
#: What comes right before an extension the code writes when it builds a file name.
_BUILT = re.compile(rb"(?:[}\"'*)]|%s)(\.\w{1,10})\b")
#: A word (a name's stem), and a file name written in quotes or after a path separator.
_WORD = re.compile(rb"[\w-]+")
_QUOTED = re.compile(rb"[\"'/\\]([\w.-]+\.\w{1,10})[\"']")


def unnamed(path: str) -> tuple[str, str] | None:
    """(a sibling named in code, the file that names it) when nothing in the repository names the
    prompt file at `path` while the code reads its folder's files by name (above); else None."""
    from prefixlint.load.reach import _checkout

    here = Path(os.path.abspath(path))
    root = _checkout(here.parent)
    index = _index(str(root)) if root is not None else None
    if index is None or not here.suffix or not here.parent.is_dir():
        return None
    words, quoted, built = index
    writer = words.get(here.name.split(".")[0].encode())
    if here.suffix.encode() in built and writer is None:  # built from a stem: by a helper whose calls all say it?
        return _unnamed_stem(here, root) if root is not None else None
    if here.suffix.encode() in built or writer is not None and writer != str(here):
        return None  # named (by another file: "" is several), or a name the code may build
    for sibling in sorted(s.name for s in here.parent.iterdir() if s.suffix == here.suffix and s != here):
        readers = quoted.get(sibling.encode(), set()) - {str(here)}
        if readers:
            return sibling, Path(min(readers)).relative_to(root).as_posix()  # type: ignore[arg-type]
    return None


def _unnamed_stem(here: Path, root: Path) -> tuple[str, str] | None:
    """(a sibling the code opens by its stem, the module passing it) when the repository's
    name-building helpers are called with literal stems only, a sibling's among them and this
    file's not (`load_prompt("CHAT")` for CHAT.md, never "AGENT" for AGENT.md)."""
    from prefixlint.load.file_helpers import named_stems

    stems = named_stems(root, here.suffix)
    if stems is None or here.stem.lower() in stems:
        return None
    for sibling in sorted(s for s in here.parent.iterdir() if s.suffix == here.suffix and s != here):
        if sibling.stem.lower() in stems:
            return sibling.name, stems[sibling.stem.lower()]
    return None


@lru_cache(maxsize=4)
def _index(root: str) -> tuple[dict[bytes, str], dict[bytes, set[str]], set[bytes]] | None:
    """Of the repository's code and configuration files (`reach`), once per process: each word ->
    the file writing it ("" for several), each quoted file name -> the files writing it, the
    extensions written where a name is built; None over the bounds (`MAX_INDEX_BYTES` here)."""
    from prefixlint.load.reach import _repository_files

    files = _repository_files(root)
    if files is None or sum(len(data) for _, data in files) > MAX_INDEX_BYTES:
        return None
    words: dict[bytes, str] = {}
    quoted: dict[bytes, set[str]] = {}
    built: set[bytes] = set()
    for other, data in files:
        for word in set(_WORD.findall(data)):
            words[word] = other if words.get(word, other) == other else ""
        for name in set(_QUOTED.findall(data)):
            quoted.setdefault(name, set()).add(other)
        built.update(_BUILT.findall(data))
    return words, quoted, built
