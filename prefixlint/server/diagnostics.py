"""A checked document's findings and errors as LSP diagnostics.

A finding sits on its placeholder's exact range (its line and column to its end column), with
its rule code, severity, the measured message `check` prints and a `codeDescription` linking
to the rule's documentation. An error (a document that cannot be loaded or rendered) is one
diagnostic on the line it names, or the first line.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from prefixlint.server.documents import Checked

SOURCE = "prefixlint"
SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
            "info": types.DiagnosticSeverity.Information}


def rule_docs_url(code: str, template: str | None = None) -> str | None:
    """Where the rule's documentation is: `template` with `{code}` filled in, else the rule's
    catalog file shipped inside the package (its YAML is the documentation `prefixlint rule` prints)."""
    if template:
        return template.replace("{code}", code)
    from pathlib import Path

    from prefixlint.package_data import package_dir

    folder = package_dir("prefixlint.catalog")
    if not isinstance(folder, Path) or not (folder / f"{code}.yaml").is_file():
        return None
    return (folder / f"{code}.yaml").resolve().as_uri()


def lsp_range(checked: Checked, line: int | None, column: int | None, end_line: int | None = None,
              end_column: int | None = None) -> types.Range:
    """The LSP range of a prefixlint location; without an end, to the end of the line."""
    start = checked.index.position(line, column)
    if end_line is not None and end_column is not None:
        end = checked.index.position(end_line, end_column)
    else:
        end = checked.index.line_end(line)
    if end < start:
        end = start
    return types.Range(types.Position(*start), types.Position(*end))


def finding_range(checked: Checked, finding: Any) -> types.Range:
    return lsp_range(checked, finding.line, finding.column, finding.end_line, finding.end_column)


def diagnostics(checked: Checked, docs_url: str | None = None) -> list[types.Diagnostic]:
    out = []
    for result in checked.results:
        if result.error is not None:
            out.append(error_diagnostic(checked, result.error))
        for finding in result.findings:
            out.append(finding_diagnostic(checked, finding, docs_url))
    for result in checked.elsewhere:
        out.append(error_diagnostic(checked, result.error, elsewhere=True))
    return out


def finding_diagnostic(checked: Checked, finding: Any, docs_url: str | None = None) -> types.Diagnostic:
    href = rule_docs_url(finding.code, docs_url)
    fix = finding.extra.get("fix")
    return types.Diagnostic(
        range=finding_range(checked, finding), message=finding.message,
        severity=SEVERITY.get(finding.severity, types.DiagnosticSeverity.Error), code=finding.code,
        code_description=types.CodeDescription(href=href) if href else None, source=SOURCE,
        tags=[types.DiagnosticTag.Unnecessary] if finding.code == "PFX000" else None,
        data={"name": finding.name, "variable": finding.variable, "line": finding.line, "column": finding.column,
              "fixable": bool(fix), "applicability": fix.get("applicability") if fix else None},
    )


def error_diagnostic(checked: Checked, error: Any, elsewhere: bool = False) -> types.Diagnostic:
    """The error on its line (from its column) when it is in this document, else on line 1."""
    message = error.message if not elsewhere else f"{error}"
    if error.hint and not elsewhere:
        message += f"\nhint: {error.hint}"
    line = error.line if not elsewhere else None
    column = error.column if line else None
    return types.Diagnostic(range=lsp_range(checked, line, column), message=message,
                            severity=types.DiagnosticSeverity.Error, source=SOURCE)
