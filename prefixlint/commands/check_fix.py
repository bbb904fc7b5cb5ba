"""`check --diff` and `check --fix`, as ruff has them: show or write the fixes of the findings.

`--diff` prints one unified diff per file and changes nothing (exit 1 when there is a diff);
`--fix` writes the fixes, checks the fixed files again, and the findings that remain decide
the exit status; with standard input (`check --fix - --stdin-filename x.yaml`) it prints the
fixed text to standard output and touches no file (the report then goes to standard error).
A file that cannot be written (changed on disk, read-only, an encoding that does not
round-trip) becomes an error: one diagnostic, the file as it was, exit 2.
"""

from __future__ import annotations

import click

from prefixlint.errors import PrefixlintError
from prefixlint.results import FileResult


def show_diffs(results: list[FileResult], unsafe: bool) -> tuple[int, int]:
    """Print the diffs; (files with a diff, findings they fix)."""
    from prefixlint.fix.write import fixed_text, unified_diff

    files = findings = 0
    for result in results:
        planned = fixed_text(result, unsafe) if result.error is None else None
        if planned is None or planned[0] == planned[1]:
            continue
        click.echo(unified_diff(result.path, planned[0], planned[1]), nl=False)
        files, findings = files + 1, findings + planned[2]
    noun = "finding" if findings == 1 else "findings"
    click.echo(f"Would fix {findings} {noun} in {files} file{'s' if files != 1 else ''}.", err=True)
    return files, findings


def apply_fixes(results: list[FileResult], unsafe: bool, recheck, stdin: dict[str, str] | None = None
                ) -> tuple[list[FileResult], int]:
    """Write the fixes; the results with each fixed file checked again (`recheck(paths)`), and
    how many findings were fixed. A file read from standard input (`stdin`: path -> text) is
    printed to standard output, fixed or as it was, as ruff does; no file is touched for it."""
    from prefixlint.fix.write import fixed_text, write_fixed

    written: list[str] = []
    failed: dict[str, PrefixlintError] = {}
    count = 0
    for result in results:
        planned = fixed_text(result, unsafe) if result.error is None else None
        if stdin is not None and result.path in stdin:
            click.echo(planned[1] if planned is not None else stdin[result.path], nl=False)
            count += planned[2] if planned is not None and planned[0] != planned[1] else 0
            continue
        if planned is None or planned[0] == planned[1]:
            continue
        try:
            write_fixed(result.path, planned[0], planned[1])
        except PrefixlintError as exc:
            failed[result.path] = exc
            continue
        written.append(result.path)
        count += planned[2]
    again = {r.path: r for r in recheck(written)} if written else {}
    out = []
    for result in results:
        if result.path in failed:
            out.append(FileResult(result.path, error=failed[result.path]))
        else:
            out.append(again.get(result.path, result))
    return out, count
