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
repository over `reach`'s bounds.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

#: What comes right before an extension the code writes when it builds a file name.
_BUILT = re.compile(rb"[}\"'*)]|%s")


def unnamed(path: str) -> tuple[str, str] | None:
    """(a sibling named in code, the file that names it) when nothing in the repository names the
    prompt file at `path` while the code reads its folder's files by name (above); else None."""
    from prefixlint.load.reach import _checkout, _repository_files

    here = Path(os.path.abspath(path))
    root = _checkout(here.parent)
    files = _repository_files(str(root)) if root is not None else None
    if not files or not here.suffix:
        return None
    stem = here.name.split(".")[0].encode()
    mention = re.compile(rb"(?<![\w-])" + re.escape(stem) + rb"(?![\w-])")
    suffix = here.suffix.encode()
    built = re.compile(rb"(" + _BUILT.pattern + rb")" + re.escape(suffix) + rb"\b")
    siblings = {s.name.encode() for s in here.parent.iterdir() if s.suffix == here.suffix and s != here} \
        if here.parent.is_dir() else set()
    evidence: tuple[str, str] | None = None
    for other, data in files:
        if other == str(here):
            continue
        if mention.search(data) or built.search(data):
            return None  # named, or a name the code may build
        if evidence is None:
            named = next((s for s in siblings if re.search(rb"[\"'/\\]" + re.escape(s) + rb"[\"']", data)), None)
            if named is not None:
                evidence = named.decode(), Path(other).relative_to(root).as_posix()  # type: ignore[arg-type]
    return evidence
