"""`prefixlint check` text output: `path:line:col: CODE message` lines, then a summary per file.

    samples/support_bot.yaml:9:19: PFX001 {{ now }} (a timestamp, changes every request) ends ...
    samples/support_bot.yaml: 1,934 tokens · reusable now 0.8% · after the fixes 97.6%

Files with errors are left out (the command prints those on stderr) but counted at the end. `--statistics` adds a count per code.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from prefixlint.numbers import percent
from prefixlint.results import FileResult
from prefixlint.report.style import paint

_COLORS = {"error": "red", "warning": "yellow", "info": "blue"}


def format_text(results: Sequence[FileResult], *, color: bool | None = None, statistics: bool = False) -> str:
    lines: list[str] = []
    for result in results:
        if result.error is not None:  # the command prints errors on stderr
            continue
        for f in result.findings:
            code = paint(f.code, color, fg=_COLORS.get(f.severity, "white"), bold=True)
            lines.append(f"{f.path}:{f.line}:{f.column}: {code} {f.message}")
    for result in results:
        if result.error is None:
            after = percent(result.fixed_reusable_tokens, result.tokens if result.fixed_tokens is None else result.fixed_tokens,
                            bare_ends=True)
            lines.append(
                f"{result.path}: {result.tokens:,} tokens · reusable now {percent(result.reusable_tokens, result.tokens, bare_ends=True)}"
                f" · after the suggested fixes {after}"
            )
    findings = [f for r in results for f in r.findings]
    errors = sum(1 for r in results if r.error)
    if statistics and findings:
        lines.append("")
        for (code, name), count in sorted(Counter((f.code, f.name) for f in findings).items()):
            lines.append(f"{count:>5}  {code}  {name}")
    noun = "finding" if len(findings) == 1 else "findings"
    tail = f"{len(findings)} {noun} in {len(results)} file{'s' if len(results) != 1 else ''}"
    if errors:
        tail += f", {errors} file{'s' if errors != 1 else ''} with errors"
    lines.append(tail + ".")
    return "\n".join(lines)
