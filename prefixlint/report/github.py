"""`--format github`: one GitHub Actions workflow command per finding, shown as an annotation.

The escaping is the actions toolkit's (packages/core/src/command.ts): in the message `%`, CR
and LF are percent-encoded; in a property value `:` and `,` are too, since they delimit
properties. Properties are written in the order of the issue's contract: file, line, col, title.
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping, Sequence

from prefixlint.errors import PrefixlintError
from prefixlint.results import FileResult, Finding

#: Finding severity -> workflow command.
COMMANDS = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, properties: Mapping[str, object], message: str) -> str:
    """`::command key=value,...::message`, leaving out empty properties as the toolkit does."""
    shown = ",".join(
        f"{key}={escape_property(str(value))}" for key, value in properties.items() if value not in (None, "")
    )
    return f"::{command}{' ' + shown if shown else ''}::{escape_data(message)}"


def annotation(finding: Finding) -> str:
    """The finding's workflow command. A template that is no repository file (a model's
    built-in chat format) gets no `file`: its name goes ahead of the message instead."""
    from prefixlint.report.locations import repository_path

    where = repository_path(finding.path)
    properties = {"file": where, "line": finding.line if where else None, "col": finding.column if where else None,
                  "title": f"{finding.code} {finding.name}"}
    message = finding.message if where else f"{finding.path}: {finding.message}"
    return workflow_command(COMMANDS.get(finding.severity, "warning"), properties, message)


def to_github(findings: Iterable[Finding]) -> str:
    """The workflow commands for `findings`, one a line, in file/line/column order."""
    return "\n".join(annotation(item) for item in sorted(findings, key=Finding.sort_key))


def is_github_actions() -> bool:
    """True inside a GitHub Actions job, where `--format github` is the default."""
    return os.environ.get("GITHUB_ACTIONS") == "true"


def error_annotation(error: PrefixlintError) -> str:
    """A file that could not be checked, as an error annotation at its file and line."""
    from prefixlint.report.locations import repository_path

    where = repository_path(error.path) if error.path else None
    properties = {"file": where, "line": error.line if where else None,
                  "col": error.column if where else None, "title": "prefixlint error"}
    message = ("" if where or not error.path else f"{error.path}: ") + error.message
    message += f"\nhint: {error.hint}" if error.hint else ""
    return workflow_command("error", properties, message)


def format_github(results: Sequence[FileResult], *, color: bool | None = None, statistics: bool = False) -> str:
    """`prefixlint check --format github`: findings, then files that could not be checked."""
    lines = [to_github(f for result in results for f in result.findings)] if any(r.findings for r in results) else []
    lines += [error_annotation(result.error) for result in results if result.error is not None]
    return "\n".join(lines)
