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
from functools import partial
from typing import Any, Callable, Sequence

from prefixlint.errors import PrefixlintError
from prefixlint.load.files import decode_text, read_text
from prefixlint.load.gitrev import FileChange, Repository, open_repository
from prefixlint.prreport.markdown import Measured, Setup, TemplateChange, blob_link
from prefixlint.results import Finding

#: (a template's path, its text) -> Measured, or None when the file is not a template at all.
Measure = Callable[[str, str], "Measured | None"]


def path_prefixes(repo: Repository, paths: Sequence[str]) -> dict[str, str]:
    """PATHS as given -> repository-relative prefixes ("" for the root)."""
    prefixes = {}
    for path in paths:
        relative = repo.relative(path)
        prefixes[path] = "" if relative == "." else relative
    return prefixes


def under(path: str, prefix: str) -> bool:
    return not prefix or path == prefix or path.startswith(prefix + "/")


def wanted_paths(prefixes: Sequence[str]) -> Callable[[str], bool]:
    """A filter for repository-relative paths: under one of the prefixes, and a template as
    `check`'s directory walk sees one (an extension with a loader, not hidden, not a README...)."""
    from fnmatch import fnmatchcase

    from prefixlint.load.discover import NOT_TEMPLATES, SKIPPED_DIRECTORIES
    from prefixlint.load.registry import template_extensions

    suffixes = template_extensions()

    def wanted(path: str) -> bool:
        *folders, name = path.split("/")
        if not name.lower().endswith(suffixes) or any(fnmatchcase(name.lower(), glob) for glob in NOT_TEMPLATES):
            return False
        if any(part.startswith(".") or part in SKIPPED_DIRECTORIES for part in [*folders, name]):
            return False
        return any(under(path, prefix) for prefix in prefixes)

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


def _read_blob(repo: Repository, blob: str, path: str) -> str:
    return decode_text(repo.blob(blob), path)


def _side(measure: Measure, path: str, load: Callable[[], str]) -> tuple[Measured | None, str]:
    try:
        text = load()
        return measure(path, text), text
    except PrefixlintError as exc:
        return Measured(error=str(exc.located(path))), ""


def compare_changes(repo: Repository, changes: Sequence[FileChange], measure: Measure) -> list[TemplateChange]:
    from prefixlint.limits import inside_root

    rows = []
    for change in changes:
        if change.status != "removed" and not inside_root(repo.root / change.path, str(repo.root)):
            continue  # a symlink out of the repository (/etc/passwd): not read, as a walk skips it
        base = base_text = now = now_text = None
        if change.base_blob is not None and change.status != "unchanged":
            base_path = change.old_path or change.path
            base, base_text = _side(measure, base_path, partial(_read_blob, repo, change.base_blob, base_path))
        if change.status != "removed":
            now, now_text = _side(measure, change.path, partial(read_text, str(repo.root / change.path)))
        status = change.status
        if base is None and now is None:
            continue  # not a template on either side
        if base is None and status in ("modified", "renamed"):
            status = "added"  # it became a template
        elif now is None and status != "removed":
            status = "removed"  # it is no template any more
        new: tuple[Finding, ...] = ()
        fixed: tuple[Finding, ...] = ()
        if now is not None and not now.error and status != "unchanged":
            new = introduced(base, base_text or "", now, now_text or "")
            if base is not None and not base.error:  # what the base had and this version has not
                fixed = introduced(now, now_text or "", base, base_text or "")
        rows.append(TemplateChange(change.path, status, base, now, change.old_path if status == "renamed" else None,
                                   new, fixed))
    return rows


def new_findings(rows: Sequence[TemplateChange]) -> list[Finding]:
    return sorted((f for row in rows for f in row.new_findings), key=Finding.sort_key)


def link_for_environment() -> Callable[[str, int], str | None]:
    """Links to the pull request's head in GitHub Actions; plain file:line elsewhere.

    The head commit comes from the event payload when there is one (it exists in the base
    repository even for a fork, unlike the head branch name), then GITHUB_HEAD_REF, GITHUB_SHA.
    """
    from prefixlint.prreport.github_comment import event_payload

    head = ((event_payload().get("pull_request") or {}).get("head") or {}).get("sha")
    ref = head or os.environ.get("GITHUB_HEAD_REF") or os.environ.get("GITHUB_SHA")
    return blob_link(os.environ.get("GITHUB_SERVER_URL"), os.environ.get("GITHUB_REPOSITORY"), ref)


def measurer(repo: Repository, tokenizer: str | None, offline: bool, engine: str | None,
             block_size: int | None, suggest: bool = False) -> tuple[Measure, dict[str, set]]:
    """`check`'s measurement of a text as the content of a repository path, with the
    configuration that applies to that path in the working tree (flags win), and the
    tokenizers, engines and block sizes it used."""
    from prefixlint.check.runner import check_file
    from prefixlint.check.settings import SettingsBuilder

    used: dict[str, set] = {"tokenizer": set(), "engine": set(), "block_size": set()}
    settings_for = SettingsBuilder(dict(tokenizer=tokenizer, engine=engine, block_size=block_size), offline)
    settings_for.validate_flags(repo.root)  # a bad flag is one error up front, not one per file

    def measure(path: str, text: str) -> Measured | None:
        result = check_file(path, settings_for(repo.root / path), skip_non_templates=True, text=text)
        if result is None:  # a YAML file that is no prompt template (a config, a data file)
            return None
        if result.error is not None:
            raise result.error
        used["tokenizer"].add(result.tokenizer)
        used["engine"].add(result.engine)
        used["block_size"].add(result.block_size)
        return Measured(result.tokens, result.shared_prefix_tokens or 0, result.reusable_tokens, result.findings,
                        suggestion=_suggestion(path, result) if suggest else "")

    return measure, used


def _suggestion(path: str, result) -> str:
    """The unified diff of the file's safe fixes, "" when there are none."""
    from prefixlint.fix.write import fixed_text, unified_diff

    planned = fixed_text(result)
    return unified_diff(path, planned[0], planned[1]) if planned and planned[0] != planned[1] else ""


def _named(values: set) -> str:
    return ", ".join(str(value) for value in sorted(values, key=str)) or "none"


def build_rows(paths: Sequence[str], base_ref: str, tokenizer: str | None, offline: bool, engine: str | None,
               block_size: int | None, suggest: bool = False) -> tuple[list[TemplateChange], Setup]:
    repo = open_repository()
    commit = repo.commit(base_ref)
    prefixes = path_prefixes(repo, paths)
    changes = repo.compare(commit, wanted_paths(list(prefixes.values())))
    measure, used = measurer(repo, tokenizer, offline, engine, block_size, suggest)
    rows = compare_changes(repo, changes, measure)
    for shown, prefix in prefixes.items():
        if not any(under(row.path, prefix) for row in rows):
            raise PrefixlintError(f"no template here, neither at {base_ref} nor in the working tree", path=shown,
                                  hint="give the folder or files that hold your prompt templates")
    setup = Setup(_named(used["tokenizer"]), _named(used["engine"]), _named(used["block_size"]), base_ref, commit,
                  rounding=_rounding(used), **_sides(commit))
    return rows, setup


def _rounding(used: dict[str, set]) -> str:
    """"Reused by vllm (16-token blocks)": the engine and its block as the settings give them."""
    from prefixlint.engines.profiles import get_profile

    if len(used["engine"]) == 1 and len(used["block_size"]) == 1:
        (engine,), (block,) = used["engine"], used["block_size"]
        return f"Reused by {get_profile(engine, block if get_profile(engine).unit != block else None).describe()}"
    return "Reused by the engine (after its rounding)"


def _sides(base_commit: str) -> dict[str, Any]:  # Setup keywords, each a str or None
    """The base branch's name (when the base is the pull request's base commit) and this
    branch's name and commit, from the event payload or GITHUB_HEAD_REF."""
    from prefixlint.prreport.github_comment import event_payload

    pull = event_payload().get("pull_request") or {}
    base, head = pull.get("base") or {}, pull.get("head") or {}
    name = base.get("ref") if base.get("ref") and str(base.get("sha", "")).startswith(base_commit[:7]) else None
    return {"base_name": name, "head_ref": head.get("ref") or os.environ.get("GITHUB_HEAD_REF") or None,
            "head_commit": head.get("sha") or None}
