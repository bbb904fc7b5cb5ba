"""ruff's habits on `check`: --output-format, --extend-select, --per-file-ignores, `extend`,
configuration errors at the configuration's line, quiet notes, no paths meaning `.`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.config import clear_cache

STABLE = ("You are the support assistant of Northwind Bank. Answer questions about accounts, cards, "
          "transfers and fees. Be brief and precise, and never give investment advice to anyone. ") * 3
PROMPT = "Today is {{ today }}, session {{ session_id }}.\n" + STABLE + "\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "a.md").write_text(PROMPT)
    monkeypatch.chdir(tmp_path)
    clear_cache()
    yield tmp_path
    clear_cache()


def codes(*args: str) -> list[str]:
    result = CliRunner().invoke(cli, ["check", "--no-cache", "--output-format", "json", *args])
    assert result.exit_code in (0, 1), result.output
    return sorted(f["code"] for f in json.loads(result.stdout)["files"][0]["findings"])


def test_output_format_and_its_alias_format_give_the_same_output(repo):
    one = CliRunner().invoke(cli, ["check", "--no-cache", "--output-format", "json", "prompts"])
    two = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "json", "prompts"])
    assert one.exit_code == two.exit_code == 1 and one.stdout == two.stdout
    assert json.loads(one.stdout)["files"][0]["path"] == "prompts/a.md"


def test_extend_select_and_per_file_ignores_on_the_command_line(repo):
    assert codes("prompts") == ["PFX001", "PFX002"]
    assert codes("--select", "PFX001", "prompts") == ["PFX001"]
    assert codes("--select", "PFX001", "--extend-select", "PFX002", "prompts") == ["PFX001", "PFX002"]
    assert codes("--per-file-ignores", "prompts/*.md:PFX002", "prompts") == ["PFX001"]
    assert codes("--per-file-ignores", "other/*.md:PFX002", "prompts") == ["PFX001", "PFX002"]
    bad = CliRunner().invoke(cli, ["check", "--per-file-ignores", "prompts/*.md", "prompts"])
    assert bad.exit_code == 2 and "is not PATTERN:CODES" in bad.stderr


def test_extend_takes_the_base_files_keys_unless_this_file_sets_them(repo):
    (repo / "base.toml").write_text('[tool.prefixlint]\nignore = ["PFX001"]\nhistory-turns = 2\n')
    (repo / "prompts" / ".prefixlint.yaml").write_text("extend: ../base.toml\n")
    assert codes("prompts") == ["PFX002"]
    (repo / "prompts" / ".prefixlint.yaml").write_text("extend: ../base.toml\nignore: [PFX002]\n")
    clear_cache()
    assert codes("prompts") == ["PFX001"]
    shown = json.loads(CliRunner().invoke(cli, ["check", "--show-settings", "prompts/a.md", "--format", "json"]).stdout)
    assert shown["history-turns"] == {"value": 2, "source": "base.toml", "line": 3}
    assert shown["ignore"] == {"value": ["PFX002"], "source": "prompts/.prefixlint.yaml", "line": 2}


def test_an_extend_cycle_or_missing_base_is_an_error_at_the_extend_line(repo):
    (repo / "prompts" / ".prefixlint.yaml").write_text("select: [PFX0]\nextend: ../missing.toml\n")
    result = CliRunner().invoke(cli, ["check", "prompts"])
    assert result.exit_code == 2
    assert "prefixlint: error: prompts/.prefixlint.yaml:2: extend: no configuration file '../missing.toml'" \
        in result.stderr
    (repo / "prompts" / ".prefixlint.yaml").write_text("extend: .prefixlint.yaml\n")
    clear_cache()
    assert "a cycle" in CliRunner().invoke(cli, ["check", "prompts"]).stderr
    # a TOML base with its keys at the top level (as a ruff.toml) is named as such, with the way out
    (repo / "base.toml").write_text('ignore = ["PFX001"]\n')
    (repo / "prompts" / ".prefixlint.yaml").write_text("extend: ../base.toml\n")
    clear_cache()
    stderr = CliRunner().invoke(cli, ["check", "prompts"]).stderr.splitlines()
    assert stderr[:2] == ["prefixlint: error: prompts/.prefixlint.yaml:1: extend: '../base.toml' has no [tool.prefixlint] table",
                          "  hint: a TOML base holds its keys under [tool.prefixlint], as pyproject.toml does"]


@pytest.mark.parametrize("key, value, message", [
    ("engine", "vlm", "engine: unknown engine 'vlm' (did you mean 'vllm'?)"),
    ("tokenizer", "o200k_bas", "tokenizer: unknown tokenizer 'o200k_bas' (did you mean 'o200k_base'?)"),
])
def test_an_engine_or_tokenizer_typo_is_reported_at_the_configuration_line(repo, key, value, message):
    (repo / "pyproject.toml").write_text(f'[project]\nname = "x"\n\n[tool.prefixlint]\nselect = ["PFX0"]\n{key} = "{value}"\n')
    result = CliRunner().invoke(cli, ["check", "prompts"])
    assert result.exit_code == 2
    assert f"prefixlint: error: pyproject.toml:6: {message}" in result.stderr
    assert "prompts/a.md:" not in result.stderr


def test_a_configuration_error_is_said_once_for_all_the_files_it_governs(repo):
    (repo / "prompts" / "b.md").write_text((repo / "prompts" / "a.md").read_text())
    (repo / "pyproject.toml").write_text('[tool.prefixlint]\nengine = "vlm"\n')
    result = CliRunner().invoke(cli, ["check", "--no-cache", "prompts"])
    assert result.exit_code == 2
    assert result.stderr.count("pyproject.toml:2: engine: unknown engine 'vlm'") == 1
    assert "in 2 files, 2 files with errors" in result.stdout  # both files still counted as stopped


def test_the_approximation_note_is_printed_once_and_not_under_quiet(repo):
    chat = Path(__file__).resolve().parents[2] / "samples" / "support_bot.yaml"  # a chat: ChatML approximation
    (repo / "prompts" / "b.yaml").write_text(chat.read_text())
    (repo / "prompts" / "c.yaml").write_text(chat.read_text())
    loud = CliRunner().invoke(cli, ["check", "--no-cache", "prompts"])
    assert loud.stderr.count("note: approximation") == 1
    quiet = CliRunner().invoke(cli, ["check", "--no-cache", "--quiet", "prompts"])
    assert quiet.exit_code == 1 and "note:" not in quiet.stderr and "PFX001" in quiet.stdout


def test_no_paths_checks_the_working_directory(repo):
    result = CliRunner().invoke(cli, ["check", "--no-cache", "--output-format", "json"])
    assert result.exit_code == 1
    assert [f["path"] for f in json.loads(result.stdout)["files"]] == ["prompts/a.md"]


def test_the_hook_checks_a_named_file_only_when_the_walk_would(repo):
    """pre-commit names files one by one (`--skip-non-templates`): a bare message list, which
    a walk does not take, is skipped; the same file named without the flag is checked."""
    listed = '[{"role": "system", "content": "Today is {{ today }}. ' + STABLE + '"}]\n'
    (repo / "prompts" / "messages.json").write_text(listed)
    (repo / "prompts" / "README.md").write_text(PROMPT)
    walked = CliRunner().invoke(cli, ["check", "--no-cache", "--show-files", "prompts"]).stdout.split()
    hook = CliRunner().invoke(cli, ["check", "--no-cache", "--show-files", "--skip-non-templates",
                                    "prompts/a.md", "prompts/messages.json", "prompts/README.md"]).stdout.split()
    assert walked == hook == ["prompts/a.md"]
    named = CliRunner().invoke(cli, ["check", "--no-cache", "--show-files", "prompts/messages.json"]).stdout.split()
    assert named == ["prompts/messages.json"]


def test_the_hook_passes_a_docs_page_and_fails_a_prompt(repo):
    """The same evidence as a walk (issue 25 item 2): a dated documentation page is not a
    prompt, so a commit of it passes; the prompt with the same text fails at its first line."""
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text(PROMPT)
    (repo / "mkdocs.yml").write_text("site_name: demo\n")
    docs = CliRunner().invoke(cli, ["check", "--no-cache", "--skip-non-templates", "docs/guide.md"])
    assert (docs.exit_code, docs.stdout.count("PFX")) == (0, 0)
    prompt = CliRunner().invoke(cli, ["check", "--no-cache", "--skip-non-templates", "docs/guide.md", "prompts/a.md"])
    assert prompt.exit_code == 1
    assert prompt.stdout.splitlines()[0].startswith("prompts/a.md:1:10: PFX001")


def test_a_file_the_hook_leaves_out_is_listed_with_the_walk_s_reason(repo):
    """pre-commit names every staged file: one the walk does not take is skipped, not silently,
    with the reason the walk gives (`--format json` under `skipped`, `--show-files` on stderr)."""
    (repo / "docs").mkdir()
    (repo / "docs" / "guide.md").write_text(PROMPT)
    (repo / "util.py").write_text("def add(a, b):\n    return a + b\n")
    result = CliRunner().invoke(cli, ["check", "--no-cache", "--format", "json", "--skip-non-templates",
                                      "docs/guide.md", "util.py", "prompts/a.md"])
    report = json.loads(result.stdout)
    assert [f["path"] for f in report["files"]] == ["prompts/a.md"]
    assert report["skipped"] == [
        {"path": "docs/guide.md", "reason": "a documentation, website or fixture tree (docs/), not prompts"},
        {"path": "util.py", "reason": "program source that names no prompt-like word"}]
