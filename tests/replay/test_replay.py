"""`prefixlint replay` on small logs whose hit rates are worked out here, with o200k_base.

Expected numbers come from tiktoken directly and the vLLM rule (whole 16-token blocks, at
most prompt_len - 1 tokens, longest prefix shared with an earlier prompt + its generated
tokens), never from prefixlint's own output. Chat prompts use the ChatML-style markup that
prefixlint renders for o200k_base, written out here by hand and tokenized piece by piece.
"""

from __future__ import annotations

import json
import re

import pytest
import tiktoken
from click.testing import CliRunner

from prefixlint.cli import cli
from tests.oracles import naive_shared_prefix as shared

BLOCK = 16
SYSTEM = ("You are the support assistant of ACME Rockets. Answer in two sentences at most, be"
          " friendly, cite the order number when there is one, and never promise refunds.")


@pytest.fixture(scope="module")
def enc():
    return tiktoken.get_encoding("o200k_base")


MARKERS = re.compile(r"(<\|im_start\|>|<\|im_sep\|>|<\|im_end\|>)")


def chat_ids(enc, text):
    """The ChatML markup tokenized as prefixlint renders it for o200k_base: each marker and
    each piece of text between markers on its own, so that nothing merges across a marker."""
    return [t for piece in MARKERS.split(text) if piece for t in ids(enc, piece)]


def chatml(messages, generation_prompt=True):
    text = "".join(f"<|im_start|>{m['role']}<|im_sep|>{m['content']}<|im_end|>" for m in messages)
    return text + ("<|im_start|>assistant<|im_sep|>" if generation_prompt else "")


def ids(enc, text):
    return enc.encode(text, disallowed_special=())


def vllm_hit(prompt, earlier):
    best = max((shared(prompt, seq) for seq in earlier), default=0)
    return min(best // BLOCK, (len(prompt) - 1) // BLOCK) * BLOCK


def replay(tmp_path, lines, *args, raw=False):
    log = tmp_path / "log.jsonl"
    if raw:
        log.write_bytes(lines)
    else:
        log.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    result = CliRunner().invoke(cli, ["replay", str(log), "--format", "json", *args])
    return result, log


def data_of(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_cold_start(tmp_path, enc):
    prompt = "Write a haiku about the sea."
    data = data_of(replay(tmp_path, [{"prompt": prompt}])[0])
    assert (data["requests"], data["prompt_tokens"], data["cached_tokens"], data["hit_rate"]) == (
        1, len(ids(enc, prompt)), 0, 0.0)


def test_shared_system_prompt(tmp_path, enc):
    questions = ["Where is my order 1234?", "Can I change the delivery address?", "Do you ship to Mars?"]
    conversations = [[{"role": "system", "content": SYSTEM}, {"role": "user", "content": q}] for q in questions]
    prompts = [chat_ids(enc, chatml(c)) for c in conversations]
    expected = [vllm_hit(p, prompts[:i]) for i, p in enumerate(prompts)]
    assert expected[0] == 0 and expected[1] >= 32 and expected[2] >= 32  # the system prompt is reused
    data = data_of(replay(tmp_path, [{"messages": c} for c in conversations])[0])
    assert data["prompt_tokens"] == sum(map(len, prompts))
    assert data["cached_tokens"] == sum(expected)
    assert data["hit_rate"] == round(sum(expected) / sum(map(len, prompts)), 6)


def test_a_salt_isolates(tmp_path, enc):
    prompt = SYSTEM + " Question: where is my order?"
    n = len(ids(enc, prompt))
    lines = [{"prompt": prompt, "cache_salt": "tenant-a"}, {"prompt": prompt, "cache_salt": "tenant-b"},
             {"prompt": prompt}, {"prompt": prompt, "cache_salt": "tenant-a"}]
    data = data_of(replay(tmp_path, lines)[0])
    # Only the second tenant-a request finds its own blocks: (n - 1) // 16 of them.
    assert data["cached_tokens"] == (n - 1) // BLOCK * BLOCK


def test_eviction_under_a_tiny_capacity(tmp_path, enc):
    a = "The quick brown fox jumps over the lazy dog, then naps under the old oak tree."
    b = "Seven silver spoons sat silently on the shelf, waiting for somebody to polish them."
    assert 16 < len(ids(enc, a)) <= 32 and 16 < len(ids(enc, b)) <= 32  # two blocks each
    lines = [{"prompt": a}, {"prompt": b}, {"prompt": a}]
    # Two blocks of room: B takes both of A's blocks, and A comes back to nothing.
    data = data_of(replay(tmp_path, lines, "--cache-tokens", "32")[0])
    assert (data["cached_tokens"], data["capacity_tokens"]) == (0, 32)
    assert data["lost_requests"]["evicted"] == 1
    # Three blocks: A's partial block went to the head of the free queue when A finished,
    # so B takes it and the spare block; A's first (full, cached) block survives.
    data = data_of(replay(tmp_path, lines, "--cache-tokens", "48")[0])
    assert data["cached_tokens"] == 16 and data["evicted_blocks"] == 0


def test_a_conversation_reuses_its_own_reply(tmp_path, enc):
    first = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "My order 1234 has not arrived."}]
    reply = ("I am sorry to hear that order 1234 has not arrived yet. It left our warehouse on Monday and"
             " the carrier expects to deliver it by Thursday; I will send you the tracking link now.")
    second = first + [{"role": "assistant", "content": reply}, {"role": "user", "content": "Thanks! And the link?"}]
    lines = [
        {"timestamp": "2025-03-01T10:00:00Z", "request": {"messages": first},
         "response": {"choices": [{"message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}]}},
        {"timestamp": "2025-03-01T10:01:00Z", "request": {"messages": second}},
    ]
    prompt1, prompt2 = chat_ids(enc, chatml(first)), chat_ids(enc, chatml(second))
    generated = ids(enc, reply)  # the reply's tokens; the stop token after them is never computed
    expected = vllm_hit(prompt2, [prompt1 + generated])
    assert expected > len(prompt1) // BLOCK * BLOCK + BLOCK  # blocks of the reply itself are reused
    data = data_of(replay(tmp_path, lines)[0])
    assert data["generated_tokens"] == len(generated)
    assert data["cached_tokens"] == expected
    # Without the response in the log, only the first prompt's blocks are there to reuse.
    data = data_of(replay(tmp_path, [{"messages": first}, {"messages": second}])[0])
    assert data["cached_tokens"] == vllm_hit(prompt2, [prompt1])


def test_a_response_cut_by_length_loses_its_last_token(tmp_path, enc):
    prompt, reply = "Count slowly:", " one two three four five six seven eight nine ten eleven twelve thirteen"
    line = {"request": {"prompt": prompt}, "response": {"choices": [{"text": reply, "finish_reason": "length"}]}}
    data = data_of(replay(tmp_path, [line])[0])
    assert data["generated_tokens"] == len(ids(enc, reply)) - 1


def test_the_costliest_place_is_the_timestamp(tmp_path, enc):
    stamps = ["2025-03-01 10:00:00", "2025-03-01 10:00:07", "2025-03-01 10:00:13"]
    texts = [f"Request time: {s}. {SYSTEM} Question: where is my order?" for s in stamps]
    prompts = [ids(enc, t) for t in texts]
    data = data_of(replay(tmp_path, [{"prompt": t, "metadata": {"template": "support"}} for t in texts])[0])
    top = data["places"][0]
    # Both later requests diverge inside the seconds, right after the shared prefix.
    position = shared(prompts[1], prompts[0])
    assert position == shared(prompts[2], prompts[1]) and position < BLOCK * 2
    assert (top["position"], top["requests"]) == (position, 2)
    assert top["tokens_lost"] == sum(len(p) - vllm_hit(p, prompts[:i]) for i, p in enumerate(prompts) if i)
    assert top["this_side"].startswith(enc.decode(prompts[1][position:position + 1]))
    assert top["cached_side"].startswith(enc.decode(prompts[0][position:position + 1]))
    assert data["groups"] == [{"group": "support", "requests": 3, "prompt_tokens": sum(map(len, prompts)),
                               "cached_tokens": data["cached_tokens"], "hit_rate": data["hit_rate"]}]


def test_other_engines_round_an_unlimited_radix_cache(tmp_path, enc):
    a, b = SYSTEM + " Where is my order?", SYSTEM + " Do you ship to Mars?"
    pa, pb = ids(enc, a), ids(enc, b)
    data = data_of(replay(tmp_path, [{"prompt": a}, {"prompt": b}], "--engine", "sglang")[0])
    assert data["cached_tokens"] == min(shared(pa, pb), len(pb) - 1)  # token granularity


def test_memory_and_model_config(tmp_path, enc):
    config = tmp_path / "config.json"  # Llama 3.1 8B: 32 layers, 8 KV heads of 128, bf16: 128 KiB/token
    config.write_text(json.dumps({"num_hidden_layers": 32, "num_attention_heads": 32,
                                  "num_key_value_heads": 8, "hidden_size": 4096, "torch_dtype": "bfloat16"}))
    prompt = SYSTEM
    result, _ = replay(tmp_path, [{"prompt": prompt}, {"prompt": prompt}],
                       "--memory", "64MiB", "--model-config", str(config))
    data = data_of(result)
    # 64 MiB / (16 tokens x 128 KiB) = 32 blocks, one of them vLLM's null block.
    assert data["capacity_tokens"] == 31 * BLOCK
    cached = (len(ids(enc, prompt)) - 1) // BLOCK * BLOCK
    assert data["cached_tokens"] == cached
    assert data["kv"] == {"bytes_per_token": 131072, "cached_bytes": cached * 131072, "prefill_tokens_saved": cached}


def test_bad_lines_are_counted_with_their_line_numbers(tmp_path):
    good = json.dumps({"prompt": "hello there"}).encode()
    lines = [
        good,
        b"{not json",
        b"[1, 2]",
        json.dumps({"model": "x"}).encode(),
        json.dumps({"messages": [{"role": "wizard", "content": "hi"}]}).encode(),
        json.dumps({"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {}}]}]}).encode(),
        b"",
        b"\xff\xfe bad bytes",
        good,
        json.dumps({"prompt": [1, 2, -3]}).encode(),
        json.dumps({"prompt": [101, 102, 103]}).encode(),
    ]
    result, log = replay(tmp_path, b"\n".join(lines) + b"\n", raw=True)
    data = data_of(result)
    assert data["requests"] == 3  # two prompts and one of token ids
    assert [b["line"] for b in data["bad_lines"]] == [2, 3, 4, 5, 6, 8, 10]
    messages = [b["message"] for b in data["bad_lines"]]
    assert messages[0].startswith("not JSON") and "no `messages` or `prompt`" in messages[2]
    assert "unknown role 'wizard'" in messages[3] and "'image_url'" in messages[4]
    assert "UTF-8" in messages[5] and "not token ids" in messages[6]
    assert f"warning: {log}:2: not JSON" in result.stderr
    strict = CliRunner().invoke(cli, ["replay", str(log), "--strict"])
    assert strict.exit_code == 2 and f"error: {log}:2: not JSON" in strict.stderr


def test_text_report_and_usage_errors(tmp_path):
    result, log = replay(tmp_path, [{"prompt": SYSTEM}, {"prompt": SYSTEM + " Hi"}])
    text = CliRunner().invoke(cli, ["replay", str(log)])
    assert text.exit_code == 0 and "hit rate" in text.stdout and "requests" in text.stdout
    assert CliRunner().invoke(cli, ["replay", str(log), "--memory", "1GiB"]).exit_code == 2
    assert CliRunner().invoke(cli, ["replay", str(log), "--cache-tokens", "64", "--engine", "trtllm"]).exit_code == 2
    missing = CliRunner().invoke(cli, ["replay", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and "no such file" in missing.stderr


def test_qwen3_drops_the_reasoning_it_generated(tmp_path):
    """A real Hugging Face tokenizer and chat template: Qwen3 generated `<think>...</think>`
    before its answer, but renders history without it, so the next turn stops matching at
    the start of the reply."""
    from tokenizers import Tokenizer

    from prefixlint.render.chat import render_chat
    from prefixlint.tokenize import load_tokenizer
    from tests.realfiles import model_dir

    directory = model_dir(tmp_path, "qwen3/tokenizer.json", "qwen3/tokenizer_config.json")
    raw = Tokenizer.from_file(str(directory / "tokenizer.json"))
    first = [{"role": "user", "content": "What is the capital of Australia? Think about it, then answer in one sentence."}]
    reasoning, content = "The user asks about Australia. Sydney is bigger, but the capital is Canberra.", \
        "The capital of Australia is Canberra, not Sydney as many people think."
    second = first + [{"role": "assistant", "content": content}, {"role": "user", "content": "And of New Zealand?"}]
    lines = [
        {"request": {"messages": first}, "response": {"choices": [{"finish_reason": "stop", "message": {
            "role": "assistant", "content": content, "reasoning_content": reasoning}}]}},
        {"request": {"messages": second}},
    ]
    tok = load_tokenizer(str(directory))
    prompt1 = raw.encode(render_chat(first, tokenizer=tok).text, add_special_tokens=False).ids
    prompt2 = raw.encode(render_chat(second, tokenizer=tok).text, add_special_tokens=False).ids
    generated = raw.encode(f"<think>\n{reasoning}\n</think>\n\n{content}", add_special_tokens=False).ids
    data = data_of(replay(tmp_path, lines, "--tokenizer", str(directory))[0])
    assert data["generated_tokens"] == len(generated)
    assert data["cached_tokens"] == vllm_hit(prompt2, [prompt1 + generated])
    divergence = shared(prompt2, prompt1 + generated)
    assert divergence <= len(prompt1) + 2  # nothing of the reply itself is reused
    top = data["places"][0]
    assert top["position"] == divergence and top["cached_side"].startswith("<think>")


def test_standard_input_and_an_empty_log(tmp_path):
    line = json.dumps({"prompt": SYSTEM}) + "\n"
    result = CliRunner().invoke(cli, ["replay", "-", "--format", "json"], input=line * 2)
    data = data_of(result)
    assert (data["log"], data["requests"]) == ("-", 2) and data["cached_tokens"] > 0
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n")
    result = CliRunner().invoke(cli, ["replay", str(empty)])
    assert result.exit_code == 0 and "No request was replayed." in result.stdout


def test_timestamps_are_the_template_clock(tmp_path):
    """Llama 3.2's template writes `Today Date` (strftime_now): the same chat a day later
    misses the cache from that date on, the same day it does not. Lines without a timestamp
    use --now."""
    from datetime import datetime

    from tokenizers import Tokenizer

    from prefixlint.render.chat import render_chat
    from prefixlint.tokenize import load_tokenizer
    from tests.realfiles import model_dir

    directory = model_dir(tmp_path, "llama3/tokenizer.json", chat_template="template/llama3.2")
    raw = Tokenizer.from_file(str(directory / "tokenizer.json"))
    tok = load_tokenizer(str(directory))
    chat = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "Where is my order 1234?"}]

    def prompt(day):
        text = render_chat(chat, tokenizer=tok, now=datetime(2025, 3, day, 9, 0))
        return raw.encode(text.text, add_special_tokens=False).ids

    first, same_day, next_day = prompt(1), prompt(1), prompt(2)
    assert first == same_day and shared(first, next_day) < 40  # the date sits near the top
    lines = [{"timestamp": "2025-03-01T09:00:00Z", "request": {"messages": chat}},
             {"timestamp": "2025-03-01T18:00:00Z", "request": {"messages": chat}},
             {"timestamp": "2025-03-02T09:00:00Z", "request": {"messages": chat}},
             {"messages": chat}]
    data = data_of(replay(tmp_path, lines, "--tokenizer", str(directory), "--now", "2025-03-02T12:00:00")[0])
    expected = [0, vllm_hit(same_day, [first]), vllm_hit(next_day, [first]), vllm_hit(next_day, [first, next_day])]
    assert data["cached_tokens"] == sum(expected)
    assert expected[2] < expected[1] and expected[3] == expected[1]
    bad_clock = CliRunner().invoke(cli, ["replay", str(tmp_path / "log.jsonl"), "--now", "yesterday"])
    assert bad_clock.exit_code == 2 and "--now" in bad_clock.output
