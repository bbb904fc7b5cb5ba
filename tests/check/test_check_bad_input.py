"""Bad input to `prefixlint check`: one located diagnostic per bad file, exit 2, and the
other files still checked and reported."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli

GOOD = """Hello {{ user_name }}, welcome back.
You are the assistant of Northwind Bank. Never ask for PINs or passwords, explain fees in
plain language, and offer an appointment with an adviser for loans and mortgages.
Quote the bank's published rates only, name the page they come from, and say when a rate
depends on the customer's own situation. Close every answer with the branch's opening hours
and the number to call for a lost or stolen card.
"""
BOMB = "\n".join(
    [f'a0: &a0 [{", ".join(["lol"] * 9)}]']
    + [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 9)}]" for n in range(1, 8)]
    + ["variables:", "  x: {samples: *a7}", 'prompt: "Hi {{ x }}"', ""]
)

# name, content, expected message fragment, expected line
BAD = [
    ("malformed.yaml", "prompt: |\n  Hello {{ name }}\nvariables: [a, b\n", "malformed YAML", 4),
    ("tabs.yaml", "prompt: x\n\tvariables: {}\n", "malformed YAML", 2),
    ("syntax.j2", "Hello\nThe {{ name }} and {{ broken(\n", "Jinja syntax error", 2),
    # an unclosed block is reported at the line that opens it (issue 25), not at the end
    ("unclosed.yaml", "variables: {}\nprompt: |\n  Line one\n  {% for x in y %}\n  {{ x }}\n", "Jinja syntax error", 4),
    ("undefined.yaml", "variables:\n  name: {}\nprompt: |\n  Hello {{ name }} and {{ nmae }}\n", "undefined variable 'nmae'", 4),
    ("escape.md", "Line one\nLine two {{ ''.__class__.__mro__ }}\n", "Python internals", 2),
    ("escape2.j2", "{{ cycler.__init__.__globals__ }}\n", "Python internals", 1),
    ("bomb.yaml", BOMB, "alias", 1),
    ("binary.txt", "text\nmore\x00binary", "binary", 2),
    ("notutf8.md", None, "not valid UTF-8", 2),
    ("list.yaml", "- a\n- b\n", "not a recognised template", 1),
    ("badkind.yaml", "variables:\n  now: {kind: hourly}\nprompt: x {{ now }}\n", "unknown kind 'hourly'", 2),
    ("nocontent.yaml", "messages:\n  - role: system\n", "without `content`", 2),
    ("attr.yaml", "variables:\n  user: {samples: [Ana]}\nprompt: |\n  Hello {{ user.name.first }}\n", "has no attribute", 4),
]


def write(tmp_path, name, content):
    path = tmp_path / name
    if content is None:
        path.write_bytes("ok\n".encode() + b"caf\xe9\n")
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture
def good(tmp_path):
    return write(tmp_path, "good_prompt.md", GOOD)


@pytest.mark.parametrize(("name", "content", "fragment", "line"), BAD, ids=[row[0] for row in BAD])
def test_one_located_diagnostic_and_the_good_file_still_checked(tmp_path, good, name, content, fragment, line):
    bad = write(tmp_path, name, content)
    result = CliRunner().invoke(cli, ["check", "--isolated", str(bad), str(good)])
    assert result.exit_code == 2, result.output
    errors = [line for line in result.stderr.splitlines() if line.startswith("prefixlint: error:")]
    assert len(errors) == 1, result.stderr
    assert errors[0].startswith(f"prefixlint: error: {bad}:{line}:") or errors[0].startswith(
        f"prefixlint: error: {bad}:{line} ")
    assert fragment in result.stderr
    assert f"{good}:1:7: PFX003" in result.stdout
    assert "Traceback" not in result.output


def test_errors_are_listed_in_json(tmp_path, good):
    bad = write(tmp_path, "escape.md", "Line one\n{{ ''.__class__.__mro__ }}\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(bad), str(good)])
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    (error,) = data["errors"]
    assert (error["path"], error["line"]) == (str(bad), 2)
    assert "Python internals" in error["message"]
    by_path = {f["path"]: f for f in data["files"]}
    assert by_path[str(bad)]["error"] == error and by_path[str(bad)]["findings"] == []
    assert [f["code"] for f in by_path[str(good)]["findings"]] == ["PFX003"]


def test_huge_file_is_refused_without_reading_it(tmp_path, good):
    huge = tmp_path / "huge.md"
    with open(huge, "wb") as handle:
        handle.truncate(11 * 1024 * 1024)
    result = CliRunner().invoke(cli, ["check", "--isolated", str(huge), str(good)])
    assert result.exit_code == 2
    assert f"prefixlint: error: {huge}: file is too large (11.0 MiB" in result.stderr
    assert f"{good}:1:7: PFX003" in result.stdout


def test_huge_yaml_is_refused(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("prompt: |\n" + "  word word word word word word word word\n" * 60_000)
    result = CliRunner().invoke(cli, ["check", "--isolated", str(big)])
    assert result.exit_code == 2 and "YAML file is too large" in result.stderr


def test_directory_without_templates_and_missing_path(tmp_path, good):
    empty = tmp_path / "data"
    empty.mkdir()
    (empty / "table.csv").write_text("a,b\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", str(empty), str(tmp_path / "missing.md"), str(good)])
    assert result.exit_code == 2
    assert f"prefixlint: error: {empty}: no template files found" in result.stderr
    assert f"prefixlint: error: {tmp_path / 'missing.md'}: no such file or directory" in result.stderr
    assert f"{good}:1:7: PFX003" in result.stdout


def test_unknown_engine_in_a_file_is_that_files_error(tmp_path, good):
    bad = write(tmp_path, "engine.yaml", "engine: warp-drive\nprompt: Hello\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", str(bad), str(good)])
    assert result.exit_code == 2
    assert f"prefixlint: error: {bad}: unknown engine 'warp-drive'" in result.stderr


def test_bad_select_is_a_usage_error(good):
    result = CliRunner().invoke(cli, ["check", "--isolated", "--select", "E501", str(good)])
    assert result.exit_code == 2 and "--select" in result.stderr


def test_a_walk_skips_yaml_that_is_not_a_template_but_a_named_one_is_an_error(tmp_path, good):
    (tmp_path / "workflow.yaml").write_text("name: ci\non: push\n")
    configs = tmp_path / "configs"
    configs.mkdir()
    (configs / "settings.yaml").write_text("key: value\n")
    walked = CliRunner().invoke(cli, ["check", "--isolated", str(tmp_path)])
    assert walked.exit_code == 1 and walked.stderr == ""
    assert f"{good}:1:7: PFX003" in walked.stdout
    named = CliRunner().invoke(cli, ["check", "--isolated", str(tmp_path), str(tmp_path / "workflow.yaml")])
    assert named.exit_code == 2
    assert f"prefixlint: error: {tmp_path / 'workflow.yaml'}:1: not a recognised template" in named.stderr
    # A walk never fails on what is not a prompt: a folder without one is a note, not an error.
    only = CliRunner().invoke(cli, ["check", "--isolated", str(configs), str(good)])
    assert only.exit_code == 1 and f"note: no prompts under {configs}: the 1 matching file" in only.stderr
    assert "prefixlint: error" not in only.stderr
    assert f"{good}:1:7: PFX003" in only.stdout
