"""A prompt constant imported from another module of the repository (issue 19 item 4).

`import { SYSTEM_PROMPT } from "./prompts"` then `streamText({ system: SYSTEM_PROMPT, ... })`:
the text is the module-level `const SYSTEM_PROMPT = ...` of `./prompts.ts`, read with the same
`Values` as the module checked (its `+`, `.join()`, `.trim()`, its own constants). Only a
relative specifier is followed (`./`, `../`; a package's text is not the repository's), resolved
as Node and TypeScript do (`./prompts`, `./prompts.ts`, `./prompts.js` written for a `.ts`,
`./prompts/index.ts`), inside the repository, each module at most `MAX_BYTES`, each parsed once
per process while its text is unchanged, through at most `MAX_HOPS` modules. The module is
evaluated once per process, so every `${...}` in the imported text is a per-process value
(stable, its evidence naming the other module). The imported text has no place in the checked
file: each of its characters is placed at the name where it is used (`source_prompts.foreign`),
so a finding points at the use and no fix edits the other module.
"""

from __future__ import annotations

import os
from typing import Any

from prefixlint.errors import PrefixlintError
from prefixlint.load.source_prompts import Text, foreign
from prefixlint.load.ts_callers import MAX_BYTES
from prefixlint.load.ts_grammar import SUFFIXES, parse

MAX_HOPS = 3
_parsed: dict[str, tuple[str, Any]] = {}  # path -> (text, Values of that module)


def imported_text(values, binding, depth: int, offset: int) -> list | None:
    """The pieces of the constant an import names, placed at the import's use; None when the
    import is not a relative module's `const` text (or the module cannot be read)."""
    specifier = binding.holder.child_by_field_name("source") if binding.holder is not None else None
    spec = specifier.text.decode().strip("'\"`") if specifier is not None else ""
    imported = _imported_name(binding)
    hops = values.hops
    if not spec.startswith(("./", "../")) or imported is None or not values.path or hops >= MAX_HOPS:
        return None
    other = _module(values.path, spec)
    if other is None:
        return None
    constant = other.scopes.module_constant(imported)
    if constant is None:
        return None
    other.hops, other.touched = hops + 1, []
    try:
        pieces = other.declared(constant, depth + 1)
    finally:
        other.hops = 0
    if pieces is None or not any(isinstance(p, Text) and p.chars.strip() for p in pieces):
        return None
    return foreign(pieces, os.path.basename(other.path), offset)


def _imported_name(binding) -> str | None:
    """The name an import binds as the other module spells it (`SYSTEM` of `{ SYSTEM as S }`)."""
    specifier = binding.node.parent
    if specifier is None or specifier.type != "import_specifier":
        return None  # a default or namespace import: no one constant
    name = specifier.child_by_field_name("name")
    return name.text.decode() if name is not None else None


def _module(path: str, spec: str):
    """The `Values` of the module `spec` names from `path`, parsed once while unchanged; else None."""
    from prefixlint.limits import containing_root, inside_root
    from prefixlint.load.ts_values import Values

    base = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), spec))
    stem, suffix = os.path.splitext(base)
    candidates = [base] if suffix in SUFFIXES else []
    if suffix in (".js", ".jsx", ".mjs", ".cjs"):  # TypeScript's ESM imports name the emitted `.js`
        candidates += [stem + s for s in (".ts", ".tsx", ".mts", ".cts")]
    candidates += [base + s for s in SUFFIXES] + [os.path.join(base, "index" + s) for s in SUFFIXES]
    root = containing_root(path)
    for candidate in candidates:
        if not os.path.isfile(candidate) or not inside_root(candidate, root) or \
                os.path.samefile(candidate, path):
            continue
        try:
            if os.path.getsize(candidate) > MAX_BYTES:
                return None
            with open(candidate, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            return None
        known = _parsed.get(candidate)
        if known is not None and known[0] == text:
            return known[1]
        values = Values(text, candidate)
        try:
            values.root = parse(candidate, text)
        except PrefixlintError:
            return None
        if len(_parsed) > 1024:
            _parsed.clear()
        _parsed[candidate] = (text, values)
        return values
    return None
