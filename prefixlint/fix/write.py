"""`check --fix` and `--diff`: the fixes of a whole file at once, shown as a diff or written.

The fixes a file's findings offer are combined into one move plan per template (what the
file's "after the suggested fixes" figure measured); a fix that cannot be combined with the
others is left out. Writing refuses, with one diagnostic and the file left as it was, when
the file changed on disk since it was read, is read-only, or its bytes are not the UTF-8 text
(with or without a BOM) the edit would write back. Line endings stay as they are: the edits
are made in the text as read.
"""

from __future__ import annotations

import difflib
import os

from prefixlint.errors import PrefixlintError
from prefixlint.fix.attach import applicability, reloader
from prefixlint.fix.build import NoFix, build_fix
from prefixlint.fix.edits import apply_edits

BOM = "\ufeff".encode("utf-8")


def allowed(modes: dict[int, str], unsafe: bool) -> bool:
    return unsafe or applicability(modes) == "safe"


def fixed_text(result, unsafe: bool = False) -> tuple[str, str, int] | None:
    """(text before, text after, findings fixed) for a checked file; None: nothing to fix."""
    edits, fixed, before = [], 0, None
    for source in result.fix_sources:
        chosen = [modes for key, modes in source.moves.items() if allowed(modes, unsafe)]
        combined: dict[int, str] = {}
        taken = None
        for modes in chosen:  # greedily: each finding's fix that still combines with the others
            trial = {**combined, **modes}
            try:
                taken = build_fix(source.template, source.placeholders, trial, reloader(source.template))
            except NoFix:
                continue
            combined, fixed = trial, fixed + 1
        if taken is not None:
            edits += taken.edits
            before = source.template.source
    if before is None:
        return None
    return before, apply_edits(before, edits), fixed


def unified_diff(path: str, before: str, after: str) -> str:
    shown = os.path.relpath(path) if os.path.isabs(path) else path
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=shown, tofile=shown)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def write_fixed(path: str, before: str, after: str) -> None:
    """Write `after` over `path`, which must still hold `before`; PrefixlintError otherwise."""
    try:
        data = open(path, "rb").read()
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
    try:
        with open(path, "wb") as handle:
            handle.write((BOM if bom else b"") + after.encode("utf-8"))
    except OSError as exc:
        raise PrefixlintError(f"not fixed: {exc.strerror}", path=path) from None
