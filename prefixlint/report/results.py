"""The result of checking one file: what every `check` output format receives.

`FileResult` is a public, stable interface: formatters (text, json, and github/sarif later)
take a list of them. `error` is set (and `findings` empty) when the file could not be read,
rendered or measured; the other files are still checked.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prefixlint.errors import PrefixlintError
from prefixlint.rules.finding import Finding


@dataclass(frozen=True)
class FileResult:
    path: str
    #: Tokens of a request rendered from the file (every variable at its first sample value).
    tokens: int = 0
    #: Tokens the engine reuses for a second request whose volatile values all differ from it.
    reusable_tokens: int = 0
    #: The same after every suggested fix (the flagged values moved after the stable content).
    fixed_reusable_tokens: int = 0
    findings: tuple[Finding, ...] = ()
    error: PrefixlintError | None = None
    #: More facts for formatters: format, tokenizer, engine, shared_prefix_tokens ...
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def ok(self) -> bool:
        return self.error is None
