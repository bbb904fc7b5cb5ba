"""`prefixlint check` text output: `path:line:col: CODE message` lines, then a summary per file.

    samples/support_bot.yaml:9:19: PFX001 {{ now }} (a timestamp, changes every request) ends ...
    samples/support_bot.yaml: 1,934 tokens · reusable now 0.8% · after the fixes 97.6%

Files with errors are left out (the command prints those on stderr) but counted at the end. `--statistics` adds a count per code.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from prefixlint.numbers import percent
from prefixlint.report.style import paint, plural
from prefixlint.results import FileResult

_COLORS = {"error": "red", "warning": "yellow", "info": "blue"}


def fixable(finding, unsafe_fixes: bool = False) -> bool:
    """Has a fix `--fix` applies (an unsafe one only with `--unsafe-fixes`)."""
    fix = finding.extra.get("fix")
    return bool(fix) and (fix["applicability"] == "safe" or unsafe_fixes)


def format_text(results: Sequence[FileResult], *, color: bool | None = None, statistics: bool = False,
                quiet: bool = False, unsafe_fixes: bool = False) -> str:
    """`quiet`: the findings and the summary only. A clean run closes with `All checks passed!`
    alone (no `0 findings in N files.` before it)."""
    lines: list[str] = []
    for result in results:
        if result.error is not None:  # the command prints errors on stderr
            continue
        for f in result.findings:
            code = paint(f.code, color, fg=_COLORS.get(f.severity, "white"), bold=True)
            mark = "[*] " if fixable(f, unsafe_fixes) else ""  # as ruff marks what --fix can fix
            lines.append(f"{f.path}:{f.line}:{f.column}: {code} {mark}{f.message}")
    for result in results:
        if result.error is None and not quiet:
            after = percent(result.fixed_reusable_tokens, result.tokens if result.fixed_tokens is None else result.fixed_tokens,
                            bare_ends=True)
            now = percent(result.reusable_tokens, result.tokens, bare_ends=True)
            lines.append(
                f"{result.path}: {plural(result.tokens, 'token')} · reusable now {now}"
                f" · after the suggested fixes {after}"
            )
    findings = [f for r in results for f in r.findings]
    if statistics and findings:
        lines.append("")
        for (code, name), count in sorted(Counter((f.code, f.name) for f in findings).items()):
            lines.append(f"{count:>5}  {code}  {name}")
    clean = not findings and not any(r.error for r in results)
    if not clean:  # a clean run closes with one line, as ruff's: the file lines above count the files
        lines.append(summary_line(results, len(findings)) + ".")
    lines += _fix_summary(findings, unsafe_fixes)
    if clean:
        lines.append("All checks passed!")
    return "\n".join(lines)


def summary_line(results: Sequence[FileResult], findings: int) -> str:
    """`3 findings in 17 files, 1 file with errors`: files are files (a folder that held no
    template, a broken configuration is an error, not a file)."""
    import os

    files = [r for r in results if not (r.error is not None and (not r.path or os.path.isdir(r.path)))]
    tail = f"{plural(findings, 'finding')} in {plural(len(files), 'file')}"
    broken = sum(1 for r in files if r.error)
    other = len(results) - len(files)
    if broken:
        tail += f", {plural(broken, 'file')} with errors"
    if other:
        tail += f", {plural(other, 'error')}"
    return tail


def _fix_summary(findings, unsafe_fixes: bool) -> list[str]:
    """Ruff's footer: how many findings --fix fixes, and the unsafe fixes it leaves hidden."""
    shown = sum(1 for f in findings if fixable(f, unsafe_fixes))
    hidden = sum(1 for f in findings if f.extra.get("fix") and not fixable(f, unsafe_fixes))
    if not shown and not hidden:
        return []
    hint = f"{shown} fixable with the `--fix` option" if shown else "No fixes available"
    if hidden:
        hint += (f" ({hidden} hidden fix{'es' if hidden != 1 else ''} can be enabled with the"
                 " `--unsafe-fixes` option)")
    return [hint + "."]
