"""`--format sarif`: the document validates against the official SARIF 2.1.0 schema."""

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest

from prefixlint import __version__
from prefixlint.report.sarif import to_sarif, to_sarif_dict
from prefixlint.results import Finding
from prefixlint.rules.catalog import Rule

SCHEMA = Path(__file__).parents[1] / "fixtures" / "sarif-schema-2.1.0.json"
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"


@pytest.fixture(scope="module")
def validator():
    assert hashlib.sha256(SCHEMA.read_bytes()).hexdigest() == SCHEMA_SHA256  # the fixture is the real one
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def rule(code: str, name: str, severity: str) -> Rule:
    docs = {
        "what_it_does": f"Finds {name}.",
        "why_is_this_bad": "The engine reuses only an exact token prefix.",
        "example": "```yaml\nprompt: \"{{ now }}\\nRules...\"\n```",
        "use_instead": "Move it after the stable text.",
    }
    return Rule(code=code, name=name, severity=severity, summary=f"{name} summary", docs=docs)


RULES = {r.code: r for r in (rule("PFX002", "identifier-before-stable", "warning"),
                             rule("PFX001", "timestamp-before-stable", "error"))}


def test_document_validates_and_carries_rules_and_results(tmp_path, validator):
    (tmp_path / "prompts").mkdir()
    found = Finding(
        path=str(tmp_path / "prompts" / "support.yaml"), line=3, column=14, code="PFX002",
        name="identifier-before-stable", severity="info", message="{{ session_id }} ends the prefix",
        variable="session_id", tokens=1980, shared_prefix_tokens=6, reusable_tokens=0,
    )
    log = to_sarif_dict([found], RULES, tmp_path)
    validator.validate(log)
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("prefixlint", __version__)
    assert [r["id"] for r in driver["rules"]] == ["PFX001", "PFX002"]
    first = driver["rules"][0]
    assert first["name"] == "timestamp-before-stable"
    assert first["shortDescription"] == {"text": "timestamp-before-stable summary"}
    assert first["fullDescription"] == {"text": "Finds timestamp-before-stable."}
    assert first["defaultConfiguration"] == {"level": "error"}
    assert driver["rules"][1]["defaultConfiguration"] == {"level": "warning"}
    assert first["help"]["markdown"].startswith("## What it does\n\nFinds timestamp-before-stable.\n\n## Why is this bad?")
    assert first["help"]["text"].endswith("Use instead\nMove it after the stable text.")
    (result,) = run["results"]
    assert result["ruleId"] == "PFX002" and result["ruleIndex"] == 1 and result["level"] == "note"
    assert result["message"] == {"text": "{{ session_id }} ends the prefix"}
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"] == {"uri": "prompts/support.yaml", "uriBaseId": "%SRCROOT%"}
    assert location["region"] == {"startLine": 3, "startColumn": 14}
    assert result["properties"] == {"variable": "session_id", "tokens": 1980, "shared_prefix_tokens": 6,
                                    "reusable_tokens": 0}
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"


def test_a_clean_run_still_lists_the_rules(tmp_path, validator):
    log = json.loads(to_sarif([], RULES, tmp_path))
    validator.validate(log)
    assert log["runs"][0]["results"] == []
    assert len(log["runs"][0]["tool"]["driver"]["rules"]) == 2


def test_the_schema_rejects_what_is_not_sarif(validator):
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"version": "2.1.0", "runs": [{"tool": {"driver": {}}}]})
