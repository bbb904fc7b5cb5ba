"""A file that declares its variables (Prompty `inputs`, Dotprompt `input`, LangChain
`input_variables`) uses only those: an undeclared one is an error at its first use."""

from __future__ import annotations

import re

from prefixlint.errors import PrefixlintError


def check_declared(template, compiled) -> None:
    """In a file that declares its variables, using an undeclared one is an error at its use."""
    for name in compiled.variables:
        if name in template.variables:
            continue
        uses = [p for p in compiled.placeholders if name in p.names]
        if uses:
            line, column = uses[0].line, uses[0].column
        else:
            line, column = _first_word(template.source, name)
        raise PrefixlintError(
            f"undefined variable {name!r}", path=template.path, line=line, column=column,
            hint=f"declare it under `variables:` (e.g. `{name}: {{kind: per_request, samples: [...]}}`)",
        )


def _first_word(source: str, name: str) -> tuple[int | None, int | None]:
    for number, text in enumerate(source.split("\n"), 1):
        found = re.search(rf"\b{re.escape(name)}\b", text)
        if found and ("{{" in text or "{%" in text):
            return number, found.start() + 1
    return None, None
