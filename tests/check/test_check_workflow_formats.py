"""`prefixlint check --format github|sarif` on a real sample, and github as the Actions default."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.report.github import escape_data
from tests.gitrepo import init_repo
from tests.report.test_report_sarif import validator  # noqa: F401  (the schema fixture)

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
SAMPLE = SAMPLES / "greeting_policy.md"


@pytest.fixture(scope="module")
def checked():
    """The sample checked once as JSON, the reference the other formats are compared with."""
    result = CliRunner().invoke(cli, ["check", str(SAMPLE), "--format", "json"], env={"GITHUB_ACTIONS": None})
    assert result.exit_code == 1, result.output
    return json.loads(result.output)["files"][0]


def test_github_format_is_the_json_findings_as_workflow_commands(checked, monkeypatch):
    monkeypatch.chdir(SAMPLES.parent)
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    runner = CliRunner()
    explicit = runner.invoke(cli, ["check", str(SAMPLE), "--format", "github"], env={"GITHUB_ACTIONS": None})
    default = runner.invoke(cli, ["check", str(SAMPLE)], env={"GITHUB_ACTIONS": "true"})
    assert explicit.exit_code == default.exit_code == 1
    assert explicit.output == default.output
    (finding,) = checked["findings"]
    # the placeholder's position, found in the file independently of prefixlint
    first_line = SAMPLE.read_text(encoding="utf-8").splitlines()[0]
    assert (finding["line"], finding["column"]) == (1, first_line.index("{{ user_name }}") + 1)
    command = {"error": "error", "warning": "warning", "info": "notice"}[finding["severity"]]
    assert explicit.output == (
        f"::{command} file=samples/greeting_policy.md,line=1,col={finding['column']},"
        f"title=PFX003 user-data-before-stable::{escape_data(finding['message'])}\n"
    )
    assert "%25" in explicit.output  # the message's percentages are escaped


def test_text_stays_the_default_outside_actions_and_wins_when_given():
    runner = CliRunner()
    plain = runner.invoke(cli, ["check", str(SAMPLE)], env={"GITHUB_ACTIONS": None})
    forced = runner.invoke(cli, ["check", str(SAMPLE), "--format", "text"], env={"GITHUB_ACTIONS": "true"})
    assert plain.output == forced.output and not plain.output.startswith("::")


def test_unreadable_file_is_an_error_annotation(tmp_path, monkeypatch):
    bad = tmp_path / "broken.md"
    bad.write_text("Hello {{ name\n")
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    monkeypatch.chdir(tmp_path)  # the file is in the checkout (here: the working directory)
    result = CliRunner().invoke(cli, ["check", str(bad), "--format", "github"])
    assert result.exit_code == 2
    assert result.output.startswith("::error file=")
    assert ",title=prefixlint error::" in result.output


def test_sarif_uris_are_repository_relative_and_valid(tmp_path, monkeypatch, checked, validator):  # noqa: F811
    repo = init_repo(tmp_path / "repo")
    (repo / "prompts").mkdir()
    shutil.copy(SAMPLE, repo / "prompts" / "greeting.md")
    (repo / "prompts" / "broken.md").write_text("Hello {{ name\n")
    monkeypatch.chdir(repo / "prompts")
    result = CliRunner().invoke(cli, ["check", "greeting.md", "broken.md", "--format", "sarif"])
    assert result.exit_code == 2
    log = json.loads(result.output)
    validator.validate(log)
    run = log["runs"][0]
    (item,) = run["results"]
    (expected,) = checked["findings"]
    assert item["ruleId"] == "PFX003" and item["message"]["text"] == expected["message"]
    assert run["tool"]["driver"]["rules"][item["ruleIndex"]]["id"] == "PFX003"
    assert item["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "prompts/greeting.md", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 1, "startColumn": expected["column"], "endLine": 1,
                   "endColumn": expected["column"] + len("{{ user_name }}")},  # SARIF: exclusive end
    }
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is False
    (note,) = invocation["toolExecutionNotifications"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "prompts/broken.md"
