"""Hover on a placeholder: how often its value changes and the reuse it costs, as measured.

For a flagged placeholder: the request's tokens, the exact shared prefix two requests have
now and what the engine reuses of it after its block rounding, the same after the suggested
fix, and the tokenizer and engine they were measured with. For a volatile placeholder that is
not a finding (it comes after the stable content): why not, with the file's reuse.
"""

from __future__ import annotations

from typing import Any

from lsprotocol import types

from prefixlint.server.diagnostics import finding_range, lsp_range
from prefixlint.server.documents import Checked


def hover(checked: Checked, line: int, character: int) -> types.Hover | None:
    """The hover at an LSP position; None when no placeholder is there."""
    at = (line, character)
    for finding in checked.findings:
        if finding.code == "PFX000" or finding.variable is None:
            continue
        found = finding_range(checked, finding)
        if _inside(found, at):
            return _hover(finding_text(checked, finding), found)
    for result in checked.results:
        if result.error is not None:
            continue
        for placeholder in _placeholders(result):
            found = lsp_range(checked, placeholder.line, placeholder.column, placeholder.line,
                              placeholder.column + len(placeholder.text))
            if "\n" not in placeholder.text and _inside(found, at):
                return _hover(placeholder_text(result, placeholder), found)
    return None


def _hover(markdown: str, found: types.Range) -> types.Hover:
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=markdown), range=found)


def _inside(found: types.Range, at: tuple[int, int]) -> bool:
    start, end = (found.start.line, found.start.character), (found.end.line, found.end.character)
    return start <= at <= end


def _placeholders(result: Any) -> list[Any]:
    return [p for source in result.fix_sources for p in getattr(source, "placeholders", ())]


def _percent(part: int | None, whole: int | None) -> str:
    if part is None:
        return "?"
    return f"{part:,} ({100 * part / whole:.1f}%)" if whole else f"{part:,}"


def _describe(cls: str | None, frequency: str | None) -> str:
    from prefixlint.load.classify import builtin_catalog

    if cls is not None and frequency is not None:
        try:
            return builtin_catalog().describe(cls, frequency)
        except KeyError:  # a class the built-in catalog does not know (the configuration's)
            pass
    return ", ".join(x for x in (cls, frequency) if x) or "volatile"


def _measured_with(result: Any) -> str:
    if result is None:
        return ""
    blocks = f", {result.block_size}-token blocks" if result.block_size else ""
    return f"tokenizer `{result.tokenizer}` · engine `{result.engine}`{blocks}"


def finding_text(checked: Checked, finding: Any) -> str:
    extra = finding.extra
    result = next((r for r in checked.results if finding in r.findings), checked.result)
    unit = f"after {result.block_size}-token blocks" if result is not None and result.block_size else "reused"
    placeholder = extra.get("placeholder") or finding.variable
    table = "" if finding.tokens is None else "\n".join([
        f"| tokens reused | exact shared prefix | {unit} |",
        "|---|---|---|",
        f"| now, of {finding.tokens:,} | {_percent(finding.shared_prefix_tokens, finding.tokens)}"
        f" | {_percent(finding.reusable_tokens, finding.tokens)} |",
    ])
    fixed_tokens = extra.get("fixed_tokens") or finding.tokens
    if table and finding.fixed_reusable_tokens is not None:
        table += (f"\n| after the fix, of {fixed_tokens:,}"
                  f" | {_percent(extra.get('fixed_shared_prefix_tokens'), fixed_tokens)}"
                  f" | {_percent(finding.fixed_reusable_tokens, fixed_tokens)} |")
    fix = extra.get("fix")
    fix_line = (f"Fix: {fix['message']} ({fix['applicability']})" if fix
                else f"No fix: {extra['fix_unavailable']}" if extra.get("fix_unavailable") else "")
    sections = [f"**`{placeholder}`** — {_describe(extra.get('class'), extra.get('frequency'))}",
                f"{finding.code} `{finding.name}` ({finding.severity})", table, fix_line, _measured_with(result)]
    return "\n\n".join(section for section in sections if section)


def placeholder_text(result: Any, placeholder: Any) -> str:
    volatile = result.volatile or {}
    names = [n for n in (*placeholder.calls, *placeholder.names) if n in volatile]
    head = f"**`{placeholder.text}`**"
    if not names:
        return f"{head} — stable: the same in every request\n\n{_measured_with(result)}"
    info = volatile[names[0]]
    after = info.get("stable_tokens_after", 0)
    return "\n".join([
        f"{head} — {_describe(info.get('class'), info.get('frequency'))}",
        "",
        f"Not a finding here: {after:,} stable tokens follow it (a value costs reuse only ahead of stable content).",
        "",
        f"This file: {_percent(result.reusable_tokens, result.tokens)} of {result.tokens:,} tokens reused now,"
        f" {result.fixed_reusable_tokens:,} after the suggested fixes.",
        "",
        _measured_with(result),
    ])
