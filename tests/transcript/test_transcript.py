"""`prefixlint transcript` on real chat templates and tokenizers: per-turn numbers computed
independently (the expected prompts written out by hand and tokenized directly), causes, errors."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.engines.profiles import get_profile
from prefixlint.match.prefix import shared_prefix
from prefixlint.tokenize import load_tokenizer
from tests.oracles import vllm_reusable as reusable
from tests.realfiles import model_dir, real_file

VLLM = get_profile("vllm")
NOW = "2025-03-04T09:00:00"


@pytest.fixture(scope="module")
def qwen3_dir(tmp_path_factory):
    return str(model_dir(tmp_path_factory.mktemp("qwen3"), "qwen3/tokenizer.json", "qwen3/tokenizer_config.json"))


@pytest.fixture(scope="module")
def qwen3(qwen3_dir):
    return load_tokenizer(qwen3_dir)


def run(tmp_path, transcript: str, *args: str, name: str = "chat.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(transcript))
    result = CliRunner().invoke(cli, ["transcript", str(path), "--now", NOW, *args])
    return result, str(path)


def run_json(tmp_path, transcript: str, *args: str) -> dict:
    result, _ = run(tmp_path, transcript, *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


QWEN3_CHAT = """\
    messages:
      - {role: system, content: "You are terse."}
      - {role: user, content: "Capital of France?"}
      - role: assistant
        reasoning_content: France's capital is Paris.
        content: Paris.
      - {role: user, content: "And Spain?"}
    """


def test_qwen3_drops_earlier_thinking_and_the_turn_says_so(tmp_path, qwen3, qwen3_dir):
    report = run_json(tmp_path, QWEN3_CHAT, "--tokenizer", qwen3_dir)
    t1 = ("<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nCapital of France?<|im_end|>\n"
          "<|im_start|>assistant\n")
    t2 = t1 + "Paris.<|im_end|>\n<|im_start|>user\nAnd Spain?<|im_end|>\n<|im_start|>assistant\n"
    cached = qwen3.encode(t1) + qwen3.encode("<think>\nFrance's capital is Paris.\n</think>\n\nParis.") + [
        qwen3.token_id("<|im_end|>")]
    p1, p2 = qwen3.encode(t1), qwen3.encode(t2)
    shared = shared_prefix(cached, p2)
    assert shared == len(p1)  # everything up to the reply: `<think>` is where history differs
    first, second = report["turns"]
    assert (first["prompt_tokens"], first["shared_prefix_tokens"], first["divergence"]) == (len(p1), 0, None)
    assert first["reply_tokens"] == len(cached) - len(p1)
    assert (second["prompt_tokens"], second["shared_prefix_tokens"], second["reusable_tokens"]) == (
        len(p2), shared, reusable(shared, len(p2)))
    assert second["previous_cached_tokens"] == len(cached)
    assert second["divergence"] == {
        "message_index": 2, "char_offset": len(t1), "token_index": len(p1),
        "token": "Paris", "cached_token": "<think>",
    }
    assert second["cause_kind"] == "template-rewrites-history"
    assert "drops the reasoning of earlier replies" in second["cause"]
    assert second["template_line"] == 46
    assert report["chat_format"] == "jinja" and report["tokenizer"] == qwen3_dir


def test_qwen3_with_prompts_only_cached_reuses_all_of_turn_one(tmp_path, qwen3, qwen3_dir):
    report = run_json(tmp_path, QWEN3_CHAT, "--tokenizer", qwen3_dir, "--no-generated")
    second = report["turns"][1]
    t1 = ("<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nCapital of France?<|im_end|>\n"
          "<|im_start|>assistant\n")
    assert second["shared_prefix_tokens"] == len(qwen3.encode(t1)) == second["previous_cached_tokens"]
    assert (second["divergence"], second["cause"]) == (None, None)
    assert report["generated_tokens_cached"] is False


QWEN25_CHAT = """\
    messages:
      - {role: system, content: "You answer in one word."}
      - {role: user, content: "Capital of France?"}
      - {role: assistant, content: "Paris."}
      - {role: user, content: "Of Spain?"}
      - {role: assistant, content: "Madrid."}
      - {role: user, content: "Of Italy?"}
    """


def test_qwen25_template_keeps_history_so_every_turn_reuses_all_that_was_cached(tmp_path, qwen3):
    report = run_json(tmp_path, QWEN25_CHAT, "--tokenizer", str(real_file("qwen3/tokenizer.json")),
                      "--chat-template", str(real_file("template/qwen2.5")))
    end = [qwen3.token_id("<|im_end|>")]
    t1 = ("<|im_start|>system\nYou answer in one word.<|im_end|>\n<|im_start|>user\nCapital of France?<|im_end|>\n"
          "<|im_start|>assistant\n")
    t2 = t1 + "Paris.<|im_end|>\n<|im_start|>user\nOf Spain?<|im_end|>\n<|im_start|>assistant\n"
    t3 = t2 + "Madrid.<|im_end|>\n<|im_start|>user\nOf Italy?<|im_end|>\n<|im_start|>assistant\n"
    prompts = [qwen3.encode(t) for t in (t1, t2, t3)]
    cached = [prompts[0] + qwen3.encode("Paris.") + end, prompts[1] + qwen3.encode("Madrid.") + end]
    rows = [(t["prompt_tokens"], t["shared_prefix_tokens"], t["reusable_tokens"], t["cause"]) for t in report["turns"]]
    expected = [(len(prompts[0]), 0, 0, None)]
    for before, prompt in zip(cached, prompts[1:]):
        shared = shared_prefix(before, prompt)
        assert shared == len(before)  # the whole previous request and its reply
        expected.append((len(prompt), shared, reusable(shared, len(prompt)), None))
    assert rows == expected
    assert report["totals"]["lost_tokens"] == 0


def test_turn_two_contains_turn_one_but_one_token_is_lost_at_the_boundary(tmp_path, qwen3):
    """The prompt ends with `assistant\\n`; the reply starts with a newline, and in turn two the
    two newlines are one token (`\\n\\n`): the last cached token is lost, and only it."""
    chat = """\
        messages:
          - {role: user, content: "Show me."}
          - {role: assistant, content: "\\nHere it is."}
          - {role: user, content: "Thanks."}
        """
    report = run_json(tmp_path, chat, "--tokenizer", str(real_file("qwen3/tokenizer.json")),
                      "--chat-template", str(real_file("template/qwen2.5")), "--no-generated")
    system = "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
    t1 = system + "<|im_start|>user\nShow me.<|im_end|>\n<|im_start|>assistant\n"
    t2 = t1 + "\nHere it is.<|im_end|>\n<|im_start|>user\nThanks.<|im_end|>\n<|im_start|>assistant\n"
    p1, p2 = qwen3.encode(t1), qwen3.encode(t2)
    assert shared_prefix(p1, p2) == len(p1) - 1
    assert qwen3.token_text(p1[-1]) == "\n" and qwen3.token_text(p2[len(p1) - 1]) == "\n\n"
    second = report["turns"][1]
    assert (second["shared_prefix_tokens"], second["previous_cached_tokens"], second["lost_tokens"]) == (
        len(p1) - 1, len(p1), 1)
    assert second["cause_kind"] == "token-boundary"
    assert second["divergence"]["token_index"] == len(p1) - 1
    assert second["divergence"]["char_offset"] == len(t1) - 1
    assert (second["divergence"]["token"], second["divergence"]["cached_token"]) == ("\n\n", "\n")


def test_llama32_date_changes_at_midnight_and_the_turn_says_so(tmp_path):
    llama = load_tokenizer(str(real_file("llama3/tokenizer.json")))
    chat = """\
        messages:
          - {role: user, content: "Still up?", timestamp: "2025-03-04T23:59:00"}
          - {role: assistant, content: "Yes."}
          - {role: user, content: "Good night.", timestamp: "2025-03-05T00:01:00"}
        """
    report = run_json(tmp_path, chat, "--tokenizer", str(real_file("llama3/tokenizer.json")),
                      "--chat-template", str(real_file("template/llama3.2")))

    def prompt(day: str, history: str) -> str:
        return ("<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nCutting Knowledge Date: December 2023\n"
                f"Today Date: {day}\n\n<|eot_id|>" + history + "<|start_header_id|>assistant<|end_header_id|>\n\n")

    user = "<|start_header_id|>user<|end_header_id|>\n\n"
    t1 = prompt("04 Mar 2025", user + "Still up?<|eot_id|>")
    t2 = prompt("05 Mar 2025", user + "Still up?<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\nYes.<|eot_id|>"
                + user + "Good night.<|eot_id|>")
    cached = llama.encode(t1) + llama.encode("Yes.") + [llama.token_id("<|eot_id|>")]
    p2 = llama.encode(t2)
    shared = shared_prefix(cached, p2)
    second = report["turns"][1]
    assert (second["prompt_tokens"], second["shared_prefix_tokens"], second["reusable_tokens"]) == (
        len(p2), shared, reusable(shared, len(p2)))
    assert second["cause_kind"] == "template-injects-date" and second["template_line"] == 10
    assert second["divergence"]["char_offset"] == t2.index("05 Mar")  # the token `05` differs
    finding = report["template_findings"][0]
    assert (finding["code"], finding["line"]) == ("PFX101", 10)


def test_gpt_oss_through_harmony_drops_the_analysis(tmp_path):
    harmony = load_tokenizer("o200k_harmony")
    chat = """\
        messages:
          - {role: user, content: "Capital of France?"}
          - {role: assistant, reasoning_content: "Easy one.", content: "Paris."}
          - {role: user, content: "And Spain?"}
        """
    report = run_json(tmp_path, chat, "--tokenizer", "gpt-oss-20b")
    system = ("<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n"
              "Knowledge cutoff: 2024-06\nCurrent date: 2025-03-04\n\nReasoning: medium\n\n"
              "# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|>")
    t1 = system + "<|start|>user<|message|>Capital of France?<|end|><|start|>assistant"
    reply = "<|channel|>analysis<|message|>Easy one.<|end|><|start|>assistant<|channel|>final<|message|>Paris.<|return|>"
    t2 = t1 + "<|channel|>final<|message|>Paris.<|end|><|start|>user<|message|>And Spain?<|end|><|start|>assistant"
    cached, p2 = harmony.encode(t1 + reply), harmony.encode(t2)
    shared = shared_prefix(cached, p2)
    assert shared == len(harmony.encode(t1)) + 1  # `<|channel|>`, then `analysis` vs `final`
    second = report["turns"][1]
    assert (report["chat_format"], second["prompt_tokens"], second["shared_prefix_tokens"]) == (
        "harmony", len(p2), shared)
    assert second["cause_kind"] == "template-rewrites-history" and second["divergence"]["message_index"] == 1
    assert "drops the reasoning" in second["cause"]
    assert report["template_findings"][0]["code"] == "PFX101"


def test_text_output_is_a_table_with_causes(tmp_path, qwen3_dir):
    result, path = run(tmp_path, QWEN3_CHAT, "--tokenizer", qwen3_dir)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{path} · tokenizer {qwen3_dir} · engine vllm (16-token blocks)")
    header = next(line for line in lines if line.lstrip().startswith("turn"))
    assert header.split() == ["turn", "prompt", "new", "shared", "reusable", "ratio", "cause"]
    assert any("cold: nothing cached yet" in line for line in lines)
    t1 = ("<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nCapital of France?<|im_end|>\n"
          "<|im_start|>assistant\n")
    assert any("the template rewrote history: it drops the reasoning of earlier replies"
               f" (message 2, char {len(t1)}, template line 46)" in line for line in lines)


def test_o200k_base_says_it_is_an_approximation(tmp_path):
    result, _ = run(tmp_path, QWEN25_CHAT)
    assert result.exit_code == 0, result.output
    assert "note: approximation: OpenAI does not publish the chat markup" in result.stdout


@pytest.mark.parametrize(("body", "line", "message"), [
    ("messages:\n  - {role: user, content: hi}\n  - {role: bot, content: hello}\n", 3,
     "message 1 has an unknown role 'bot'"),
    ("messages:\n  - role: user\n    content: hi\n  - role: assistant\n", 4, "message 1 (assistant) has no `content`"),
    ("messages:\n  - {role: user, content: [hi\n", 3, "not valid YAML"),
    ('messages:\n  - role: assistant\n    tool_calls: [{function: {name: f, arguments: "{oops"}}]\n', 3,
     "tool call 0 arguments are not JSON"),
    ("tools: []\n", 1, "no `messages` in this transcript"),
])
def test_bad_transcripts_name_file_and_line_and_exit_2(tmp_path, body, line, message):
    path = tmp_path / "bad.yaml"
    path.write_text(body)
    result = CliRunner().invoke(cli, ["transcript", str(path), "--tokenizer", "o200k_base"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"prefixlint: error: {path}:{line}")
    assert message in result.stderr
    assert "Traceback" not in result.output + result.stderr


def test_a_template_that_raises_names_the_transcript_line_and_the_template_line(tmp_path):
    chat = """\
        messages:
          - {role: user, content: "Weather?"}
          - role: assistant
            tool_calls: [{id: c1, function: {name: weather, arguments: "{}"}}]
          - {role: tool, tool_call_id: c1, content: 18C}
        """
    template = real_file("template/mistral-small")
    result, path = run(tmp_path, chat, "--tokenizer", str(real_file("qwen3/tokenizer.json")),
                       "--chat-template", str(template))
    assert result.exit_code == 2
    assert result.stderr.startswith(f"prefixlint: error: {path}:5: turn 2 (3 messages): the chat template failed"
                                    " (template line 23): TemplateError: Only user, system and assistant roles are supported!")
    assert f"[template {template}:23]" in result.stderr


def test_help_imports_no_template_library():
    import subprocess
    import sys

    code = ("import sys; from click.testing import CliRunner; from prefixlint.cli import cli;"
            "r = CliRunner().invoke(cli, ['transcript', '--help']); assert r.exit_code == 0, r.output;"
            "print(sorted(m for m in ('transformers', 'openai_harmony', 'jinja2', 'tokenizers', 'tiktoken', 'yaml')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_requests_as_sent_show_the_application_editing_history(tmp_path, qwen3):
    """Two requests as an application sent them: the second rewrote the first user message."""
    sent = """\
        requests:
          - messages:
              - {role: user, content: "Summarize the report, please."}
            response: {role: assistant, content: "It says sales grew."}
          - messages:
              - {role: user, content: "Summarize the report."}
              - {role: assistant, content: "It says sales grew."}
              - {role: user, content: "By how much?"}
        """
    report = run_json(tmp_path, sent, "--tokenizer", str(real_file("qwen3/tokenizer.json")),
                      "--chat-template", str(real_file("template/qwen2.5")))
    system = "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
    t1 = system + "<|im_start|>user\nSummarize the report, please.<|im_end|>\n<|im_start|>assistant\n"
    t2 = (system + "<|im_start|>user\nSummarize the report.<|im_end|>\n<|im_start|>assistant\n"
          "It says sales grew.<|im_end|>\n<|im_start|>user\nBy how much?<|im_end|>\n<|im_start|>assistant\n")
    cached = qwen3.encode(t1) + qwen3.encode("It says sales grew.") + [qwen3.token_id("<|im_end|>")]
    shared = shared_prefix(cached, qwen3.encode(t2))
    second = report["turns"][1]
    assert (second["shared_prefix_tokens"], second["cause_kind"]) == (shared, "application-changed-message")
    assert second["cause_message_index"] == 0
    assert second["cause_char_offset"] == t2.index("Summarize")
    assert "the application changed an earlier message (user)" in second["cause"]


JSON_SCHEMA = {
    "type": "object",
    "required": ["tokenizer", "engine", "turns"],
    "properties": {
        "tokenizer": {"type": "string"},
        "engine": {"type": "object", "required": ["name", "block_size"]},
        "turns": {"type": "array", "items": {
            "type": "object",
            "required": ["turn", "prompt_tokens", "shared_prefix_tokens", "reusable_tokens", "divergence", "cause"],
            "properties": {
                "turn": {"type": "integer", "minimum": 1},
                "prompt_tokens": {"type": "integer"},
                "shared_prefix_tokens": {"type": "integer"},
                "reusable_tokens": {"type": "integer"},
                "divergence": {"oneOf": [{"type": "null"}, {
                    "type": "object", "required": ["message_index", "char_offset", "token_index"],
                    "properties": {"message_index": {"type": ["integer", "null"]},
                                   "char_offset": {"type": "integer"}, "token_index": {"type": "integer"}},
                }]},
                "cause": {"type": ["string", "null"]},
            },
        }},
    },
}


def test_json_keeps_the_contract_of_the_issue(tmp_path, qwen3_dir):
    import jsonschema

    report = run_json(tmp_path, QWEN3_CHAT, "--tokenizer", qwen3_dir, "--engine", "sglang")
    jsonschema.validate(report, JSON_SCHEMA)
    assert report["engine"]["name"] == "sglang"
    assert [t["turn"] for t in report["turns"]] == [1, 2]


def test_a_hub_id_brings_its_chat_template_from_the_cache_offline(tmp_path, monkeypatch, qwen3):
    from tests.realfiles import hub_cache

    cache = hub_cache(tmp_path / "hub", "Qwen/Qwen3-8B", {
        "tokenizer.json": real_file("qwen3/tokenizer.json"),
        "tokenizer_config.json": real_file("qwen3/tokenizer_config.json"),
    })
    import huggingface_hub.constants

    # huggingface_hub reads HF_HUB_CACHE when it is imported (transformers may have done so).
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    report = run_json(tmp_path, QWEN3_CHAT, "--tokenizer", "Qwen/Qwen3-8B", "--offline")
    assert report["chat_template"].endswith("tokenizer_config.json (chat_template)")
    assert report["turns"][1]["cause_kind"] == "template-rewrites-history"
    t1 = ("<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nCapital of France?<|im_end|>\n"
          "<|im_start|>assistant\n")
    assert report["turns"][0]["prompt_tokens"] == len(qwen3.encode(t1))


def billion_laughs(levels: int = 9, width: int = 9) -> str:
    """A transcript whose `content` expands to width**levels strings through nested aliases
    (9**9 = 387,420,489): PyYAML's own `safe_load` would build all of them."""
    lines = ["laughs:", '  l0: &l0 "lol"']
    for level in range(1, levels + 1):
        lines.append(f"  l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * width)}]")
    lines += ["messages:", f"  - {{role: user, content: *l{levels}}}"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", ["bomb.yaml", "bomb.yml"])
def test_an_alias_bomb_transcript_is_refused_without_expanding_it(tmp_path, name):
    path = tmp_path / name
    path.write_text(billion_laughs())
    result = CliRunner().invoke(cli, ["transcript", str(path), "--tokenizer", "o200k_base"])
    assert result.exit_code == 2
    # one diagnostic, at the line of the document's root: the same limit templates get
    (diagnostic,) = [line for line in result.stderr.splitlines() if line.startswith("prefixlint: error:")]
    assert diagnostic.startswith(f"prefixlint: error: {path}:1:")
    assert "expands to more than 100,000 nodes through its aliases" in diagnostic
    assert "Traceback" not in result.output + result.stderr


def test_a_json_transcript_nested_too_deeply_is_one_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text('{"messages": ' + "[" * 100_000 + "]" * 100_000 + "}")
    result = CliRunner().invoke(cli, ["transcript", str(path), "--tokenizer", "o200k_base"])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"prefixlint: error: {path}:1: nested too deeply")
    assert "internal error" not in result.stderr
