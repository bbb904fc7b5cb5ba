"""A finding: one problem at one place in one file, with the measured numbers behind it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    path: str
    line: int  # 1-based, in the file as written
    column: int  # 1-based
    code: str  # PFX001
    name: str  # timestamp-before-stable
    severity: str  # error | warning | info
    message: str
    variable: str | None = None
    #: Measured: the request's tokens, its exact shared prefix between two renders, what the
    #: engine reuses of it, and what it would reuse with the suggested fix.
    tokens: int | None = None
    shared_prefix_tokens: int | None = None
    reusable_tokens: int | None = None
    fixed_reusable_tokens: int | None = None
    end_line: int | None = None
    end_column: int | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def sort_key(self) -> tuple:
        return (self.path, self.line, self.column, self.code)
