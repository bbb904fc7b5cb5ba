"""PFX101 and PFX102: the detection functions on real chat templates, driven by the catalog cases."""

from __future__ import annotations

import json

import pytest

from prefixlint.render.templates import HARMONY, ChatTemplate
from prefixlint.rules.catalog import load_catalog
from prefixlint.rules.chat_template import (
    FIRST_CLOCK,
    detect_date_injection,
    detect_history_rewrite,
)
from prefixlint.tokenize import load_tokenizer
from tests.realfiles import real_file

CATALOG = load_catalog()


def tokenizer_for(key: str):
    if key.startswith("o200k"):
        return load_tokenizer(key)
    return load_tokenizer(str(real_file(key)))


def template_for(case: dict):
    if case.get("format") == "harmony":
        return ChatTemplate(HARMONY, None, "harmony")
    if "template" in case:
        return case["template"]
    path = real_file(case["real"])
    if path.suffix == ".json":
        return json.loads(path.read_text())["chat_template"]
    return path.read_text()


def cases(code: str, kind: str):
    return [pytest.param(case, id=f"{code}-{kind}-{i}") for i, case in enumerate(CATALOG[code].cases[kind])]


def test_the_catalog_describes_both_rules():
    assert CATALOG["PFX101"].name == "chat-template-injects-date"
    assert CATALOG["PFX102"].name == "chat-template-rewrites-history"
    assert CATALOG["PFX102"].severity == "info"
    assert all(CATALOG[code].cases["pass"] and CATALOG[code].cases["fail"] for code in ("PFX101", "PFX102"))


@pytest.mark.parametrize("case", cases("PFX101", "pass"))
def test_pfx101_pass(case):
    assert detect_date_injection(tokenizer_for(case["tokenizer"]), template_for(case)) is None


@pytest.mark.parametrize("case", cases("PFX101", "fail"))
def test_pfx101_fail(case):
    template = template_for(case)
    found = detect_date_injection(tokenizer_for(case["tokenizer"]), template)
    assert found is not None
    assert (found.line, found.text) == (case["expect"]["line"], case["expect"]["text"])
    # The line is where the clock is read.
    source = template.source if isinstance(template, ChatTemplate) else template
    assert "strftime_now" in source.splitlines()[found.line - 1]
    # The text is what the first clock formats to, found at the reported offset.
    assert FIRST_CLOCK.strftime("%Y") in found.text or FIRST_CLOCK.strftime("%S") in found.text
    assert found.stable_prefix_tokens < found.prompt_tokens


@pytest.mark.parametrize("case", cases("PFX102", "pass"))
def test_pfx102_pass(case):
    assert detect_history_rewrite(tokenizer_for(case["tokenizer"]), template_for(case)) is None


@pytest.mark.parametrize("case", cases("PFX102", "fail"))
def test_pfx102_fail(case):
    kwargs = {key: case[key] for key in ("messages", "tools") if key in case}
    found = detect_history_rewrite(tokenizer_for(case["tokenizer"]), template_for(case), **kwargs)
    assert found is not None
    expect = case["expect"]
    assert (found.line, found.message_index) == (expect["line"], expect["message"])
    assert expect["reason"] in found.reason
    assert found.shared_prefix_tokens < found.cached_tokens


def test_llama32_date_line_and_numbers_computed_independently():
    """Llama 3.2 with the Llama 3 tokenizer: the date comes from line 10, is written at line 33,
    and the tokens before it are those of the header up to `Today Date:`."""
    tok = load_tokenizer(str(real_file("llama3/tokenizer.json")))
    source = real_file("template/llama3.2").read_text()
    found = detect_date_injection(tok, source)
    assert (found.line, found.output_line) == (10, 33)
    assert 'strftime_now("%d %b %Y")' in source.splitlines()[9]
    assert "Today Date: " in source.splitlines()[32]
    header = ("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
              "Cutting Knowledge Date: December 2023\nToday Date: ")
    first = header + "02 Jan 2025\n\nYou are a helpful assistant.<|eot_id|>"
    second = header + "06 Feb 2026\n\nYou are a helpful assistant.<|eot_id|>"
    a, b = tok.encode(first), tok.encode(second)
    common = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
    assert found.stable_prefix_tokens == common
    assert found.char_offset == len(header)


def test_qwen3_history_rewrite_lines_are_the_two_branches():
    """Qwen3's own template: the reply is cached as written at line 41 (with <think>) and shown
    in history from line 46 (without)."""
    config = real_file("qwen3/tokenizer_config.json")
    source = json.loads(config.read_text())["chat_template"]
    found = detect_history_rewrite(tokenizer_for("qwen3/tokenizer.json"), source)
    lines = source.splitlines()
    assert "'\\n<think>\\n'" in lines[found.cached_line - 1]
    assert "<think>" not in lines[found.line - 1] and "content" in lines[found.line - 1]
    assert found.cached_text.startswith("<think>\nAdding two and two gives four.")
    assert found.new_text.startswith("2 + 2 = 4.<|im_end|>")


@pytest.mark.parametrize("case", cases("PFX103", "pass"))
def test_pfx103_pass(case):
    from prefixlint.rules.chat_template_tokens import detect_history_retokenize

    assert detect_history_retokenize(tokenizer_for(case["tokenizer"]), template_for(case)) is None


@pytest.mark.parametrize("case", cases("PFX103", "fail"))
def test_pfx103_fail(case):
    """The texts agree; the tokens part where the generation prompt's space meets the reply."""
    from prefixlint.render.chat import render_chat
    from prefixlint.rules.chat_template_tokens import RETOKENIZE_PROBE, detect_history_retokenize

    tokenizer, template = tokenizer_for(case["tokenizer"]), template_for(case)
    found = detect_history_retokenize(tokenizer, template)
    expect = case["expect"]
    assert found is not None and found.line == expect["line"]
    assert (found.cached_tokens[0], found.new_tokens[0]) == (expect["cached"], expect["new"])
    # computed independently: the prompt, then the reply encoded on its own, against the next request
    prompt = render_chat(RETOKENIZE_PROBE[:1], tokenizer=tokenizer, chat_template=template).text
    following = render_chat(RETOKENIZE_PROBE, tokenizer=tokenizer, chat_template=template).text
    assert following.startswith(prompt + RETOKENIZE_PROBE[1]["content"])
    generated = tokenizer.encode(prompt) + tokenizer.encode(RETOKENIZE_PROBE[1]["content"])
    again = tokenizer.encode(following)
    first = next(i for i, (a, b) in enumerate(zip(generated, again)) if a != b)
    assert first == found.token and len(tokenizer.encode(prompt)) - 1 == first
