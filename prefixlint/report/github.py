"""`--format github`: one GitHub Actions workflow command per finding, shown as an annotation.

The escaping is the actions toolkit's (packages/core/src/command.ts): in the message `%`, CR
and LF are percent-encoded; in a property value `:` and `,` are too, since they delimit
properties. Properties are written in the order of the issue's contract: file, line, col, title.
"""

from __future__ import annotations

import os
from typing import Iterable, Sequence

from prefixlint.errors import PrefixlintError
from prefixlint.results import FileResult, Finding

#: Finding severity -> workflow command.
COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, properties: dict[str, object], message: str) -> str:
    """`::command key=value,...::message`, leaving out empty properties as the toolkit does."""
    shown = ",".join(
        f"{key}={escape_property(str(value))}" for key, value in properties.items() if value not in (None, "")
    )
    return f"::{command}{' ' + shown if shown else ''}::{escape_data(message)}"


def annotation_path(path: str) -> str:
    """The path GitHub resolves against the workspace: relative, with forward slashes."""
    if os.path.isabs(path):
        base = os.environ.get("GITHUB_WORKSPACE") or os.getcwd()
        relative = os.path.relpath(path, base)
        if not relative.startswith(".."):
            path = relative
    return path.replace(os.sep, "/")


def annotation(finding: Finding) -> str:
    properties = {
        "file": annotation_path(finding.path),
        "line": finding.line,
        "col": finding.column,
        "title": f"{finding.code} {finding.name}",
    }
    return workflow_command(COMMANDS.get(finding.severity, "warning"), properties, finding.message)


def to_github(findings: Iterable[Finding]) -> str:
    """The workflow commands for `findings`, one a line, in file/line/column order."""
    return "\n".join(annotation(item) for item in sorted(findings, key=Finding.sort_key))


def is_github_actions() -> bool:
    """True inside a GitHub Actions job, where `--format github` is the default."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def error_annotation(error: PrefixlintError) -> str:
    """A file that could not be checked, as an error annotation at its file and line."""
    properties = {"file": annotation_path(error.path) if error.path else None, "line": error.line,
                  "col": error.column, "title": "prefixlint error"}
    message = error.message + (f"\nhint: {error.hint}" if error.hint else "")
    return workflow_command("error", properties, message)


def format_github(results: Sequence[FileResult], *, color: bool | None = None, statistics: bool = False) -> str:
    """`prefixlint check --format github`: findings, then files that could not be checked."""
    lines = [to_github(f for result in results for f in result.findings)] if any(r.findings for r in results) else []
    lines += [error_annotation(result.error) for result in results if result.error is not None]
    return "\n".join(lines)
