"""A fuzz of every loader and renderer (issue 16): whatever the input, prefixlint exits 0, 1 or 2
with no internal error, the good file beside a bad one is still reported, and each input
finishes in bounded time and memory (tests/fuzz/harness.py). Brief and derandomized in the
suite; `PREFIXLINT_FUZZ_EXAMPLES=2000 python -m pytest tests/fuzz -q` for a long campaign."""

from __future__ import annotations

import json

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from tests.fuzz import strategies as s
from tests.fuzz.harness import check_files, fuzz_settings, lowered_limits, run_on_file


@pytest.fixture(autouse=True)
def _limits(monkeypatch):
    lowered_limits(monkeypatch)


@fuzz_settings(60)
@given(s.mutated_files())
@example(("summaries.txt", b"Ticket received at {{" + b"9" * 5000 + b"}} for {{ ticket }}\n"))  # int() of 5,000 digits
def test_mutated_samples(file):
    name, content = file
    check_files({name: content})


@fuzz_settings(50)
@given(s.jinja_templates, st.sampled_from(["t.j2", "t.md"]))
def test_generated_jinja(template, name):
    check_files({name: template + "\nYou are the assistant of Northwind Bank. Never ask for PINs.\n"})


@fuzz_settings(30)
@given(s.handlebars_templates, s.mustache_templates, st.sampled_from(["", "Partial {{name}}"]))
def test_generated_handlebars_and_mustache(handlebars, mustache, partial):
    dotprompt = f"---\nmodel: x\ninput:\n  default:\n    name: Ana\n---\n{handlebars}\n"
    langchain = json.dumps({"_type": "prompt", "input_variables": ["name"], "template_format": "mustache",
                            "template": mustache})
    check_files({"d.prompt": dotprompt, "_house.prompt": partial, "l.json": langchain})


@fuzz_settings(40)
@given(s.structures, st.sampled_from(["yaml", "json", "toml"]))
def test_structures(value, kind):
    if kind == "toml":
        check_files({"pyproject.toml": _toml(value)}, good_reported=False)
        return
    document = {"prompt": "Hello {{ user_name }}", "variables": value} if isinstance(value, list) else value
    if kind == "yaml":
        text = yaml.safe_dump(document, allow_unicode=True) if not isinstance(document, float) else str(document)
        check_files({"s.yaml": text})
    else:
        check_files({"s.json": json.dumps(document, ensure_ascii=False)})


def _toml(value) -> str:
    """`[tool.prefixlint]` with the generated value under a real key and an unknown one."""
    def literal(item):
        if isinstance(item, bool):
            return "true" if item else "false"
        if isinstance(item, (int, float)) and item == item and abs(item) != float("inf"):
            return repr(item)
        if isinstance(item, list):
            return "[" + ", ".join(literal(i) for i in item) + "]"
        return json.dumps(str(item))
    key = ["block-size", "select", "exclude", "extend-volatile", "min-stable-tokens", "engine"][len(str(value)) % 6]
    return f"[tool.prefixlint]\n{key} = {literal(value)}\n"


@fuzz_settings(40)
@given(st.lists(st.one_of(s.request_lines.map(lambda line: json.dumps(line, ensure_ascii=False)),
                          st.sampled_from(s.HOSTILE), s.text), min_size=1, max_size=6))
def test_request_log_lines(lines):
    good = json.dumps({"messages": [{"role": "user", "content": "hello there"}]})
    result = run_on_file(["replay"], "log.jsonl", "\n".join([good, *lines, good]) + "\n")
    assert result.exit_code == 0, result.output[-2000:]  # bad lines are counted, not fatal


@fuzz_settings(60)
@given(s.model_configs)
def test_model_configs(config):
    run_on_file(["kv", "--format", "json"], "config.json", json.dumps(config))
