"""What ruff and yamllint users reach for, in `prefixlint check` (issue 14)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from prefixlint.cli import cli
from tests.realfiles import real_file

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
CHAT = SAMPLES / "research_agent_chat.yaml"  # PFX004 (line 10, col 17) and PFX001 (line 10, col 67)
CLEAN = SAMPLES / "support_bot_fixed.yaml"
GREETING = SAMPLES / "greeting_policy.md"  # PFX003, a warning


def check(*args, **kwargs):
    return CliRunner().invoke(cli, ["check", *args], **kwargs)


def test_quiet_prints_findings_and_the_summary_only():
    result = check("--isolated", "--quiet", str(CHAT), str(CLEAN))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert [line.split(": ")[0] for line in lines[:2]] == [f"{CHAT}:10:17", f"{CHAT}:10:67"]
    # one label line holds both values
    assert lines[2] == "2 findings in 2 files." and lines[3] == "2 fixable with the `--fix` option."
    assert len(lines) == 4  # no line for the clean file


def test_a_clean_run_closes_with_all_checks_passed():
    quiet = check("--isolated", "--quiet", str(CLEAN))
    assert (quiet.exit_code, quiet.stdout) == (0, "All checks passed!\n")
    loud = check("--isolated", str(CLEAN))
    # one closing line, as ruff's: no "0 findings in 1 file." before it
    (line, closing) = loud.stdout.splitlines()
    assert loud.exit_code == 0 and line.startswith(f"{CLEAN}: ") and closing == "All checks passed!"


def test_standard_input_with_the_name_that_chooses_format_and_configuration(tmp_path, monkeypatch):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / ".prefixlint.yaml").write_text("select: [PFX004]\n")
    monkeypatch.chdir(tmp_path)
    result = check("-", "--stdin-filename", "prompts/agent.yaml", "--format", "json", input=CHAT.read_text())
    assert result.exit_code == 1, result.output
    (entry,) = json.loads(result.stdout)["files"]
    assert entry["path"] == "prompts/agent.yaml" and entry["format"] == "native-yaml"
    assert [(f["code"], f["line"], f["column"]) for f in entry["findings"]] == [("PFX004", 10, 17)]
    # The same text named .md is plain text: its YAML keys are words, the placeholders still count.
    as_text = check("-", "--stdin-filename", "notes.md", "--format", "json", "--isolated", input=CHAT.read_text())
    assert json.loads(as_text.stdout)["files"][0]["format"] == "plain-text"


def test_standard_input_needs_a_name():
    result = check("-", input="Hello {{ name }}\n")
    assert result.exit_code == 2 and "--stdin-filename" in result.stderr


def test_output_file_takes_any_format(tmp_path):
    for fmt in ("text", "json", "github", "sarif"):
        target = tmp_path / f"out.{fmt}"
        result = check("--isolated", "--format", fmt, "--output-file", str(target), str(CHAT))
        assert result.exit_code == 1 and result.stdout == "", fmt
        written = target.read_text()
        assert "PFX004" in written and "\x1b[" not in written, fmt
    assert json.loads((tmp_path / "out.json").read_text())["summary"]["findings"] == 2


def test_fail_level_decides_which_severity_fails(tmp_path):
    qwen = tmp_path / "tokenizer_config.json"
    qwen.write_bytes(real_file("qwen3/tokenizer_config.json").read_bytes())
    info = check("--isolated", "--format", "json", str(qwen))
    assert [f["code"] for f in json.loads(info.stdout)["files"][0]["findings"]] == ["PFX102"]
    assert info.exit_code == 0  # an info finding is reported, and does not fail by default
    assert check("--isolated", "--fail-level", "info", str(qwen)).exit_code == 1
    assert check("--isolated", str(GREETING)).exit_code == 1  # PFX003 is a warning
    assert check("--isolated", "--fail-level", "error", str(GREETING)).exit_code == 0
    assert check("--isolated", "--fail-level", "error", str(CHAT)).exit_code == 1  # PFX004 is an error
    assert check("--isolated", "--fail-level", "fatal", str(CHAT)).exit_code == 2


def test_per_file_ignores_and_extend_select_in_configuration(tmp_path):
    (tmp_path / "legacy").mkdir()
    (tmp_path / "a.yaml").write_text(CHAT.read_text())
    (tmp_path / "legacy" / "b.yaml").write_text(CHAT.read_text())
    (tmp_path / ".prefixlint.yaml").write_text(
        "select: [PFX001]\nextend-select: [pfx004]\nper-file-ignores:\n  \"legacy/*.yaml\": [PFX004]\n")
    data = json.loads(check("--format", "json", str(tmp_path)).stdout)
    found = {Path(e["path"]).relative_to(tmp_path).as_posix(): [f["code"] for f in e["findings"]] for e in data["files"]}
    assert found == {"a.yaml": ["PFX004", "PFX001"], "legacy/b.yaml": ["PFX001"]}
    (tmp_path / "pyproject.toml").write_text(
        '[tool.prefixlint]\nselect = ["PFX001"]\nextend-select = ["PFX004"]\n'
        '[tool.prefixlint.per-file-ignores]\n"a.yaml" = ["PFX0"]\n')
    (tmp_path / ".prefixlint.yaml").unlink()
    __import__("prefixlint.config").config.clear_cache()  # the same process reads the new file
    data = json.loads(check("--format", "json", str(tmp_path)).stdout)
    found = {Path(e["path"]).name: [f["code"] for f in e["findings"]] for e in data["files"]}
    assert found == {"a.yaml": [], "b.yaml": ["PFX004", "PFX001"]}


def test_a_bad_per_file_ignores_entry_names_its_line(tmp_path):
    (tmp_path / "a.yaml").write_text(CHAT.read_text())
    (tmp_path / ".prefixlint.yaml").write_text("per-file-ignores:\n  \"*.yaml\": [PFX999]\n")
    result = check("--format", "json", str(tmp_path / "a.yaml"))
    assert result.exit_code == 2
    (error,) = json.loads(result.stdout)["errors"]
    assert error["line"] == 2 and "PFX999" in error["message"]


def test_show_settings_says_where_each_value_comes_from(tmp_path, monkeypatch):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "a.yaml").write_text(CHAT.read_text())
    (tmp_path / "prompts" / ".prefixlint.yaml").write_text("engine: openai\nignore: [PFX006]\n")
    monkeypatch.chdir(tmp_path)
    result = check("--show-settings", "prompts/a.yaml", "--tokenizer", "cl100k_base")
    assert result.exit_code == 0, result.output
    rows = {line.split()[0]: line.split(None, 2)[1:] for line in result.stdout.splitlines()[1:] if line.strip()}
    assert rows["tokenizer"] == ["cl100k_base", "--tokenizer"]
    assert rows["engine"] == ["openai", "prompts/.prefixlint.yaml:1"]
    assert rows["ignore"] == ["PFX006", "prompts/.prefixlint.yaml:2"]
    assert rows["min-stable-tokens"] == ["16", "default"]
    data = json.loads(check("--show-settings", "prompts/a.yaml", "--format", "json").stdout)
    assert data["engine"] == {"value": "openai", "source": "prompts/.prefixlint.yaml", "line": 1}
    # every configuration key is shown, with what it is for this file
    assert data["history-turns"] == {"value": 4, "source": "default"}
    assert data["system-prompts"]["value"] == [] and data["system-prompt"]["value"] == "no"
    assert data["tokenizer"] == {"value": "o200k_base", "source": "default"}


def test_show_files_lists_what_would_be_checked(tmp_path, monkeypatch):
    for name in ("a.yaml", "b.md", "prompts/e.md", "README.md", "node_modules/c.md", "skip/d.md"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    (tmp_path / "a.yaml").write_text("prompt: 'Hello {{ name }}'\n")
    (tmp_path / "ci.yaml").write_text("name: CI\non: push\njobs: {}\n")  # walked, read by no loader: skipped
    (tmp_path / ".prefixlint.yaml").write_text("exclude: [skip/]\n")
    monkeypatch.chdir(tmp_path)
    result = check("--show-files", ".")
    assert (result.exit_code, result.stdout.splitlines()) == (0, ["a.yaml", "prompts/e.md"])
    # what the walk left out for what it is, with the reason (stderr: stdout stays a file list)
    assert {
        "skipped: README.md (a project file (README, LICENSE, a manifest), not a prompt)",
        "skipped: b.md (Markdown or text with no evidence that it is a prompt (not named in code, not in a prompt"
        " folder; the `prompts` setting takes it))"} <= set(result.stderr.splitlines())
    assert "ci.yaml" in check("--show-files", "ci.yaml").stdout  # named: check reports it, so it is listed


def test_show_files_leaves_out_what_check_skips_once_it_reads_it(tmp_path, monkeypatch):
    """Some files a walk takes turn out to be no prompt only when read or rendered (an empty
    template, a walked Jinja file that assigns Jinja's `loop`): --show-files lists exactly
    the files check reports on, and a promptfoo configuration with the prompt file it names."""
    import shutil

    shutil.copytree(SAMPLES / "promptfoo", tmp_path / "eval")
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "good.j2").write_text("Today is {{ today }}. " + "Answer in English. " * 40 + "\n")
    (tmp_path / "prompts" / "empty.j2").write_text("")
    (tmp_path / "prompts" / "filter.j2").write_text("Hello\n{% for loop in names %}{{ loop }}{% endfor %}\n")
    monkeypatch.chdir(tmp_path)
    result = check("--isolated", "--show-files", ".")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["eval/promptfooconfig.yaml", "eval/prompts/translate_chat.json",
                                          "prompts/good.j2"]
    assert "skipped: prompts/empty.j2 (empty: nothing to measure)" in result.stderr.splitlines()
    assert ("skipped: prompts/filter.j2 (Jinja template error: Can't assign to special loop variable in for-loop"
            " target (line 2))") in result.stderr.splitlines()
    checked = json.loads(check("--isolated", "--no-cache", "--output-format", "json", ".").stdout)["files"]
    assert sorted({f["path"] for f in checked} | {f["config"] for f in checked if f.get("config")}) == (
        result.stdout.splitlines())


def test_color_is_accepted_on_every_subcommand():
    colored = CliRunner().invoke(cli, ["check", "--isolated", "--color", str(CHAT)])
    assert colored.exit_code == 1 and "\x1b[" in colored.stdout
    plain = CliRunner().invoke(cli, ["--color", "check", "--isolated", "--no-color", str(CHAT)])
    assert plain.exit_code == 1 and "\x1b[" not in plain.stdout
    from prefixlint.cli import COMMANDS

    for name in COMMANDS:
        helped = CliRunner().invoke(cli, [name, "--help"])
        assert "--color / --no-color" in helped.stdout, name
    assert CliRunner().invoke(cli, ["rules", "--no-color"]).exit_code == 0


def test_a_progress_bar_on_a_terminal_for_many_files(tmp_path):
    import pty

    for n in range(30):
        (tmp_path / f"p{n:02}_prompt.md").write_text(f"Prompt {n}: answer briefly.\n")
    master, slave = pty.openpty()
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "80"}
    env.pop("GITHUB_ACTIONS", None)
    done = subprocess.run([sys.executable, "-m", "prefixlint", "check", "--isolated", str(tmp_path)],
                          stdout=subprocess.PIPE, stderr=slave, env=env, timeout=120)
    os.close(slave)
    seen = b""
    try:
        while chunk := os.read(master, 65536):
            seen += chunk
    except OSError:
        pass
    os.close(master)
    assert done.returncode == 0
    assert re.search(rb"checking\s.*30/30", seen), seen[-300:]
    assert b"checking" not in done.stdout  # the bar stays on stderr
    piped = subprocess.run([sys.executable, "-m", "prefixlint", "check", "--isolated", str(tmp_path)],
                           capture_output=True, env=env, timeout=120)
    assert b"checking" not in piped.stderr  # and only on a terminal
