"""A walk never fails on what is not a prompt (issue 19 item 1): which check results become skips.

A file found by a directory walk that no loader reads, or that a loader without a declared
structure (plain text, program source: `Loader.declared`) cannot read or measure, is left out
with its reason (`FileResult.skipped`), shown by the JSON output; the run's exit is unaffected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prefixlint.errors import PrefixlintError
from prefixlint.results import FileResult

if TYPE_CHECKING:
    from prefixlint.load.base import Format


def skipped(path: str, exc: PrefixlintError) -> FileResult:
    where = f" (line {exc.line})" if exc.line and exc.line > 1 else ""
    return FileResult(path, skipped=f"{exc.message}{where}")


def walked_result(result: FileResult, path: str, text: str | None, template, walked: bool) -> FileResult:
    """A walked file of a format without a declared structure (plain text, program source) that
    cannot be read or measured is skipped with the reason: a walk never fails on what is not a
    prompt. A file named on the command line or by the configuration, or in a declared format
    (Prompty, Dotprompt, promptfoo ...), keeps its error."""
    if not walked or result.error is None:
        return result
    from prefixlint.load.registry import loader_for, reading_loader

    loader: Format | None
    if template is not None:
        loader = loader_for(template.format)
    else:
        try:
            from prefixlint.load.files import read_text

            loader = reading_loader(path, text if text is not None else read_text(path))
        except PrefixlintError:
            loader = None  # unreadable as text: no prompt
    if loader is not None and loader.declared:
        return result
    return skipped(path, result.error)


def documentation_skip(path: str, text: str | None) -> FileResult | None:
    """A named Markdown page whose placeholders all sit in code samples is documentation, not a
    template (`load.prompt_evidence.documentation_page`): skipped with its reason. Unreadable:
    None, and the loader says why."""
    from prefixlint.load.files import read_text
    from prefixlint.load.prompt_evidence import documentation_page

    try:
        page = documentation_page(path, text if text is not None else read_text(path))
    except PrefixlintError:
        return None
    return None if page is None else FileResult(path, skipped=page)
