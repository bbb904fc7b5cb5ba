"""SGLang's memory (LRU leaf eviction), API caches' time to live, the overlap scheduler's stop
token, and logprobs requests that turn reuse off: worked out by hand on token ids."""

from __future__ import annotations

import json

import tiktoken
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.engines.profiles import get_profile
from prefixlint.engines.radix import RadixLRU
from prefixlint.replay.ttl import parse_duration

SGLANG = get_profile("sglang")


def test_the_least_recently_used_leaf_is_evicted_whole():
    cache = RadixLRU(SGLANG, capacity_tokens=16)  # prompts of 10 tokens or more refused
    a, b = [1, 2, 3, 4, 5, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15, 16]
    assert cache.serve(a, a, now=1).cached_tokens == 0
    assert cache.serve(b, b, now=2).cached_tokens == 0
    assert cache.size == 16
    # Two more tokens: the oldest leaf (a, eight tokens) goes, whole.
    cache.serve([20, 21], [20, 21], now=3)
    assert (cache.size, cache.evicted_blocks) == (10, 8)
    # a again: gone. Its eight tokens find 6 free, and SGLang 0.5.23 evicts the shortfall
    # (`evict_to_free_tokens`, mem_cache/allocator/base.py:166-168): evict(2) takes b (8 tokens,
    # the oldest leaf) and stops; c stays.
    assert cache.serve(a, a, now=4).cached_tokens == 0
    assert (cache.size, cache.evicted_blocks) == (10, 16)
    assert cache.serve([20, 21], [20, 21], now=5).cached_tokens == 1


def test_a_hit_refreshes_its_path_so_the_other_leaf_goes():
    cache = RadixLRU(SGLANG, capacity_tokens=17)
    a, b = [1, 2, 3, 4, 5, 6, 7, 8], [9, 10, 11, 12, 13, 14, 15, 16]
    cache.serve(a, a, now=1)
    cache.serve(b, b, now=2)
    assert cache.serve(a, a, now=3).cached_tokens == 7  # a touched: now the newest
    cache.serve([20, 21], [20, 21], now=4)  # 1 slot short: b, the oldest leaf, goes
    assert cache.serve(a, a, now=5).cached_tokens == 7 and cache.serve(b, b, now=6).cached_tokens == 0


def test_a_request_larger_than_the_pool_is_not_cached():
    cache = RadixLRU(SGLANG, capacity_tokens=4)
    outcome = cache.serve([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], now=1)
    assert outcome.over_capacity and cache.size == 0


def test_time_to_live_refreshed_on_each_hit():
    cache = RadixLRU(SGLANG, ttl=300, refresh=True)
    p = list(range(1, 21))
    cache.serve(p, p, now=0)
    assert cache.serve(p + [99], p + [99], now=200).cached_tokens == 20   # 200 s: alive, refreshed
    assert cache.serve(p + [98], p + [98], now=450).cached_tokens == 20   # 250 s since the hit
    late = cache.serve(p + [97], p + [97], now=800)                       # 350 s: expired
    assert late.cached_tokens == 0 and late.miss.kind == "expired"


def test_time_to_live_from_creation():
    cache = RadixLRU(SGLANG, ttl=300, refresh=False)
    p = list(range(1, 21))
    cache.serve(p, p, now=0)
    assert cache.serve(p + [99], p + [99], now=200).cached_tokens == 20
    assert cache.serve(p + [98], p + [98], now=450).miss.kind == "expired"  # 450 s after creation


def test_durations():
    assert [parse_duration(t) for t in ("300s", "5m", "1h", "90", "1.5h", "2d")] == [300, 300, 3600, 90, 5400, 172800]
    assert parse_duration("5 minutes") is None and parse_duration("-1s") is None


def run(tmp_path, lines, *args):
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(map(json.dumps, lines)) + "\n")
    return CliRunner().invoke(cli, ["replay", str(log), "--format", "json", *args])


def cached(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["cached_tokens"]


def test_a_reply_cut_by_length_gets_no_extra_token_under_the_overlap_scheduler(tmp_path):
    reply = tiktoken.get_encoding("o200k_base").encode(" and then some more words")
    prompt = list(range(100, 140))
    # Cut by length: the last text token was the last sampled. The next turn extends all of it.
    first = {"request": {"prompt": prompt}, "response": {"choices": [{"text": " and then some more words",
                                                                        "finish_reason": "length"}]}}
    second = {"prompt": prompt + reply + [7, 8]}
    lines = [first, second]
    # SGLang 0.5.23 caches no extra token after `length`, overlap or not: the last sampled
    # token's KV was never computed, one token less than the shared 40 + len(reply).
    assert cached(run(tmp_path, lines, "--engine", "sglang")) == 40 + len(reply) - 1
    assert cached(run(tmp_path, lines, "--engine", "sglang", "--disable-overlap-schedule")) == 40 + len(reply) - 1
    assert cached(run(tmp_path, lines)) == (40 + len(reply) - 1) // 16 * 16  # vLLM: whole blocks


def test_the_overlap_scheduler_caches_the_stop_token():
    from prefixlint.engines.request import Request
    from prefixlint.engines.simulators import make_simulator

    prompt, generated, stop = list(range(100, 140)), [5, 6, 7], 999
    first = Request(1, "", prompt, generated, stop, finish_reason="stop")
    again = Request(2, "", [*prompt, *generated, stop, 1, 2])
    for overlap, expected in ((None, 44), (False, 43)):  # 40 + 3 generated, + the stop token's KV
        sim = make_simulator(SGLANG, overlap=overlap)
        sim.serve(first)
        assert sim.serve(again).cached_tokens == expected
    cut = Request(1, "", prompt, generated, stop, finish_reason="length")
    sim = make_simulator(SGLANG)
    sim.serve(cut)
    assert sim.serve(again).cached_tokens == 43


def test_a_completion_that_stopped_ends_with_the_tokenizers_stop_token(tmp_path):
    from prefixlint.replay.prepare import UNKNOWN_STOP, ChatSettings, prepare
    from prefixlint.replay.requestlog import LoggedRequest
    from prefixlint.tokenize import load_tokenizer

    entry = LoggedRequest(1, {"prompt": [1, 2, 3]}, None, response_text=" done", finish_reason="stop")
    request = prepare(entry, load_tokenizer("o200k_base"), ChatSettings())
    # o200k_base names no EOS: an id no text encodes to stands for it (it takes a slot).
    assert (request.generated, request.last_sampled) == ([4167], UNKNOWN_STOP)  # " done" in o200k_base


def test_logprobs_requests_turn_reuse_off(tmp_path):
    prompt = list(range(100, 140))
    again = prompt + [1]
    # SGLang: echo + logprobs >= 1 sets logprob_start_len = 0: nothing reused.
    lines = [{"prompt": prompt}, {"prompt": again, "echo": True, "logprobs": 1}, {"prompt": again, "logprobs": 1}]
    assert cached(run(tmp_path, lines, "--engine", "sglang")) == 40
    # vLLM: prompt_logprobs skips the lookup (the blocks are still cached): 32 for the last one only.
    lines = [{"prompt": prompt}, {"prompt": again, "prompt_logprobs": 1}, {"prompt": again}]
    assert cached(run(tmp_path, lines)) == 32


def test_ttl_from_the_logs_timestamps(tmp_path):
    prompt = list(range(100, 1300))  # 1,200 tokens: above Anthropic's 1,024 minimum
    lines = [{"timestamp": 0, "request": {"prompt": prompt}},
             {"timestamp": 200, "request": {"prompt": prompt + [1]}},
             {"timestamp": 700, "request": {"prompt": prompt + [2]}}]
    data = json.loads(run(tmp_path, lines, "--engine", "anthropic").stdout)
    assert data["cached_tokens"] == 1200 and data["lost_tokens"]["expired"] == 1201  # 500 s > 5 min
    assert cached(run(tmp_path, lines, "--engine", "anthropic", "--ttl", "1h")) == 2400
    assert cached(run(tmp_path, lines, "--engine", "anthropic", "--ttl", "0")) == 2400


def test_ttl_usage_errors(tmp_path):
    for args, message in [(["--engine", "anthropic", "--ttl", "soon"], "is not a duration"),
                          (["--ttl", "5m"], "vLLM keeps blocks until they are evicted")]:
        result = run(tmp_path, [{"prompt": "hi"}], *args)
        assert result.exit_code == 2 and message in result.output, result.output
