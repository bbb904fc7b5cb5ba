"""`prefixlint check` options, configuration, suppressions, JSON shape; `rules` and `rule`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from prefixlint.cli import cli

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
CHAT = SAMPLES / "research_agent_chat.yaml"  # PFX004 and PFX001

FINDING_KEYS = ["code", "name", "severity", "line", "column", "variable", "message",
                "shared_prefix_tokens", "reusable_tokens", "fixed_reusable_tokens"]
SCHEMA = {
    "type": "object", "required": ["files"],
    "properties": {"files": {"type": "array", "items": {
        "type": "object", "required": ["path", "tokens", "reusable_tokens", "findings"],
        "properties": {
            "path": {"type": "string"}, "tokens": {"type": "integer"}, "reusable_tokens": {"type": "integer"},
            "findings": {"type": "array", "items": {
                "type": "object", "required": FINDING_KEYS,
                "properties": {
                    "code": {"type": "string", "pattern": "^PFX\\d{3}$"}, "name": {"type": "string"},
                    "severity": {"enum": ["error", "warning", "info"]},
                    "line": {"type": "integer", "minimum": 1}, "column": {"type": "integer", "minimum": 1},
                    "variable": {"type": ["string", "null"]}, "message": {"type": "string"},
                    "shared_prefix_tokens": {"type": ["integer", "null"]},
                    "reusable_tokens": {"type": ["integer", "null"]},
                    "fixed_reusable_tokens": {"type": ["integer", "null"]},
                }}},
        }}}},
}


def run(*args, **kwargs):
    return CliRunner().invoke(cli, ["check", *args], **kwargs)


def codes(result):
    return [f["code"] for entry in json.loads(result.stdout)["files"] for f in entry["findings"]]


def test_json_shape_matches_the_issue():
    result = run("--isolated", "--format", "json", str(SAMPLES))
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    assert data["errors"] == [] and data["summary"]["findings"] == len(codes(result))


def test_select_ignore_and_exit_zero():
    assert codes(run("--isolated", "--format", "json", str(CHAT))) == ["PFX004", "PFX001"]
    assert codes(run("--isolated", "--format", "json", "--select", "PFX001", str(CHAT))) == ["PFX001"]
    assert codes(run("--isolated", "--format", "json", "--ignore", "PFX004", str(CHAT))) == ["PFX001"]
    result = run("--isolated", "--select", "PFX002", str(CHAT))
    assert result.exit_code == 0 and result.stdout.splitlines() == [
        f"{CHAT}: 636 tokens · reusable now 0% · after the suggested fixes 0%", "All checks passed!"]
    assert run("--isolated", "--exit-zero", str(CHAT)).exit_code == 0


def test_statistics():
    result = run("--isolated", "--statistics", str(SAMPLES))
    assert "    4  PFX001  timestamp-before-stable" in result.stdout.splitlines()
    assert "    1  PFX007  stable-prefix-below-minimum" in result.stdout.splitlines()


def test_engine_and_block_size_change_the_numbers():
    def finding(*flags):
        out = run("--isolated", "--format", "json", *flags, str(SAMPLES / "support_bot.yaml"))
        return json.loads(out.stdout)["files"][0]["findings"][0]

    vllm, sglang, big = finding(), finding("--engine", "sglang"), finding("--block-size", "64")
    shared = vllm["shared_prefix_tokens"]
    assert sglang["reusable_tokens"] == shared  # token granularity
    assert vllm["reusable_tokens"] == shared - shared % 16
    assert big["reusable_tokens"] == shared - shared % 64
    assert "after 64-token blocks" in big["message"]
    # below OpenAI's 1,024-token minimum no order is reused: moving the date gains nothing, so
    # it is no finding, and PFX007 says why
    openai = finding("--engine", "openai")
    assert openai["code"] == "PFX007" and "below openai's minimum of 1,024 tokens" in openai["message"]


def test_tokenizer_flag_and_file_override(tmp_path):
    text = "Hello {{ user_name }}, you are talking to the assistant of Northwind Bank. " * 3 + "\n"
    (tmp_path / "a_prompt.md").write_text(text)
    (tmp_path / "b.yaml").write_text(
        "tokenizer: o200k_base\nvariables:\n  user_name: {}\nprompt: |\n  " + text)
    data = json.loads(run("--isolated", "--format", "json", "--tokenizer", "cl100k_base", str(tmp_path)).stdout)
    by_name = {Path(f["path"]).name: f for f in data["files"]}
    assert (by_name["a_prompt.md"]["tokenizer"], by_name["b.yaml"]["tokenizer"]) == ("cl100k_base", "o200k_base")


def test_configuration_file_closest_wins_and_flags_win(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.prefixlint]\nignore = ["PFX004"]\nengine = "sglang"\n')
    target = tmp_path / "chat.yaml"
    target.write_text(CHAT.read_text())
    data = json.loads(run("--format", "json", str(target)).stdout)
    assert [f["code"] for f in data["files"][0]["findings"]] == ["PFX001"]
    assert data["files"][0]["engine"] == "sglang"
    assert codes(run("--format", "json", "--isolated", str(target))) == ["PFX004", "PFX001"]
    assert json.loads(run("--format", "json", "--engine", "vllm", str(target)).stdout)["files"][0]["engine"] == "vllm"
    other = tmp_path / "other.yaml"
    other.write_text("select:\n  - PFX004\n")
    assert codes(run("--format", "json", "--config", str(other), str(target))) == ["PFX004"]


def test_min_stable_tokens_from_configuration(tmp_path):
    (tmp_path / ".prefixlint.yaml").write_text("min-stable-tokens: 100000\n")
    target = tmp_path / "chat.yaml"
    target.write_text(CHAT.read_text())
    assert codes(run("--format", "json", str(target))) == []


def test_suppression_comments_and_unused_ones(tmp_path):
    source = (SAMPLES / "support_bot.yaml").read_text()
    suppressed = source.replace("Current time: {{ now }}", "Current time: {{ now }} {# prefixlint: disable PFX001 #}")
    path = tmp_path / "bot.yaml"
    path.write_text(suppressed)
    result = run("--isolated", str(path))
    assert result.exit_code == 0, result.output
    path.write_text(suppressed.replace("disable PFX001", "disable PFX002"))
    data = json.loads(run("--isolated", "--format", "json", str(path)).stdout)
    assert sorted((f["code"], f["line"]) for f in data["files"][0]["findings"]) == [("PFX000", 10), ("PFX001", 10)]


def test_volatile_from_extend_volatile_configuration(tmp_path):
    (tmp_path / ".prefixlint.yaml").write_text(
        "extend-volatile:\n  - {id: tenant, class: user-data, frequency: per_user, names: [tenant]}\n")
    (tmp_path / "p.md").write_text("Tenant: {{ tenant }}\n" + "You are the assistant of Northwind Bank. " * 6 + "\n")
    assert codes(run("--format", "json", str(tmp_path / "p.md"))) == ["PFX003"]
    assert codes(run("--format", "json", "--isolated", str(tmp_path / "p.md"))) == []


def test_rules_and_rule_commands():
    listed = CliRunner().invoke(cli, ["rules"])
    assert listed.exit_code == 0
    listed_codes = [line.split()[0] for line in listed.stdout.splitlines()]
    assert listed_codes[:8] == [f"PFX00{n}" for n in range(8)] and listed_codes == sorted(listed_codes)
    shown = CliRunner().invoke(cli, ["rule", "PFX001"])
    assert shown.exit_code == 0
    assert shown.stdout.startswith("# timestamp-before-stable (PFX001)\n\nDefault severity: error.")
    for heading in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert heading in shown.stdout
    assert CliRunner().invoke(cli, ["rule", "boundary-merge"]).stdout.startswith("# boundary-merge (PFX006)")
    unknown = CliRunner().invoke(cli, ["rule", "PFX999"])
    assert unknown.exit_code == 2 and "unknown rule 'PFX999'" in unknown.stderr
    assert {"PFX101", "PFX102"} <= set(listed_codes)  # the chat-template rules
    shown = CliRunner().invoke(cli, ["rule", "chat-template-rewrites-history"]).stdout
    assert shown.startswith("# chat-template-rewrites-history (PFX102)\n\nDefault severity: info.")
    assert "## Use instead" in shown and "## References" in shown
    assert CliRunner().invoke(cli, ["rule", "PFX101"]).stdout.startswith("# chat-template-injects-date (PFX101)")
    data = json.loads(CliRunner().invoke(cli, ["rules", "--format", "json"]).stdout)
    assert data[1] == {"code": "PFX001", "name": "timestamp-before-stable", "severity": "error",
                       "summary": data[1]["summary"]}


def test_help_imports_nothing_heavy():
    code = ("import sys; from prefixlint.cli import cli, COMMANDS; import prefixlint.commands.check, "
            "prefixlint.commands.rules\n"
            "heavy = {'tiktoken', 'jinja2', 'yaml', 'tokenizers', 'transformers', 'huggingface_hub'}\n"
            "print(sorted(heavy & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_exclude_from_the_closest_configuration(tmp_path):
    (tmp_path / "prompts" / "drafts").mkdir(parents=True)
    (tmp_path / "prompts" / "drafts" / ".prefixlint.yaml").write_text("exclude: ['old_*.md']\n")
    text = "Hello {{ user_name }}, you are talking to the assistant of Northwind Bank. " * 3 + "\n"
    for name in ("prompts/a.md", "prompts/drafts/old_b.md", "prompts/drafts/c.md"):
        (tmp_path / name).write_text(text)
    walked = json.loads(run("--format", "json", str(tmp_path / "prompts")).stdout)
    assert sorted(Path(f["path"]).name for f in walked["files"]) == ["a.md", "c.md"]
    named = tmp_path / "prompts/drafts/old_b.md"
    assert len(json.loads(run("--format", "json", str(named)).stdout)["files"]) == 1
    forced = run("--format", "json", "--force-exclude", str(named), str(tmp_path / "prompts/a.md"))
    assert [Path(f["path"]).name for f in json.loads(forced.stdout)["files"]] == ["a.md"]


def test_a_hugging_face_tokenizer_measures_with_its_own_vocabulary(monkeypatch):
    """Qwen3's real tokenizer.json: the numbers are recomputed here with the `tokenizers` library."""
    from tokenizers import Tokenizer

    from prefixlint.match.prefix import shared_prefix
    from tests.realfiles import real_file

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = real_file("qwen3/tokenizer.json")
    result = run("--isolated", "--offline", "--format", "json", "--tokenizer", str(path),
                 str(SAMPLES / "greeting_policy.md"))
    (entry,) = json.loads(result.stdout)["files"]
    (finding,) = entry["findings"]
    qwen = Tokenizer.from_file(str(path))
    text = (SAMPLES / "greeting_policy.md").read_text()
    a, b = (qwen.encode(text.replace("{{ user_name }}", name), add_special_tokens=False).ids
            for name in ("Maria Garcia", "Kenji Watanabe"))
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX003", 1, 7)
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(a), shared_prefix(a, b))
    assert entry["tokenizer"] != "o200k_base"


def test_a_value_that_only_picks_a_branch_is_located_at_its_tag(tmp_path):
    path = tmp_path / "branch.j2"
    path.write_text(
        '{% if user_name == "Maria Garcia" %}Welcome back, Maria!{% else %}Hello there!{% endif %}\n'
        "You are the assistant of Northwind Bank. Never ask for PINs or passwords, explain fees in\n"
        "plain language, and offer an appointment with an adviser for loans and mortgages.\n"
    )
    data = json.loads(run("--isolated", "--format", "json", str(path)).stdout)
    volatile = data["files"][0]["volatile"]
    assert volatile["user_name"]["class"] == "user-data"
    # Nothing to move (the value picks a branch), so no PFX003; and no order can help: PFX007.
    assert [(f["code"], f["line"], f["column"]) for f in data["files"][0]["findings"]] == [("PFX007", 1, 1)]


@pytest.mark.parametrize(("flags", "fragment"), [
    (["--engine", "warp"], "unknown engine 'warp'"),
    (["--block-size", "0"], "--block-size must be at least 1"),
    (["--tokenizer", "no-such-org/no-such-model", "--offline"], "no-such-org/no-such-model"),
])
def test_bad_flags_are_one_usage_error(flags, fragment, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = run("--isolated", *flags, str(SAMPLES))
    assert result.exit_code == 2
    assert result.stderr.count("prefixlint: error:") == 1 and fragment in result.stderr
    assert result.stdout == ""


def test_formatter_registry_and_the_public_result_shape():
    """Other formats (github, sarif) build on these: keep them stable."""
    from dataclasses import fields

    from prefixlint.errors import PrefixlintError
    from prefixlint.report.formats import CHECK_FORMATS, format_results
    from prefixlint.results import FileResult, Finding

    assert [f.name for f in fields(FileResult)] == [
        "path", "tokens", "reusable_tokens", "fixed_reusable_tokens", "findings", "error",
        "format", "model", "tokenizer", "engine", "chat_format", "chat_template", "block_size",
        "shared_prefix_tokens", "fixed_tokens", "fixed_shared_prefix_tokens", "volatile", "prompts", "config",
        "token_view", "fix_sources",
        "history_tokens", "sent_alone", "unknown", "skipped", "fixed_texts"]
    assert set(CHECK_FORMATS) >= {"text", "json"}
    finding = Finding(path="p.md", line=2, column=3, code="PFX001", name="timestamp-before-stable",
                      severity="error", message="m", variable="now", tokens=100, shared_prefix_tokens=5,
                      reusable_tokens=0, fixed_reusable_tokens=96)
    results = [FileResult("p.md", 100, 0, 96, (finding,)), FileResult("q.md", error=PrefixlintError("bad", path="q.md", line=1))]
    assert format_results(results, "text", color=False).splitlines() == [
        "p.md:2:3: PFX001 m", "p.md: 100 tokens · reusable now 0% · after the suggested fixes 96.0%",
        "1 finding in 2 files, 1 file with errors."]
    data = json.loads(format_results(results, "json"))
    assert data["files"][0]["findings"][0]["fixed_reusable_tokens"] == 96
    assert data["errors"] == [{"path": "q.md", "line": 1, "column": None, "message": "bad", "hint": None}]


def test_skip_non_templates_skips_named_files_that_are_no_template(tmp_path):
    # pre-commit names every staged file that matches the hook's extensions, package.json too.
    # --skip-non-templates takes a named file only when a walk of its repository would (issue 25
    # item 2, on issue 19's evidence): a prompt folder's Markdown is taken, the same text at the
    # repository's top with nothing naming it (a notes page) is not.
    (tmp_path / ".git").mkdir()
    manifest = tmp_path / "package.json"
    manifest.write_text('{"name": "web", "version": "1.0.0", "dependencies": {}}\n')
    workflow = tmp_path / "ci.yml"
    workflow.write_text("on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n")
    text = "Hello {{ user_name }}.\n" + "Follow the refund policy, section by section.\n" * 20
    (tmp_path / "prompts").mkdir()
    prompt = tmp_path / "prompts" / "greeting.md"
    prompt.write_text(text)
    notes = tmp_path / "notes.md"
    notes.write_text(text)
    named = [str(manifest), str(workflow), str(prompt), str(notes)]

    strict = run(*named)
    assert strict.exit_code == 2
    assert "package.json" in strict.output and "ci.yml" in strict.output

    lenient = run("--skip-non-templates", *named, "--format", "json")
    assert lenient.exit_code == 1
    report = json.loads(lenient.output)
    assert [Path(f["path"]).name for f in report["files"]] == ["greeting.md"]
    assert [(f["code"], f["line"], f["column"]) for f in report["files"][0]["findings"]] == [("PFX003", 1, 7)]
    assert report["errors"] == []


def test_a_broken_configuration_is_an_error_of_the_files_under_it_only(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()  # the configuration search stops at the repository root
    (tmp_path / "pyproject.toml").write_text('[tool.prefixlint]\nmin-stable-tokens = "32"\n')
    agents = tmp_path / "prompts" / "agents"
    agents.mkdir(parents=True)
    (agents / ".prefixlint.yaml").write_text("engine: vllm\n")
    body = "Hello {{ user_name }}.\n" + "Follow the refund policy, section by section.\n" * 20
    (agents / "planner.md").write_text(body)
    (tmp_path / "top.md").write_text(body)
    monkeypatch.chdir(tmp_path)

    nested = run("prompts/agents/planner.md", "--format", "json")
    assert nested.exit_code == 1  # its own configuration is fine: checked, one finding
    assert [f["code"] for f in json.loads(nested.output)["files"][0]["findings"]] == ["PFX003"]

    both = run("prompts/agents/planner.md", "top.md", "--format", "json")
    assert both.exit_code == 2
    report = json.loads(both.output)
    assert [Path(f["path"]).name for f in report["files"] if not f.get("error")] == ["planner.md"]
    assert [(Path(e["path"]).name, e["line"]) for e in report["errors"]] == [("pyproject.toml", 2)]


def test_a_reader_that_goes_away_is_not_an_internal_error():
    # `prefixlint rules | head -1`: the pipe closes before prefixlint writes.
    proc = subprocess.Popen([sys.executable, "-m", "prefixlint", "rules"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert b"internal error" not in err and b"Traceback" not in err
    assert proc.returncode in (0, 1)


def test_checking_a_chat_template_imports_neither_transformers_nor_numpy():
    """The light core: a chat template renders in prefixlint's own copy of transformers'
    environment (render/chat_env.py), so transformers (and numpy with it) stays out."""
    sample = Path(__file__).resolve().parents[2] / "samples" / "chat_template_dated.jinja"
    code = ("import sys; from click.testing import CliRunner; from prefixlint.cli import cli;"
            f"r = CliRunner().invoke(cli, ['check', {str(sample)!r}]); assert r.exit_code == 1, r.output;"
            "assert 'PFX101' in r.output, r.output;"
            "print(sorted(m for m in ('transformers', 'numpy', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_rule_is_markdown_with_fenced_examples_json_and_all():
    import yaml as yaml_module

    from prefixlint.rules.catalog import load_catalog

    shown = CliRunner().invoke(cli, ["rule", "PFX001"]).stdout
    example = shown.split("## Example\n\n", 1)[1].split("\n\n## ", 1)[0]
    assert example.startswith("```yaml\n") and example.endswith("\n```")
    assert yaml_module.safe_load(example[len("```yaml\n"):-len("\n```")])["messages"][0]["role"] == "system"
    assert "## References\n\n- The rule's file" in shown and "/rules/PFX001.yaml" in shown
    data = json.loads(CliRunner().invoke(cli, ["rule", "PFX001", "--output-format", "json"]).stdout)
    assert (data["code"], data["name"], data["severity"]) == ("PFX001", "timestamp-before-stable", "error")
    assert set(data["docs"]) == {"what_it_does", "why_is_this_bad", "example", "use_instead"}
    every = CliRunner().invoke(cli, ["rule", "--all"]).stdout
    assert [line for line in every.splitlines() if re.fullmatch(r"# \S+ \(PFX\d{3}\)", line)] == [
        f"# {r.name} ({r.code})" for r in load_catalog().values()]
    assert len(json.loads(CliRunner().invoke(cli, ["rule", "--all", "--format", "json"]).stdout)) == len(load_catalog())
    typo = CliRunner().invoke(cli, ["rule", "timestamp-before-stabel"])
    assert typo.exit_code == 2 and "did you mean timestamp-before-stable?" in typo.stderr
