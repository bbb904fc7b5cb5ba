"""Issue 14's bugs, each reproduced first: selection, promptfoo walks, annotations, the Action."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from prefixlint.cli import cli

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
DATED = SAMPLES / "chat_template_dated.jinja"
CHAT = SAMPLES / "research_agent_chat.yaml"  # PFX004 and PFX001


def check(*args, **kwargs):
    return CliRunner().invoke(cli, ["check", *args], **kwargs)


def files(result) -> dict:
    return {Path(entry["path"]).name: entry for entry in json.loads(result.stdout)["files"]}


# Bug 9: selection decides what is reported, never what is measured.
def test_select_does_not_change_what_is_measured():
    # The dated chat template: the date ends the shared prefix at token 29 of 88 (PFX101's
    # message); vLLM reuses whole 16-token blocks of it: 16 tokens.
    for select in (None, "PFX001", "PFX0", "PFX102"):
        args = ["--isolated", "--format", "json", *(["--select", select] if select else []), str(DATED)]
        entry = files(check(*args))[DATED.name]
        assert (entry["tokens"], entry["reusable_tokens"]) == (88, 16), select
        reported = [f["code"] for f in entry["findings"]]
        assert reported == (["PFX101"] if select in (None,) else []), select


# Bug 2: a code that matches no rule is a usage or configuration error; codes ignore case.
def test_unknown_select_or_ignore_code_is_a_usage_error():
    for option in ("--select", "--ignore"):
        for code in ("PFX999", "PFX9", "PFX2", "PFX0,PFX109"):
            result = check("--isolated", option, code, str(CHAT))
            assert result.exit_code == 2, (option, code, result.output)
            assert "matches no rule" in result.stderr, result.stderr
            assert "Traceback" not in result.output


def test_unknown_code_in_configuration_is_a_configuration_error(tmp_path):
    prompt = tmp_path / "chat.yaml"
    prompt.write_text(CHAT.read_text())
    (tmp_path / ".prefixlint.yaml").write_text("select: [PFX999]\n")
    result = check("--format", "json", str(prompt))
    assert result.exit_code == 2
    (error,) = json.loads(result.stdout)["errors"]
    assert error["path"].endswith(".prefixlint.yaml") and error["line"] == 1
    assert "PFX999" in error["message"] and "matches no rule" in error["message"]


def test_codes_are_case_insensitive(tmp_path):
    upper = check("--isolated", "--format", "json", "--select", "PFX001", str(CHAT))
    lower = check("--isolated", "--format", "json", "--select", "pfx001", str(CHAT))
    assert upper.exit_code == lower.exit_code == 1
    assert [f["code"] for f in files(lower)[CHAT.name]["findings"]] == ["PFX001"]
    assert check("--isolated", "--format", "json", "--ignore", "pfx0", str(CHAT)).exit_code == 0
    prompt = tmp_path / "chat.yaml"
    prompt.write_text(CHAT.read_text())
    (tmp_path / ".prefixlint.yaml").write_text("select: [pfx004]\n")
    result = check("--format", "json", str(prompt))
    assert [f["code"] for f in files(result)["chat.yaml"]["findings"]] == ["PFX004"]
