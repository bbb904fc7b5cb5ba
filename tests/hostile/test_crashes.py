"""Inputs that used to end the whole run with `prefixlint: internal error` (issue 16): each is
now one located diagnostic, exit 2, and the good file beside it is still reported."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from tests.check.test_check_bad_input import GOOD, write

EXAMPLE_CONFIG = Path(__file__).parent.parent.parent / "docs" / "examples" / "gpt-oss-120b-config.json"
HUGE = "9" * 5000
DEEP_JSON = "[" * 100_000 + "]" * 100_000
LC_HEAD = '{"lc": 1, "type": "constructor", "id": ["langchain", "prompts", "chat", "ChatPromptTemplate"], '

# file name, content, message fragment, line (None: the file as a whole)
CLASSES = [
    # a filter Jinja does not define is the application's own: measured with it taken out
    ("filter.j2", "Intro line\n{{ x|nosuchfilter }}\n", None, None),
    ("dotted_filter.j2", "{{ x|sort.keys }}\n", None, None),
    ("loop_target.j2", "a\nb\n{% for loop in x %}{{ loop }}{% endfor %}\n", "special loop variable", 3),
    ("const_attr.j2", "a\n{{ 1 if 'a'.role else 2 }}\n", "'str object' has no attribute 'role'", 2),
    ("date.yaml", "variables:\n  day: {samples: [2024-13-45]}\nprompt: 'On {{ day }}'\n",
     "'2024-13-45' is not a valid timestamp: month must be in 1..12", 2),
    ("date.prompt", "---\nmodel: x\ninput:\n  default:\n    day: 2024-02-30\n---\nOn {{day}}\n",
     "'2024-02-30' is not a valid timestamp: day is out of range for month", 5),
    ("digits.yaml", f"variables:\n  n: {{samples: [{HUGE}]}}\nprompt: 'x {{{{ n }}}}'\n",
     "a number of 5,000 digits is too large", 2),
    ("digits.json", '[{"role": "user", "content": "hi {{ n }}", "n": ' + HUGE + "}]\n",
     "not a recognised template", 1),  # no format sniffs a list its JSON reader refuses
    ("jinja_messages.json", '[{"role": "user", "content": "{% for m in messages %}x{% endfor %}"}]\n',
     None, None),
    ("deep.json", DEEP_JSON, "nests too deeply", None),
    ("lc_scalar.json", LC_HEAD + '"kwargs": 5}\n', "a chat prompt needs a non-empty `messages` list", 1),
    ("lc_messages.json", LC_HEAD + '"kwargs": {"messages": [{"lc": 1, "kwargs": 7}]}}\n', "", None),
]




def run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.mark.parametrize(("name", "content", "fragment", "line"), CLASSES, ids=[row[0] for row in CLASSES])
def test_each_class_is_one_located_diagnostic_and_the_good_file_is_reported(tmp_path, good, name, content,
                                                                             fragment, line):
    bad = write(tmp_path, name, content)
    result = run("check", "--isolated", str(bad), str(good))
    assert "internal error" not in result.output and "Traceback" not in result.output
    assert f"{good}:1:7: PFX003" in result.stdout
    if fragment is None:  # a list of chat messages whose content is Jinja: a template like any other
        assert result.exit_code == 1 and f"{bad}: " in result.stdout, result.output
        return
    assert result.exit_code == 2, result.output
    where = f"{bad}:{line}:" if line else f"{bad}:"
    errors = [text for text in result.stderr.splitlines() if text.startswith("prefixlint: error:")]
    assert len(errors) == 1 and errors[0].startswith(f"prefixlint: error: {where}") and fragment in errors[0], \
        result.stderr


def test_a_symlink_loop_in_a_walk_is_skipped(tmp_path, good):
    os.symlink(tmp_path / "b.md", tmp_path / "a.md")
    os.symlink(tmp_path / "a.md", tmp_path / "b.md")
    os.symlink(tmp_path, tmp_path / "again")
    result = run("check", "--isolated", str(tmp_path))
    assert result.exit_code == 1 and result.stderr == ""
    assert f"{good}:1:7: PFX003" in result.stdout


def test_a_lone_bang_in_gitignore_is_skipped_and_in_exclude_is_a_configuration_error(tmp_path, good):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("!\nskipped.md\n")
    write(tmp_path, "skipped.md", GOOD)
    walked = run("check", "--isolated", str(tmp_path))
    assert walked.exit_code == 1 and f"{good}:1:7: PFX003" in walked.stdout and "skipped.md" not in walked.stdout
    config = write(tmp_path, ".prefixlint.yaml", 'exclude: ["legacy/", "!"]\n')
    result = run("check", "--config", str(config), str(good))
    assert result.exit_code == 2
    assert f"prefixlint: error: {config}:1:22: exclude: '!' is not a gitignore pattern" in result.stderr


def test_a_nul_byte_in_the_configuration_is_located(tmp_path, good):
    (tmp_path / ".prefixlint.yaml").write_bytes(b"engine: vllm\nignore: [PFX007]\x00\n")
    result = run("check", str(good))
    assert result.exit_code == 2
    assert "a NUL byte is not allowed in a configuration file" in result.stderr
    assert ".prefixlint.yaml:2:" in result.stderr


@pytest.mark.parametrize(("key", "value", "fragment"), [
    ("class", "nosuch", "class: 'nosuch' is not one of timestamp, identifier, user-data"),
    ("frequency", "hourly", "frequency: 'hourly' is not one of per_request, per_user, per_day, per_deployment"),
])
def test_extend_volatile_with_an_unknown_class_is_refused_when_read(tmp_path, good, key, value, fragment):
    signal = {"id": "tenant", "class": "user-data", "frequency": "per_user", "names": ["user_*"], key: value}
    config = write(tmp_path, ".prefixlint.yaml", f"extend-volatile:\n  - {json.dumps(signal)}\n")
    result = run("check", "--config", str(config), str(good))
    assert result.exit_code == 2 and "internal error" not in result.output
    assert f"{config}:2:5: extend-volatile: item 1 {fragment}" in result.stderr


@pytest.mark.parametrize(("text", "fragment"), [
    (f"[tool.prefixlint]\nblock-size = {HUGE}\n", "invalid TOML: Exceeds the limit"),
    ("[tool.prefixlint]\nx = " + DEEP_JSON + "\n", "nested too deeply"),
])
def test_toml_values_python_refuses(tmp_path, good, text, fragment):
    write(tmp_path, "pyproject.toml", text)
    result = run("check", str(good))
    assert result.exit_code == 2 and fragment in result.stderr and "internal error" not in result.output


def test_an_absolute_promptfoo_glob_is_refused_at_its_line(tmp_path, good):
    (tmp_path / ".git").mkdir()
    config = write(tmp_path, "promptfooconfig.yaml", "prompts:\n  - file:///etc/*\nproviders: [openai:gpt-4o]\n")
    result = run("check", "--isolated", str(config), str(good))
    assert result.exit_code == 2 and "internal error" not in result.output
    assert f"prefixlint: error: {config}:2: cannot read /etc/*: /etc/" in result.stderr
    assert "resolves outside the repository" in result.stderr


def model_config(tmp_path: Path, **changes) -> Path:
    data = json.loads(EXAMPLE_CONFIG.read_text())
    data.update(changes)
    return write(tmp_path, "config.json", json.dumps(data))


@pytest.mark.parametrize(("changes", "fragment"), [
    ({"head_dim": "64"}, "head_dim must be a non-negative integer, not '64'"),
    ({"head_dim": [64]}, "head_dim must be a non-negative integer, not [64]"),
    ({"head_dim": {"k": 64}}, "head_dim must be a non-negative integer, not {'k': 64}"),
    ({"head_dim": -64}, "head_dim must be a non-negative integer, not -64"),
    ({"num_hidden_layers": 10**12, "layer_types": None},
     "1,000,000,000,000 layers is not a model (the limit is 100,000)"),
])
def test_kv_model_config_values_of_the_wrong_shape(tmp_path, changes, fragment):
    result = run("kv", str(model_config(tmp_path, **changes)))
    assert result.exit_code == 2 and fragment in result.stderr, result.output


@pytest.mark.parametrize(("content", "fragment"), [
    (DEEP_JSON, "nested too deeply"),
    ('{"num_hidden_layers": ' + HUGE + "}", "a number of 5,000 digits is too large"),
])
def test_kv_config_json_python_refuses(tmp_path, content, fragment):
    result = run("kv", str(write(tmp_path, "config.json", content)))
    assert result.exit_code == 2 and fragment in result.stderr and "internal error" not in result.output


@pytest.mark.parametrize("option", [("--memory", "9" * 400 + "GB"), ("--context", HUGE)])
def test_kv_options_with_too_many_digits(option):
    result = run("kv", str(EXAMPLE_CONFIG), *option)
    assert result.exit_code == 2 and "digits is too large (the limit is 100)" in result.stderr


@pytest.mark.parametrize(("args", "fragment"), [
    (("--block-size", str(10**20)), "--block-size must be at most 1,048,576, not 100,000,000,000,000,000,000"),
    (("--cache-tokens", str(10**22)), "more than the 16,777,216 this replay models"),
])
def test_replay_sizes_beyond_any_cache(args, fragment):
    log = Path(__file__).parent.parent.parent / "docs" / "examples" / "traffic.jsonl"
    result = run("replay", *args, str(log))
    assert result.exit_code == 2 and fragment in result.stderr and "internal error" not in result.output


@pytest.mark.parametrize(("name", "content", "fragment"), [
    ("nan.json", '{"messages": [{"role": "user", "content": "hi", "timestamp": NaN}]}', "NaN is not a JSON number"),
    ("over.yaml", "messages:\n  - {role: user, content: hi, timestamp: 1e300}\n", "`timestamp` is not an ISO 8601"),
    ("nan.yaml", "messages:\n  - {role: user, content: hi, timestamp: .nan}\n", "`timestamp` is not an ISO 8601"),
    ("deep.json", '{"messages": ' + DEEP_JSON + "}", "nested too deeply"),
])
def test_transcript_timestamps_and_nesting(tmp_path, name, content, fragment):
    result = run("transcript", str(write(tmp_path, name, content)))
    assert result.exit_code == 2 and fragment in result.stderr and "internal error" not in result.output


def test_an_unexpected_failure_in_one_file_is_that_files_error(tmp_path, good, monkeypatch):
    """The last line of defence: a bug in one loader is reported against its file only."""
    from dataclasses import replace

    from prefixlint.load import plain_text

    bad = write(tmp_path, "bad.txt", "Hello {{ name }}\n")
    real = plain_text.LOADER

    def broken(path, text):
        if path.endswith("bad.txt"):
            raise KeyError("boom")
        return real.load(path, text)

    monkeypatch.setattr(plain_text, "LOADER", replace(real, load=broken))
    result = run("check", "--isolated", str(bad), str(good))
    assert result.exit_code == 2
    assert f"prefixlint: error: {bad}: internal error: KeyError: 'boom'" in result.stderr
    assert f"{good}:1:7: PFX003" in result.stdout


def test_a_promptfoo_prompt_entry_without_raw_or_id(tmp_path, good):
    """Found by tests/fuzz: the error for the entry used the entry it had just lost."""
    config = write(tmp_path, "promptfooconfig.yaml",
                   "prompts:\n  - label: greeting\n    prompts: 3\nproviders: [openai:gpt-4o]\n")
    result = run("check", "--isolated", str(config), str(good))
    assert result.exit_code == 2 and f"{good}:1:7: PFX003" in result.stdout
    assert f"prefixlint: error: {config}:2: a prompt entry needs `raw` or `id`" in result.stderr
