"""Every misspelling a new user makes gets the close name: a command, an option, an option's
value, a rule code (flags, configuration, suppression and noqa comments, `rule`), an engine and
a tokenizer (flags and configuration, at the configuration's line)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.config import clear_cache

STABLE = ("You are the support assistant of Northwind Bank. Answer questions about accounts, cards, "
          "transfers and fees. Be brief and precise, and never give investment advice to anyone. ") * 3


@pytest.fixture(autouse=True)
def repo(tmp_path, monkeypatch):
    monkeypatch.setenv("PREFIXLINT_NO_CACHE", "1")
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.md").write_text("Session {{ session_id }}.\n" + STABLE + "\n")
    monkeypatch.chdir(tmp_path)
    clear_cache()
    yield tmp_path
    clear_cache()


def run(*args: str):
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 2, result.output
    return result.output


@pytest.mark.parametrize("args, said", [
    (["chek", "a.md"], "Error: No such command 'chek'. (Did you mean 'check'?)"),
    (["transcrpt", "x.yaml"], "Error: No such command 'transcrpt'. (Did you mean 'transcript'?)"),
    (["check", "--ouput-format", "json", "a.md"], "No such option '--ouput-format'. (Did you mean one of:"),
    (["check", "--output-format", "jsn", "a.md"], "'jsn' is not one of 'text', 'json', 'github', 'sarif', 'html'."
                                                  " (Did you mean 'json'?)"),
    (["check", "--fail-level", "warn", "a.md"], "(Did you mean 'warning'?)"),
    (["kv", "--dtype", "bf61", "x.json"], "(Did you mean 'bf16'?)"),
    (["check", "--select", "PFX1O1", "a.md"],
     "--select: 'PFX1O1' is not a rule code or code prefix (like PFX001 or PFX0) (did you mean 'PFX101'?)"),
    (["check", "--ignore", "PFX109", "a.md"], "--ignore: 'PFX109' matches no rule (did you mean 'PFX101', 'PFX102'"
                                              " or 'PFX103'?)"),
    (["check", "--extend-select", "PFX0001", "a.md"], "(did you mean 'PFX000' or 'PFX001'?)"),
    (["rule", "pfx001x"], "hint: did you mean PFX001?"),
    (["rule", "timestamp-before-stabel"], "hint: did you mean timestamp-before-stable?"),
    (["check", "--engine", "vlm", "a.md"], "unknown engine 'vlm' (did you mean 'vllm'?)"),
    (["compare", "--engine", "sglan", "--text", "a", "--text", "b"], "unknown engine 'sglan' (did you mean 'sglang'?)"),
    (["check", "-t", "o200k_bse", "a.md"], "unknown tokenizer 'o200k_bse' (did you mean 'o200k_base'?)"),
    (["compare", "-t", "cl100k_bas", "--text", "a", "--text", "b"], "(did you mean 'cl100k_base'?)"),
])
def test_a_misspelled_name_on_the_command_line_gets_the_close_one(args, said):
    assert said in run(*args)


def test_a_short_prefix_or_a_name_far_from_all_gets_no_guess():
    assert "did you mean" not in run("check", "--select", "PFX09", "a.md").lower()
    assert run("xyz", "a.md").splitlines()[-1] == "Error: No such command 'xyz'."


@pytest.mark.parametrize("config, said", [
    ("engine: vlm\n", "prefixlint: error: .prefixlint.yaml:1: engine: unknown engine 'vlm' (did you mean 'vllm'?)"),
    ("engine: vllm\ntokenizer: o200k_bse\n",
     "prefixlint: error: .prefixlint.yaml:2: tokenizer: unknown tokenizer 'o200k_bse' (did you mean 'o200k_base'?)"),
    ("ignore: [PFX1O1]\n", "prefixlint: error: .prefixlint.yaml:1:10: ignore: 'PFX1O1' is not a rule code or code"
                           " prefix (like PFX001 or PFX0) (did you mean 'PFX101'?)"),
    ("blocksize: 16\n", "prefixlint: error: .prefixlint.yaml:1:1: unknown configuration key 'blocksize'"
                        " (did you mean 'block-size'?"),
])
def test_a_misspelled_name_in_the_configuration_is_reported_at_its_line(repo, config, said):
    (repo / ".prefixlint.yaml").write_text(config)
    assert said in run("check", "a.md")


@pytest.mark.parametrize("comment, said", [
    ("<!-- prefixlint: disable PFX1O1 -->",
     "a.md:1:53: malformed suppression comment: 'PFX1O1' is not a rule code (did you mean 'PFX101'?)"),
    ("<!-- noqa: PFX0O2 -->", "a.md:1:39: malformed noqa comment: 'PFX0O2' is not a rule code (did you mean"
                              " 'PFX002'?)"),
])
def test_a_misspelled_code_in_a_comment_is_an_error_at_the_code(repo, comment, said):
    (repo / "a.md").write_text(f"Session {{{{ session_id }}}}.  {comment}\n" + STABLE + "\n")
    assert said in run("check", "a.md")


def test_another_tools_noqa_is_left_alone(repo):
    (repo / "a.md").write_text("Session {{ session_id }}.  <!-- noqa: E501 -->\n" + STABLE + "\n")
    result = CliRunner().invoke(cli, ["check", "a.md"])
    assert result.exit_code == 1 and "a.md:1:9: PFX002" in result.output
