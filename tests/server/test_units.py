"""The server's pieces without a server: positions, settings, the command without pygls, start-up."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from prefixlint.server.settings import from_options
from prefixlint.server.text import LineIndex

REPO = Path(__file__).resolve().parents[2]

texts = st.text(alphabet=st.sampled_from(["a", "é", "\U0001F600", "\n", "\r", " ", "{", "\t", "\u2028", "\x0c",
                                          "\ufeff"]), max_size=40)


@given(texts, st.sampled_from(["utf-16", "utf-8", "utf-32"]), st.data())
def test_a_position_goes_to_lsp_and_back_unchanged(text, encoding, data):
    index = LineIndex(text, encoding)
    lines = index.loaded_text.split("\n")  # prefixlint's lines
    line = data.draw(st.integers(1, len(lines)))
    column = data.draw(st.integers(1, len(lines[line - 1]) + 1))
    lsp_line, character = index.position(line, column)
    if "\r" not in text.replace("\r\n", "") and not text.startswith("\ufeff"):
        assert lsp_line == line - 1  # the same lines when no line ends in a lone "\r"
    assert index.from_lsp(lsp_line, character) == (line, column)


def test_utf16_columns_count_an_astral_character_twice_and_a_bom_is_not_seen_by_the_loader():
    index = LineIndex("\ufeff\U0001F600 {{ now }}\nb", "utf-16")
    assert index.loaded_text == "\U0001F600 {{ now }}\nb"
    # prefixlint's column 3 on line 1 (the `{`) is after the BOM (1 unit) and the emoji (2 units) and a space.
    assert index.position(1, 3) == (0, 4)
    assert index.from_lsp(0, 4) == (1, 3)
    assert index.position(2, 1) == (1, 0) and index.end() == (1, 1)


def test_lsp_lines_end_at_a_lone_carriage_return_and_not_at_a_form_feed():
    index = LineIndex("a\rb {{ x }}\x0c{{ y }}\r\nc", "utf-16")
    # prefixlint sees one line up to "\n"; an editor sees "a", "b {{ x }}\x0c{{ y }}" and "c".
    assert index.position(1, 5) == (1, 2) and index.from_lsp(1, 2) == (1, 5)
    assert index.position(1, 13) == (1, 10)  # `{{ y }}` after the form feed, on the same editor line
    assert index.line_end(1) == (1, 17) and index.position(2, 1) == (2, 0) and index.end() == (2, 1)


def test_initialization_options_win_over_the_configuration(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.prefixlint]\nengine = "sglang"\nmin-stable-tokens = 40\n')
    prompt = tmp_path / "p.yaml"
    assert from_options(None, str(tmp_path)).builder(prompt).engine == "sglang"
    chosen = from_options({"engine": "openai", "block_size": 32, "select": ["PFX001"], "debounce-ms": 10},
                          str(tmp_path))
    settings = chosen.builder(prompt)
    assert (settings.engine, settings.block_size, settings.min_stable_tokens) == ("openai", 32, 40)
    assert settings.enabled("PFX001") and not settings.enabled("PFX002")
    assert chosen.debounce_seconds == 0.01 and chosen.problems == []
    nested = from_options({"settings": {"engine": "tgi"}}, str(tmp_path))
    assert nested.builder(prompt).engine == "tgi"


def test_a_bad_option_is_reported_and_left_out_and_the_others_apply(tmp_path):
    chosen = from_options({"engine": "openai", "block-size": 0, "colour": True, "debounce-ms": "fast"},
                          str(tmp_path))
    assert chosen.builder(tmp_path / "p.yaml").engine == "openai"
    assert chosen.builder(tmp_path / "p.yaml").block_size is None
    assert len(chosen.problems) == 3
    assert any("'block-size'" in p for p in chosen.problems) and any("colour" in p for p in chosen.problems)
    assert chosen.debounce_seconds == 0.2


def test_config_option_is_relative_to_the_workspace_and_isolated_reads_none(tmp_path):
    (tmp_path / "lint.yaml").write_text("engine: trtllm\n")
    (tmp_path / "pyproject.toml").write_text('[tool.prefixlint]\nengine = "sglang"\n')
    assert from_options({"config": "lint.yaml"}, str(tmp_path)).builder(tmp_path / "p.yaml").engine == "trtllm"
    assert from_options({"isolated": True}, str(tmp_path)).builder(tmp_path / "p.yaml").engine == "vllm"


def test_without_pygls_the_command_says_how_to_install_it(monkeypatch):
    from prefixlint.cli import cli

    monkeypatch.setitem(sys.modules, "pygls", None)
    monkeypatch.setitem(sys.modules, "pygls.lsp", None)
    monkeypatch.setitem(sys.modules, "pygls.lsp.server", None)
    done = CliRunner().invoke(cli, ["server"])
    assert done.exit_code == 2
    assert done.output.strip().splitlines() == [
        "prefixlint: error: `prefixlint server` needs the `server` extra (pygls): pip install 'prefixlint[server]'"]


def test_server_help_imports_neither_pygls_nor_anything_heavy():
    from tests.test_startup import HEAVY, imported_modules

    modules = imported_modules("server", "--help")
    assert {m for m in modules if m.split(".")[0] in HEAVY | {"pygls", "lsprotocol", "cattrs"}} == set()


def test_the_benchmark_runs(tmp_path):
    """A smoke run of benchmarks/bench_server.py (its figures are not asserted: no timed tests)."""
    done = subprocess.run([sys.executable, str(REPO / "benchmarks" / "bench_server.py"), "2"], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "re-check of a 100-line template, warm, 2 runs: median" in done.stdout
    assert "x the floor in CPU time" in done.stdout


def test_a_client_gone_without_shutdown_ends_the_server_with_status_1_and_no_traceback(tmp_path):
    """`--stdio` (what VS Code's client passes) is accepted; end of input without `shutdown`
    is the LSP's unclean end: exit 1, as the specification asks, and quietly."""
    done = subprocess.run([sys.executable, "-m", "prefixlint", "server", "--stdio"], input=b"", capture_output=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 1
    assert b"Traceback" not in done.stderr and done.stdout == b""


def test_a_file_the_configuration_excludes_gets_no_diagnostics_and_a_non_template_none(tmp_path):
    from prefixlint.check.settings import SettingsBuilder
    from prefixlint.server.documents import check_text
    from tests.server.scratch import chat_yaml

    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.prefixlint]\nexclude = ["legacy/"]\n')
    builder = SettingsBuilder()
    assert check_text(str(tmp_path / "legacy" / "old.yaml"), chat_yaml(), builder).results == []
    assert [f.code for f in check_text(str(tmp_path / "new.yaml"), chat_yaml(), builder).findings] == ["PFX001"]
    workflow = "name: ci\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n"
    assert check_text(str(tmp_path / ".github" / "workflows" / "ci.yaml"), workflow, builder).results == []
