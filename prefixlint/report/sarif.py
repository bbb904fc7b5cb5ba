"""`--format sarif`: a SARIF 2.1.0 log for code scanning (GitHub, Azure DevOps, IDE viewers).

One run, one tool driver that lists every rule of the catalog (so a clean run still declares
what was checked), one result per finding. Locations are relative to the repository root and
carry `uriBaseId: %SRCROOT%`, which GitHub code scanning expects. Columns count Unicode code
points (Python string indices), declared with `columnKind`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from prefixlint import REPOSITORY, __version__
from prefixlint.errors import PrefixlintError
from prefixlint.results import FileResult, Finding
from prefixlint.rules.catalog import HEADINGS, Rule

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = REPOSITORY
SRCROOT = "%SRCROOT%"

#: Finding severity -> SARIF level.
LEVELS = {"error": "error", "warning": "warning", "info": "note"}

#: Measured numbers of a finding, copied into the result's property bag.
MEASURES = ("variable", "tokens", "shared_prefix_tokens", "reusable_tokens", "fixed_reusable_tokens")


#: The parts that hold a template, shown as code blocks in the Markdown help.
CODE_PARTS = ("example", "use_instead")


def _markdown_part(part: str, text: str) -> str:
    if part in CODE_PARTS and "```" not in text:
        text = f"```\n{text}\n```"
    return f"## {HEADINGS[part]}\n\n{text}"


def rule_help(rule: Rule) -> dict[str, str]:
    text = "\n\n".join(f"{HEADINGS[part]}\n{rule.docs[part].strip()}" for part in HEADINGS)
    markdown = "\n\n".join(_markdown_part(part, rule.docs[part].strip()) for part in HEADINGS)
    return {"text": text, "markdown": markdown}


def descriptor(rule: Rule) -> dict:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary.strip()},
        "fullDescription": {"text": rule.docs["what_it_does"].strip()},
        "help": rule_help(rule),
        # The rule's file at this version's tag (its documentation and cases).
        "helpUri": f"{REPOSITORY}/blob/v{__version__}/rules/{rule.code}.yaml",
        "defaultConfiguration": {"level": LEVELS.get(rule.severity, "warning")},
        "properties": {"tags": ["prefix-cache"]},
    }


def location(path: str, root: Path, region: dict | None = None) -> dict:
    """A SARIF location: relative to %SRCROOT% for a repository file, an absolute file URI for a
    file outside the checkout, and a logical location (its name only) for a template that is no
    file (a model's built-in chat format)."""
    from prefixlint.report.locations import is_file_name, repository_path

    relative = repository_path(path, root)
    if not is_file_name(path):
        return {"logicalLocations": [{"fullyQualifiedName": path, "kind": "resource"}]}
    artifact = ({"uri": relative, "uriBaseId": SRCROOT} if relative is not None
                else {"uri": Path(os.path.abspath(path)).as_uri()})
    return {"physicalLocation": {"artifactLocation": artifact, **({"region": region} if region else {})}}


def result(finding: Finding, rule_index: int | None, root: Path) -> dict:
    item: dict = {
        "ruleId": finding.code,
        "level": LEVELS.get(finding.severity, "warning"),
        "message": {"text": finding.message},
    }
    region = {"startLine": finding.line, "startColumn": finding.column}
    if finding.end_line is not None and finding.end_column is not None:
        region.update(endLine=finding.end_line, endColumn=finding.end_column)
    item["locations"] = [location(finding.path, root, region)]
    if rule_index is not None:
        item["ruleIndex"] = rule_index
    measures = {key: getattr(finding, key) for key in MEASURES if getattr(finding, key) is not None}
    if measures:
        item["properties"] = measures
    return item


def to_sarif_dict(findings: Iterable[Finding], rules: Mapping[str, Rule], root: Path | str) -> dict:
    """The SARIF log. `root` is the repository root that result uris are relative to."""
    root = Path(root)
    ordered = [rules[code] for code in sorted(rules)]
    index = {rule.code: number for number, rule in enumerate(ordered)}
    results = [result(item, index.get(item.code), root) for item in sorted(findings, key=Finding.sort_key)]
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "prefixlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [descriptor(rule) for rule in ordered],
            }},
            "originalUriBaseIds": {SRCROOT: {"uri": root.resolve().as_uri() + "/"}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }


def to_sarif(findings: Iterable[Finding], rules: Mapping[str, Rule], root: Path | str) -> str:
    return json.dumps(to_sarif_dict(findings, rules, root), indent=2, ensure_ascii=False)


def notification(error: PrefixlintError, root: Path) -> dict:
    """A file that could not be checked, as a tool execution notification at its location."""
    item: dict = {"level": "error", "message": {"text": error.message + (f" (hint: {error.hint})" if error.hint else "")}}
    if error.path:
        region = {"startLine": error.line, **({"startColumn": error.column} if error.column else {})} if error.line else None
        item["locations"] = [location(error.path, root, region)]
    return item


def format_sarif(results: Sequence[FileResult], *, color: bool | None = None, statistics: bool = False) -> str:
    """`prefixlint check --format sarif`, paths relative to the git work tree (or the current directory)."""
    from prefixlint.report.locations import repository_root
    from prefixlint.rules.catalog import load_catalog

    root = repository_root()
    log = to_sarif_dict([f for result in results for f in result.findings], load_catalog(), root)
    errors = [notification(result.error, root) for result in results if result.error is not None]
    log["runs"][0]["invocations"] = [{"executionSuccessful": not errors, "toolExecutionNotifications": errors}]
    return json.dumps(log, indent=2, ensure_ascii=False)
