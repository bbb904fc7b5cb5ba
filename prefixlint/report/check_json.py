"""`prefixlint check --format json`: the issue's shape, plus errors, totals and statistics.

    {"files": [{"path", "tokens", "reusable_tokens", "fixed_reusable_tokens", "error",
                "findings": [{"code", "name", "severity", "line", "column", "variable",
                              "message", "shared_prefix_tokens", "reusable_tokens",
                              "fixed_reusable_tokens", "tokens", "end_line", "end_column",
                              "source", "prompt" (program source), ...}]}],
     "errors": [{"path", "line", "column", "message", "hint"}],
     "skipped": [{"path", "reason"}] (files a directory walk found that are not prompts),
     "summary": {"files", "findings", "errors", "by_code": {code: count}}}
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Sequence

from prefixlint.errors import PrefixlintError
from prefixlint.results import FileResult, Finding


def finding_dict(finding: Finding) -> dict:
    data = {
        "code": finding.code, "name": finding.name, "severity": finding.severity,
        "line": finding.line, "column": finding.column, "variable": finding.variable,
        "message": finding.message, "shared_prefix_tokens": finding.shared_prefix_tokens,
        "reusable_tokens": finding.reusable_tokens, "fixed_reusable_tokens": finding.fixed_reusable_tokens,
        "tokens": finding.tokens, "end_line": finding.end_line, "end_column": finding.end_column,
    }
    data.update({key: value for key, value in finding.extra.items() if key not in data})
    return data


def _with_source(data: dict, result: FileResult, finding: Finding) -> dict:
    """Every finding says where its prompt comes from: `python`/`typescript`/`javascript` for
    program source (set by the check), else the file's format; and its `path` when that is
    another file than the result's."""
    if "source" not in data and result.format:
        data["source"] = result.format
    if finding.path != result.path:  # written in another file (a base template the file extends)
        data["path"] = finding.path
    return data


def error_dict(error: PrefixlintError) -> dict:
    return {"path": error.path, "line": error.line, "column": error.column, "message": error.message,
            "hint": error.hint}


def to_dict(results: Sequence[FileResult]) -> dict:
    files = []
    skipped = [{"path": r.path, "reason": r.skipped} for r in results if r.skipped is not None]
    results = [r for r in results if r.skipped is None]
    for result in results:
        entry = {
            "path": result.path, "tokens": result.tokens, "reusable_tokens": result.reusable_tokens,
            "fixed_reusable_tokens": result.fixed_reusable_tokens,
            "findings": [_with_source(finding_dict(f), result, f) for f in result.findings],
            "error": error_dict(result.error) if result.error else None,
        }
        entry.update({key: value for key, value in result.facts().items() if key not in entry})
        files.append(entry)
    codes = Counter(f.code for r in results for f in r.findings)
    return {
        "files": files,
        "errors": [error_dict(r.error) for r in results if r.error],
        "skipped": skipped,
        "summary": {"files": len(results), "findings": sum(codes.values()),
                    "errors": sum(1 for r in results if r.error), "by_code": dict(sorted(codes.items()))},
    }


def format_json(results: Sequence[FileResult], *, color: bool | None = None, statistics: bool = False) -> str:
    return json.dumps(to_dict(results), indent=2, ensure_ascii=False)
