"""The rows of `prefixlint report`: each template measured at the base revision and now.

Git says which templates were added, removed, renamed, changed or left alone; each side is
loaded from its text (the base side straight from the git object, nothing is checked out)
and measured by the same code as `prefixlint check`. A finding is new when the base version
of the template has no finding with the same code on the same variable (or, for findings
without a variable, on a line with the same text): line numbers move, those do not.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Callable, Sequence

from prefixlint.errors import PrefixlintError
from prefixlint.load.files import decode_text, read_text
from prefixlint.load.gitrev import FileChange, Repository, open_repository
from prefixlint.report.markdown import Measured, Setup, TemplateChange, blob_link
from prefixlint.rules.finding import Finding

#: text -> Measured (a template's path and its text; the path only names it in findings).
Measure = Callable[[str, str], Measured]


def wanted_paths(repo: Repository, paths: Sequence[str], extensions: Sequence[str]) -> Callable[[str], bool]:
    """A filter for repository-relative paths: under one of PATHS and a template extension."""
    prefixes = []
    for path in paths:
        relative = repo.relative(path)
        prefixes.append("" if relative == "." else relative)
    suffixes = tuple(ext.lower() for ext in extensions)

    def wanted(path: str) -> bool:
        if not path.lower().endswith(suffixes):
            return False
        return any(not p or path == p or path.startswith(p + "/") for p in prefixes)

    return wanted


def finding_key(finding: Finding, text: str) -> tuple:
    if finding.variable:
        return (finding.code, "variable", finding.variable)
    lines = text.splitlines()
    line = lines[finding.line - 1].strip() if 0 < finding.line <= len(lines) else ""
    return (finding.code, "line", line)


def introduced(base: Measured | None, base_text: str, now: Measured, now_text: str) -> tuple[Finding, ...]:
    """Findings of `now` that the base version did not have (counted, so a second copy is new)."""
    before = Counter(finding_key(f, base_text) for f in (base.findings if base else ()))
    new = []
    for finding in sorted(now.findings, key=Finding.sort_key):
        key = finding_key(finding, now_text)
        if before[key]:
            before[key] -= 1
        else:
            new.append(finding)
    return tuple(new)


def _side(measure: Measure, path: str, load: Callable[[], str]) -> tuple[Measured, str]:
    try:
        text = load()
        return measure(path, text), text
    except PrefixlintError as exc:
        return Measured(error=str(exc.located(path))), ""


def compare_changes(repo: Repository, changes: Sequence[FileChange], measure: Measure) -> list[TemplateChange]:
    rows = []
    for change in changes:
        base = base_text = now = now_text = None
        if change.base_blob is not None and change.status != "unchanged":
            base_path = change.old_path or change.path
            base, base_text = _side(measure, base_path,
                                    lambda: decode_text(repo.blob(change.base_blob), base_path))
        if change.status != "removed":
            now, now_text = _side(measure, change.path, lambda: read_text(str(repo.root / change.path)))
        new: tuple[Finding, ...] = ()
        if now is not None and not now.error and change.status != "unchanged":
            new = introduced(base, base_text or "", now, now_text or "")
        rows.append(TemplateChange(change.path, change.status, base, now, change.old_path, new))
    return rows


def new_findings(rows: Sequence[TemplateChange]) -> list[Finding]:
    return sorted((f for row in rows for f in row.new_findings), key=Finding.sort_key)


def link_for_environment() -> Callable[[str, int], str | None]:
    """Links to the pull request's head in GitHub Actions; plain file:line elsewhere.

    The head commit comes from the event payload when there is one (it exists in the base
    repository even for a fork, unlike the head branch name), then GITHUB_HEAD_REF, GITHUB_SHA.
    """
    from prefixlint.report.github_comment import event_payload

    head = ((event_payload().get("pull_request") or {}).get("head") or {}).get("sha")
    ref = head or os.environ.get("GITHUB_HEAD_REF") or os.environ.get("GITHUB_SHA")
    return blob_link(os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY"), ref)


def build_rows(paths: Sequence[str], base_ref: str, tokenizer: str, offline: bool, engine: str,
               block_size: int | None) -> tuple[list[TemplateChange], Setup]:
    from prefixlint.report.measure import TEMPLATE_EXTENSIONS, measurer

    repo = open_repository()
    commit = repo.commit(base_ref)
    changes = repo.compare(commit, wanted_paths(repo, paths, TEMPLATE_EXTENSIONS))
    measure, setup = measurer(tokenizer, offline, engine, block_size)
    rows = compare_changes(repo, changes, measure)
    return rows, Setup(setup.tokenizer, setup.engine, setup.block_size, base_ref, commit)
