"""`prefixlint check` output formats: a name -> "module:function" table, imported on use.

A formatter is `function(results: list[FileResult], *, color: bool | None, statistics: bool) -> str`
(color None: ANSI styles that `click.echo` removes when the output is not a terminal)
(see `prefixlint.results.FileResult`). Add a format with one module and one line here
(`github`, `sarif` come next); `--format` offers every name in `CHECK_FORMATS`.
"""

from __future__ import annotations

import importlib
from typing import Sequence

from prefixlint.results import FileResult

CHECK_FORMATS: dict[str, str] = {
    "text": "prefixlint.report.check_text:format_text",
    "json": "prefixlint.report.check_json:format_json",
    "github": "prefixlint.report.github:format_github",
    "sarif": "prefixlint.report.sarif:format_sarif",
    "html": "prefixlint.report.html:format_html",
}


def format_results(results: Sequence[FileResult], fmt: str, *, color: bool | None = None,
                   statistics: bool = False, quiet: bool = False, unsafe_fixes: bool = False) -> str:
    """`quiet` (findings and the summary only) and `unsafe_fixes` (count the fixes --fix with
    --unsafe-fixes applies) are for the text output."""
    module_name, _, attribute = CHECK_FORMATS[fmt].partition(":")
    formatter = getattr(importlib.import_module(module_name), attribute)
    options = {key: True for key, given in (("quiet", quiet), ("unsafe_fixes", unsafe_fixes)) if given and fmt == "text"}
    if fmt != "json":  # files a walk skipped (not prompts) are listed by JSON and --show-files only
        results = [result for result in results if result.skipped is None]
    return formatter(list(results), color=color, statistics=statistics, **options)
