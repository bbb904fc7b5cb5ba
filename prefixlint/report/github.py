"""`--format github`: one GitHub Actions workflow command per finding, shown as an annotation.

The escaping is the actions toolkit's (packages/core/src/command.ts): in the message `%`, CR
and LF are percent-encoded; in a property value `:` and `,` are too, since they delimit
properties. Properties are written in the order of the issue's contract: file, line, col, title.
"""

from __future__ import annotations

import os
from typing import Iterable

from prefixlint.rules.finding import Finding

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
