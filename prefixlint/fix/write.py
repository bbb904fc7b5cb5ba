"""`check --fix` and `--diff`: the fixes of a whole file at once, shown as a diff or written.

The fixes a file's findings offer are combined into one move plan per template
(`prefixlint.fix.plan`, what the file's "after the suggested fixes" figure measured); a fix
that cannot be combined with the others is left out. Writing is atomic
(`prefixlint.fix.atomic`) and refuses, with one diagnostic and the file left as it was, when
the file changed on disk since it was read, is read-only, or its bytes are not the UTF-8 text
(with or without a BOM) the edit would write back. Line endings stay as they are: the edits
are made in the text as read.
"""

from __future__ import annotations

import os

from prefixlint.errors import PrefixlintError
from prefixlint.fix.atomic import replace_atomically
from prefixlint.fix.attach import reloader
from prefixlint.fix.build import Builder
from prefixlint.fix.edits import apply_edits
from prefixlint.fix.plan import combine

BOM = "\ufeff".encode("utf-8")


def fixed_text(result, unsafe: bool = False) -> tuple[str, str, int] | None:
    """(text before, text after, findings fixed) for a checked file; None: nothing to fix.
    The fixes each finding offers (safe ones only unless `unsafe`), combined as check measured them;
    for a result checked in a worker process, as `planned` wrote them out there."""
    if not result.fix_sources and result.fixed_texts is not None:
        if unsafe not in result.fixed_texts:
            raise ValueError(f"the {'unsafe' if unsafe else 'safe'} fixes of {result.path} were not planned")
        return result.fixed_texts[unsafe]
    edits: list = []
    fixed, before = 0, None
    for source in result.fix_sources:
        chosen = [o for o in source.offered if unsafe or o.applicability == "safe"]
        if not chosen:
            continue
        build = source.build or Builder(source.template, source.placeholders)
        taken, count, _ = combine(build, chosen, source.reload or reloader(source.template), source.check)
        if taken is not None and not _overlaps(edits, taken.edits):  # two prompts of one literal
            edits += [e for e in taken.edits if e not in edits]
            before, fixed = source.template.source, fixed + count
    if before is None:
        return None
    return before, apply_edits(before, edits), fixed


def planned(result, unsafe: tuple[bool, ...] = ()):
    """`result` as plain data, to cross a process boundary: its fix sources (closures over the
    loaded template) written out as the fixed texts of each variant in `unsafe` (`fixed_texts`),
    and dropped."""
    from dataclasses import replace

    if not result.fix_sources:
        return replace(result, fixed_texts={u: None for u in unsafe}) if unsafe else result
    return replace(result, fix_sources=(), fixed_texts={u: fixed_text(result, u) for u in unsafe})


def _overlaps(edits, more) -> bool:
    return any(a != b and a.start < b.end and b.start < a.end or a != b and a.start == b.start
               for a in edits for b in more)


def unified_diff(path: str, before: str, after: str) -> str:
    import difflib  # only `--diff` shows one

    shown = os.path.relpath(path) if os.path.isabs(path) else path
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=shown, tofile=shown)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def write_fixed(path: str, before: str, after: str) -> None:
    """Write `after` over `path`, which must still hold `before`; PrefixlintError otherwise."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise PrefixlintError(f"cannot read it again to fix it: {exc.strerror}", path=path) from None
    bom = data.startswith(BOM)
    body = data[len(BOM):] if bom else data
    try:
        current = body.decode("utf-8")
    except UnicodeDecodeError:
        raise PrefixlintError("not fixed: its encoding is not UTF-8, which the fix would write back",
                              path=path, hint="save the file as UTF-8") from None
    if current != before:
        raise PrefixlintError("not fixed: the file changed on disk since it was read", path=path,
                              hint="run the command again")
    if current.encode("utf-8") != body:
        raise PrefixlintError("not fixed: its bytes do not round-trip as UTF-8", path=path)
    if not os.access(path, os.W_OK) or not os.stat(path).st_mode & 0o222:  # root may write anything
        raise PrefixlintError("not fixed: the file is read-only", path=path)
    replace_atomically(path, (BOM if bom else b"") + after.encode("utf-8"))
