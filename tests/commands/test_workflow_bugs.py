"""Issue 14's bugs, each reproduced first: selection, promptfoo walks, annotations, the Action."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from prefixlint.cli import cli

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
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


# Bug 3: a promptfoo folder is a folder of templates; a referenced prompt is measured once,
# through the config that references it.
def test_a_promptfoo_folder_is_checked_without_error():
    result = check("--isolated", "--format", "json", str(SAMPLES / "promptfoo"))
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["errors"] == []
    assert [Path(entry["path"]).name for entry in data["files"]] == ["translate_chat.json"]


STYLE = "\n".join(f"- Style rule {n}: keep product names, numbers and units exactly as written." for n in range(1, 9))


def test_a_prompt_referenced_by_a_promptfoo_config_is_measured_once(tmp_path):
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "translate.txt").write_text(
        "Attempt {{ attempt }}.\nTranslate into {{ language }}.\n" + STYLE + "\n\nText: {{ copy }}\n")
    (tmp_path / "promptfooconfig.yaml").write_text(
        "prompts:\n  - file://prompts/translate.txt\n"
        "tests:\n  - vars: {attempt: 1, language: German, copy: Pack light.}\n"
        "  - vars: {attempt: 2, language: Japanese, copy: Hike far.}\n")
    for paths in ([str(tmp_path)], [str(tmp_path / "prompts" / "translate.txt"), str(tmp_path)],
                  [str(tmp_path / "promptfooconfig.yaml"), str(tmp_path / "prompts")]):
        result = check("--isolated", "--format", "json", *paths)
        data = json.loads(result.stdout)
        assert data["errors"] == [], paths
        entries = [entry for entry in data["files"] if entry["path"].endswith("translate.txt")]
        assert len(entries) == 1, (paths, entries)
        assert entries[0]["format"] == "promptfoo", paths
        assert [f["code"] for f in entries[0]["findings"]] == ["PFX004"], paths
    # Named alone, the prompt file is plain text (no config names it on this command line).
    alone = json.loads(check("--isolated", "--format", "json", str(tmp_path / "prompts" / "translate.txt")).stdout)
    assert alone["files"][0]["format"] == "plain-text"


# Bug 1: the hook's `exclude` drops only files that are certainly no prompt.
PROMPT_LIKE = (
    "prompts/support.md", "support.md", "history_summary.md", "prompts/news_digest.md", "security_review.md",
    "changes_requested.md", "notice_board.txt", "authors_note.yaml", "readme_writer.md", "license_check.j2",
    "prompts/history.md", "news.md", "changes.yaml", "requirements_gathering.txt", "prompts/contributing_guide.md",
)
NOT_PROMPTS = (
    "README.md", "docs/README.rst.txt", "CHANGELOG.md", "LICENSE.txt", "license.md", "NOTICE.txt", "AUTHORS.md",
    "CONTRIBUTING.md", "CODE_OF_CONDUCT.md", "SECURITY.md", "requirements.txt", "requirements-dev.txt",
    "constraints.txt", "docker-compose.yml", "mkdocs.yml", "pnpm-lock.yaml", "Chart.yaml", ".github/workflows/ci.yml",
    "node_modules/x/prompt.md", ".pre-commit-config.yaml", "robots.txt", "CMakeLists.txt",
)


def hook_selects():
    import re

    import yaml

    hooks = yaml.safe_load((SAMPLES.parent / ".pre-commit-hooks.yaml").read_text())
    assert len({(hook["files"], hook["exclude"]) for hook in hooks}) == 1  # prefixlint and prefixlint-fix alike
    files, exclude = re.compile(hooks[0]["files"]), re.compile(hooks[0]["exclude"])
    return lambda path: bool(files.search(path)) and not exclude.search(path)


def test_the_hook_checks_prompt_like_names_and_skips_project_files():
    selected = hook_selects()
    assert [path for path in PROMPT_LIKE if not selected(path)] == []
    assert [path for path in NOT_PROMPTS if selected(path)] == []


def test_the_directory_walk_agrees_with_the_hook(tmp_path):
    from prefixlint.load.discover import discover

    for path in PROMPT_LIKE + NOT_PROMPTS:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x\n")
    found = {p.relative_to(tmp_path).as_posix() for p in discover([str(tmp_path)], respect_gitignore=False)}
    assert found == set(PROMPT_LIKE)


# Bug 4: annotation and SARIF paths are relative to the repository root, wherever check runs.
def test_github_annotations_name_files_from_the_repository_root(tmp_path, monkeypatch):
    from tests.gitrepo import init_repo

    repo = init_repo(tmp_path / "repo", {"prompts/release_notes.yaml": CHAT.read_text()})
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    monkeypatch.chdir(repo / "prompts")
    result = check("--isolated", "--format", "github", "release_notes.yaml")
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and all(" file=prompts/release_notes.yaml," in line for line in lines), lines
    monkeypatch.setenv("GITHUB_WORKSPACE", str(repo))
    monkeypatch.chdir(tmp_path)
    result = check("--isolated", "--format", "github", "repo/prompts/release_notes.yaml")
    assert all("file=prompts/release_notes.yaml," in line for line in result.stdout.splitlines())


def test_a_template_that_is_no_repository_file_has_no_file_location(tmp_path, monkeypatch):
    from tests.gitrepo import init_repo

    repo = init_repo(tmp_path / "repo", {"support_bot.yaml": (SAMPLES / "support_bot.yaml").read_text()})
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    monkeypatch.chdir(repo)
    args = ("--isolated", "--tokenizer", "o200k_harmony", "support_bot.yaml")
    github = check(*args, "--format", "github").stdout.splitlines()
    harmony = [line for line in github if "PFX101" in line or "PFX102" in line]
    assert len(harmony) == 2 and not any("file=" in line for line in harmony), harmony
    assert all("::harmony format (openai-harmony): " in line for line in harmony), harmony
    sarif = json.loads(check(*args, "--format", "sarif").stdout)
    schema = json.loads((Path(__file__).parents[1] / "fixtures" / "sarif-schema-2.1.0.json").read_text())
    __import__("jsonschema").validate(sarif, schema)
    results = sarif["runs"][0]["results"]
    uris = {r["ruleId"]: r["locations"][0].get("physicalLocation", {}).get("artifactLocation") for r in results}
    assert uris["PFX001"] == {"uri": "support_bot.yaml", "uriBaseId": "%SRCROOT%"}
    for code in ("PFX101", "PFX102"):
        (found,) = [r for r in results if r["ruleId"] == code]
        (location,) = found["locations"]
        assert "physicalLocation" not in location
        assert location["logicalLocations"] == [{"fullyQualifiedName": "harmony format (openai-harmony)",
                                                 "kind": "resource"}]


# Bug 5: the Action passes --tokenizer/--engine/--block-size only when the workflow sets them,
# so `.prefixlint.yaml` decides otherwise, as for the hook and `check`.
def test_the_action_leaves_unset_inputs_to_the_configuration(tmp_path):
    import os
    import subprocess

    import yaml

    action = yaml.safe_load((SAMPLES.parent / "action.yml").read_text())
    for name in ("tokenizer", "engine", "block-size"):
        assert action["inputs"][name]["default"] == "", name
    (step,) = [s for s in action["runs"]["steps"] if s.get("name", "").startswith("Report")]
    stub = tmp_path / "bin" / "prefixlint"
    stub.parent.mkdir()
    stub.write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$ARGS_FILE"\n')
    stub.chmod(0o755)

    def argv(**inputs) -> list[str]:
        env = {**os.environ, "PATH": f"{stub.parent}{os.pathsep}{os.environ['PATH']}",
               "ARGS_FILE": str(tmp_path / "args"), "PREFIXLINT_BASE": "abc123", "PREFIXLINT_PATHS": "prompts",
               "PREFIXLINT_FAIL_ON": "findings", "PREFIXLINT_POST": "false", "PREFIXLINT_TOKENIZER": "",
               "PREFIXLINT_ENGINE": "", "PREFIXLINT_BLOCK_SIZE": "", **inputs}
        subprocess.run(["bash", "-e", "-c", step["run"]], cwd=tmp_path, env=env, check=True, timeout=60)
        return (tmp_path / "args").read_text().splitlines()

    assert argv() == ["report", "--base", "abc123", "--fail-on", "findings", "--", "prompts"]
    assert argv(PREFIXLINT_TOKENIZER="cl100k_base", PREFIXLINT_ENGINE="sglang", PREFIXLINT_BLOCK_SIZE="32") == [
        "report", "--base", "abc123", "--fail-on", "findings", "--tokenizer", "cl100k_base", "--engine", "sglang",
        "--block-size", "32", "--", "prompts"]


# Bug 6: an uncached hub tokenizer without a network fails at once, with prefixlint's message only.
def closed_port() -> int:
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens on it
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_an_uncached_hub_tokenizer_without_network_fails_fast_and_quietly(tmp_path):
    import os
    import subprocess
    import sys

    env = {key: value for key, value in os.environ.items()
           if key not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "HTTPS_PROXY", "https_proxy", "ALL_PROXY",
                          "all_proxy", "HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE")}
    env.update(HF_HOME=str(tmp_path / "hf"), HF_ENDPOINT=f"http://127.0.0.1:{closed_port()}", NO_COLOR="1")
    done = subprocess.run([sys.executable, "-m", "prefixlint", "check", "--tokenizer", "bogus-org/no-such-model",
                           str(CHAT)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert lines[0].startswith("prefixlint: error: tokenizer 'bogus-org/no-such-model' was taken as a Hugging Face"
                               " hub id"), lines
    assert "could not be downloaded" in lines[0] and "cannot reach http://127.0.0.1:" in lines[0]
    assert all(line.startswith(("prefixlint: error:", "  hint:", "    ")) for line in lines), lines  # nothing else
    hint = done.stderr[done.stderr.index("hint:"):]
    assert "hf download bogus-org/no-such-model tokenizer.json tokenizer_config.json" in hint
    assert "--offline" in hint and "hf auth login" in hint
    assert "Retry" not in done.stderr and "Traceback" not in done.stderr


# Bug 7: the README's two commands start from a virtual environment (a system Python refuses
# `pip install`: externally-managed-environment, PEP 668).
def test_the_readme_commands_start_from_a_virtual_environment():
    import re

    readme = (SAMPLES.parent / "README.md").read_text()
    first = re.findall(r"```sh\n(.*?)```", readme, flags=re.S)[0]
    commands = [line for line in first.splitlines() if line and not line.startswith("#")]
    assert commands[0] == "python3 -m venv .venv && . .venv/bin/activate"
    assert [c.split(" && ")[0] for c in commands[1:]] == ['python3 -m pip install .',
                                                         'python3 -m pip install -e ".[test]"']
    assert "externally-managed-environment" in readme


# Bug 8: check and transcript frame o200k_base's ChatML approximation alike, and both say so.
def test_check_and_transcript_frame_the_chatml_approximation_alike():
    from prefixlint.render.chat import render_chat
    from prefixlint.render.conversation import join
    from prefixlint.render.framing import ApproximateFraming
    from prefixlint.render.spans import RenderedMessage
    from prefixlint.tokenize import load_tokenizer

    tok = load_tokenizer("o200k_base")
    chat = [{"role": "system", "content": "You are terse.\nAnswer in English."}, {"role": "user", "content": "Hi?"}]
    rendered = render_chat(chat, tokenizer=tok)
    messages = [RenderedMessage(m["role"], m["content"], ()) for m in chat]
    assert join(messages, is_chat=True)[0] == rendered.text
    assert ApproximateFraming(True).frame(messages, tok.encode).ids == list(rendered.ids(tok))
    assert rendered.text.startswith("<|im_start|>system<|im_sep|>You are terse.")


def test_check_prints_the_approximation_note_for_chat_files():
    result = check("--isolated", str(CHAT))
    assert "note: approximation: OpenAI does not publish the chat markup" in result.stderr
    assert "note:" not in result.stdout
    plain = check("--isolated", str(SAMPLES / "daily_briefing.txt"))
    assert "note:" not in plain.stderr


def test_the_summary_counts_files_not_the_folder_that_held_no_template(tmp_path):
    for name, text in (("a.yaml", "a: 1\n"), ("b.yaml", "b: 1\n"), ("c.yml", "c: 2\n")):
        (tmp_path / name).write_text(text)
    result = check("--isolated", str(tmp_path))
    assert result.exit_code == 0  # a walk never fails on what is not a prompt (issue 19)
    assert result.stdout.splitlines()[-1] == "All checks passed!"


def test_rule_prints_options_as_text_not_python():
    result = CliRunner().invoke(cli, ["rule", "pfx001"])
    assert result.exit_code == 0
    assert "{'" not in result.stdout and "'}" not in result.stdout
    assert "- severity_by_frequency: per_request = error, per_user = warning, per_day = warning" in result.stdout


def test_kv_says_byte_in_the_singular_and_layers_per_layer(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "llama", "num_hidden_layers": 2, "num_attention_heads": 4,
                                  "num_key_value_heads": 2, "hidden_size": 64, "torch_dtype": "bfloat16"}))
    text = CliRunner().invoke(cli, ["kv", str(config), "--dtype", "fp8", "--context", "1,2"]).stdout
    assert "(1 byte per value, --dtype)" in text and "1 bytes" not in text
    assert "\n1 token " in "\n" + text.split("\n\n")[1].split("\n", 1)[1] and "1 tokens" not in text
    data = json.loads(CliRunner().invoke(cli, ["kv", str(config), "--dtype", "fp8", "--format", "json"]).stdout)
    # 2 (K and V) x 2 kv heads x 16 head dim x 1 byte = 64 bytes per token in each layer, 128 in both
    (group,) = data["layers"]
    assert (group["bytes_per_token"], group["bytes_per_token_per_layer"], group["bytes_per_token_all_layers"]) == (
        64, 64, 128)
    assert data["bytes_per_token"] == 128


def test_docs_pin_the_release_tag_of_this_version_and_say_how_to_run_before_it():
    """Issue 25: a concrete tag scheme (vX.Y.Z, the package's version: tagged at release, see
    Releasing), and how to run the hook before a release (try-repo, a local repo)."""
    import prefixlint

    root = SAMPLES.parent
    for doc in (root / "README.md", root / "docs" / "workflow.md"):
        text = doc.read_text()
        assert f"rev: v{prefixlint.__version__}" in text and "rev: REV" not in text, doc
        assert "pre-commit try-repo" in text and "repo: local" in text, doc
    workflow = (root / "docs" / "workflow.md").read_text()
    assert "## Releasing" in workflow and "git tag -a v" in workflow and "git push origin v" in workflow
