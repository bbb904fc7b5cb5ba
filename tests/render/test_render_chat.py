"""Chat rendering as vLLM's chat endpoint does it: real templates, real tokenizers, fixed clocks."""

from __future__ import annotations

import os
from datetime import datetime

import pytest

from prefixlint.errors import PrefixlintError, TemplateRenderError
from prefixlint.render.chat import generated_reply, render_chat
from prefixlint.render.templates import CHATML, HARMONY, read_chat_template
from prefixlint.tokenize import load_tokenizer
from tests.realfiles import model_dir, real_file

NOW = datetime(2025, 3, 4, 9, 0, 0)
CHAT = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": "Capital of France?"},
    {"role": "assistant", "content": "Paris.", "reasoning_content": "France's capital is Paris."},
    {"role": "user", "content": "And Spain?"},
]


@pytest.fixture(scope="module")
def qwen3(tmp_path_factory):
    """A model directory as a user has it: tokenizer.json and tokenizer_config.json (template)."""
    return load_tokenizer(str(model_dir(tmp_path_factory.mktemp("qwen3"), "qwen3/tokenizer.json",
                                        "qwen3/tokenizer_config.json")))


@pytest.fixture(scope="module")
def llama3():
    return load_tokenizer(str(real_file("llama3/tokenizer.json")))


def test_qwen3_renders_its_own_template_without_earlier_reasoning(qwen3):
    rendered = render_chat(CHAT, tokenizer=qwen3, now=NOW)
    expected = (
        "<|im_start|>system\nYou are terse.<|im_end|>\n"
        "<|im_start|>user\nCapital of France?<|im_end|>\n"
        "<|im_start|>assistant\nParis.<|im_end|>\n"
        "<|im_start|>user\nAnd Spain?<|im_end|>\n"
        "<|im_start|>assistant\n"
    )
    assert rendered.text == expected
    assert rendered.chat_format == "jinja" and rendered.template_origin.endswith("tokenizer_config.json (chat_template)")
    # Tokenized as the server does: the text, special-token text parsed, nothing added.
    assert rendered.ids(qwen3) == qwen3.encode(expected)
    assert rendered.ids(qwen3)[0] == qwen3.token_id("<|im_start|>")
    for index, message in enumerate(CHAT):
        start, end = rendered.spans[index]
        assert expected[start:end] == message["content"]
    assert rendered.message_at(expected.index("Paris.")) == 2


def test_qwen3_generated_reply_is_the_thinking_the_model_wrote(qwen3):
    reply = generated_reply(CHAT, 2, tokenizer=qwen3, now=NOW)
    body = "<think>\nFrance's capital is Paris.\n</think>\n\nParis."
    assert reply.text == body + "<|im_end|>" and reply.exact
    assert list(reply.ids) == qwen3.encode(body) + [qwen3.token_id("<|im_end|>")]


def test_llama32_takes_the_date_from_the_clock_given(llama3):
    source = real_file("template/llama3.2").read_text()
    rendered = render_chat(CHAT[:2], tokenizer=llama3, chat_template=source, now=NOW)
    assert rendered.text == (
        "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\n"
        "Cutting Knowledge Date: December 2023\nToday Date: 04 Mar 2025\n\n"
        "You are terse.<|eot_id|><|start_header_id|>user<|end_header_id|>\n\n"
        "Capital of France?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
    )
    assert rendered.clock_lines == (10,)
    ids = rendered.ids(llama3)
    assert ids.count(llama3.token_id("<|begin_of_text|>")) == 1  # BOS once: the template's own
    later = render_chat(CHAT[:2], tokenizer=llama3, chat_template=source, now=datetime(2025, 3, 5))
    assert "Today Date: 05 Mar 2025" in later.text


def test_the_real_clock_is_restored_after_a_render(llama3):
    from prefixlint.render.jinja import compiled_template

    source = real_file("template/llama3.2").read_text()
    render_chat(CHAT[:2], tokenizer=llama3, chat_template=source, now=NOW)
    template = compiled_template(source)
    assert template.globals["strftime_now"]("%Y") == str(datetime.now().year)


def test_harmony_renders_gpt_oss_offline_from_the_shipped_rank_file():
    harmony = load_tokenizer("o200k_harmony")
    before = os.environ.get("TIKTOKEN_ENCODINGS_BASE")
    rendered = render_chat(CHAT, tokenizer=harmony, now=NOW)
    assert os.environ.get("TIKTOKEN_ENCODINGS_BASE") == before
    expected = (
        "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n"
        "Knowledge cutoff: 2024-06\nCurrent date: 2025-03-04\n\nReasoning: medium\n\n"
        "# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|>"
        "<|start|>developer<|message|># Instructions\n\nYou are terse.<|end|>"
        "<|start|>user<|message|>Capital of France?<|end|>"
        "<|start|>assistant<|channel|>final<|message|>Paris.<|end|>"
        "<|start|>user<|message|>And Spain?<|end|><|start|>assistant"
    )
    assert rendered.chat_format == HARMONY
    assert rendered.text == expected
    assert rendered.ids(harmony) == harmony.encode(expected)
    reply = generated_reply(CHAT, 2, tokenizer=harmony, now=NOW)
    assert reply.text == ("<|channel|>analysis<|message|>France's capital is Paris.<|end|>"
                          "<|start|>assistant<|channel|>final<|message|>Paris.<|return|>")
    assert list(reply.ids) == harmony.encode(reply.text)


def test_o200k_base_gets_the_documented_chatml_approximation():
    tok = load_tokenizer("o200k_base")
    rendered = render_chat(CHAT[:2], tokenizer=tok, now=NOW)
    assert rendered.chat_format == CHATML and "approximation" in rendered.note
    assert rendered.text == ("<|im_start|>system<|im_sep|>You are terse.<|im_end|>"
                             "<|im_start|>user<|im_sep|>Capital of France?<|im_end|>"
                             "<|im_start|>assistant<|im_sep|>")
    pieces = ["<|im_start|>", "system", "<|im_sep|>", "You are terse.", "<|im_end|>", "<|im_start|>", "user",
              "<|im_sep|>", "Capital of France?", "<|im_end|>", "<|im_start|>", "assistant", "<|im_sep|>"]
    assert rendered.ids(tok) == [i for piece in pieces for i in tok.encode(piece)]


def test_tool_call_arguments_reach_the_template_as_a_dict(qwen3):
    chat = [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "18C"},
    ]
    text = render_chat(chat, tokenizer=qwen3, now=NOW).text
    assert '<tool_call>\n{"name": "weather", "arguments": {"city": "Paris"}}\n</tool_call>' in text
    assert "<tool_response>\n18C\n</tool_response>" in text


def test_a_template_that_raises_gives_its_line(qwen3):
    source = real_file("template/mistral-small").read_text()
    with pytest.raises(TemplateRenderError) as info:  # the template's doing, with its line
        render_chat([{"role": "user", "content": "hi"}, {"role": "tool", "content": "x"}],
                    tokenizer=qwen3, chat_template=source, now=NOW)
    assert isinstance(info.value, PrefixlintError)
    assert "Only user, system and assistant roles are supported!" in info.value.message
    assert info.value.template_line == 23
    assert "raise_exception" in source.splitlines()[22]


def test_chat_template_from_a_tokenizer_config(tmp_path):
    template = read_chat_template(str(real_file("qwen3/tokenizer_config.json")))
    assert template.source.startswith("{%- if tools %}")
    bad = tmp_path / "tokenizer_config.json"
    bad.write_text('{"bos_token": null}')
    with pytest.raises(PrefixlintError, match="no `chat_template`"):
        read_chat_template(str(bad))


def test_a_template_line_is_placed_in_the_file_it_came_from(qwen3):
    from prefixlint.render.templates import resolve_chat_template

    jinja = read_chat_template(str(real_file("template/llama3.2")))
    assert jinja.file_location(10) == (str(real_file("template/llama3.2")), 10)
    config = resolve_chat_template(qwen3)  # the model directory's tokenizer_config.json
    path, line = config.file_location(46)
    lines = open(path, encoding="utf-8").read().splitlines()
    assert lines[line - 1].lstrip().startswith('"chat_template"')
