"""Every rule file's pass and fail cases, run through the real pipeline with o200k_base.

Positions are also checked against the template text itself: a finding's line and column
must be where its placeholder is written.
"""

from __future__ import annotations

import inspect

import pytest

from prefixlint.check.runner import check_file
from prefixlint.check.settings import Settings
from prefixlint.rules.catalog import load_catalog
from prefixlint.rules.registry import CHAT_TEMPLATE_CODES, CHECKS, check_for

CATALOG = load_catalog()
CASES = [
    pytest.param(rule.code, kind, case, id=f"{rule.code}-{kind}-{number}")
    # the chat-template rules' cases are chat templates: tests/rules/test_chat_template_rules.py runs them
    for rule in CATALOG.values() if rule.check and rule.code not in CHAT_TEMPLATE_CODES
    for kind in ("fail", "pass")
    for number, case in enumerate(rule.cases.get(kind, ()), 1)
]


@pytest.mark.parametrize(("code", "kind", "case"), CASES)
def test_rule_case(tmp_path, code, kind, case):
    path = tmp_path / case["file"]
    path.write_text(case["template"], encoding="utf-8")
    settings = Settings(engine=case.get("engine", "vllm"), enabled=lambda c: c == code)
    result = check_file(str(path), settings)
    assert result.error is None, str(result.error)
    found = [(f.code, f.line, f.column, f.severity) for f in result.findings]
    expected = [(e["code"], e["line"], e["column"], e["severity"]) for e in case.get("expect", ())]
    assert found == expected, [f.message for f in result.findings]
    lines = case["template"].split("\n")
    for finding in result.findings:
        written = lines[finding.line - 1][finding.column - 1 :]
        assert written.startswith(finding.extra.get("placeholder", "")), (written, finding.extra)


def test_every_rule_with_a_check_has_pass_and_fail_cases():
    for rule in CATALOG.values():
        if rule.check:
            assert rule.cases.get("fail") and rule.cases.get("pass"), rule.code


def test_catalog_and_code_agree():
    """Every rule but PFX000 (the suppressions report it) names a check of the one registry, and
    every check of the registry is named by some rule."""
    from prefixlint.rules.suppress import UNUSED_CODE, UNUSED_NAME

    named = {rule.check for rule in CATALOG.values() if rule.check}
    assert named == set(CHECKS)
    assert {code for code, rule in CATALOG.items() if not rule.check} == {UNUSED_CODE}
    assert CATALOG[UNUSED_CODE].name == UNUSED_NAME
    for name, function in CHECKS.items():
        assert function.__name__ == name
        assert list(inspect.signature(function).parameters) == ["rule", "data"]
    for rule in CATALOG.values():
        if rule.check:
            assert check_for(rule) is CHECKS[rule.check]
    for code in CHAT_TEMPLATE_CODES:  # named after the rule
        assert CATALOG[code].check == CATALOG[code].name.replace("-", "_")


def test_a_rule_naming_an_unknown_check_is_an_error():
    from dataclasses import replace

    with pytest.raises(LookupError, match="PFX001.yaml: no check function named 'nope'"):
        check_for(replace(CATALOG["PFX001"], check="nope"))


def test_codes_names_and_documentation():
    assert {f"PFX00{n}" for n in range(1, 8)} <= set(CATALOG)  # later rules (PFX101 ...) may join
    names = {rule.code: rule.name for rule in CATALOG.values()}
    assert names["PFX001"] == "timestamp-before-stable"
    assert names["PFX006"] == "boundary-merge"
    assert names["PFX007"] == "stable-prefix-below-minimum"
    for rule in CATALOG.values():
        assert rule.severity in ("error", "warning", "info")
        assert all(rule.docs[part].strip() for part in rule.docs)


def test_every_volatility_class_has_its_rule():
    from prefixlint.load.classify import builtin_catalog

    catalog = builtin_catalog()
    assert {catalog.rule_for(cls) for cls in catalog.classes} == {f"PFX00{n}" for n in range(1, 6)}
    assert {s.cls for s in catalog.signals} <= set(catalog.classes)


def test_the_code_tables_are_derived_from_the_catalog():
    from prefixlint.rules.registry import MOVING_CODES

    # Read by hand from rules/PFX*.yaml: `check: volatile_before_stable` and the chat-template checks.
    assert MOVING_CODES == {"PFX001", "PFX002", "PFX003", "PFX004", "PFX005"}
    assert CHAT_TEMPLATE_CODES == ("PFX101", "PFX102", "PFX103")
