"""`prefixlint replay` on hashed-block traces (Mooncake / AIPerf format), worked out by hand.

tests/fixtures/replay/trace_sample.jsonl, with 4-token blocks (`--trace-block-size 4`):

    1. ids 1 2 3, 10 tokens (+3 generated)   cold: 0
    2. ids 1 2 4, 12 tokens (+2)             blocks 1, 2 cached: 8
    3. ids 1 2 3,  9 tokens (+1)             all three cached: min(3 x 4, 9) = 9
    4. ids 5 2,    6 tokens                  0 (a chain of its own: id 2 after 5 is not id 2 after 1)
    5. ids 1 2,    8 tokens, salted          0 (a salt of its own)
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from prefixlint.cli import cli

SAMPLE = Path(__file__).parents[1] / "fixtures" / "replay" / "trace_sample.jsonl"


def run(*args, log=SAMPLE):
    return CliRunner().invoke(cli, ["replay", str(log), "--trace-block-size", "4", *args])


def data_of(result):
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_unlimited_trace_worked_by_hand():
    data = data_of(run("--format", "json"))
    assert (data["requests"], data["prompt_tokens"], data["cached_tokens"]) == (5, 45, 17)
    assert data["tokenizer"] is None and data["engine"] == {"name": "vllm", "block_size": 4}
    assert data["generated_tokens"] == 6
    # Request 2 diverges after two blocks (8 tokens) and loses 4; 1, 4 and 5 start cold.
    assert data["lost_tokens"] == {"diverged": 4, "evicted": 0, "expired": 0, "new": 24}
    assert [(p["position"], p["requests"], p["tokens_lost"], p["first_line"]) for p in data["places"]] == [(8, 1, 4, 2)]


def test_four_blocks_of_room_traced_by_hand():
    # Free queue head first. 1 takes all four blocks (ids 1 2 3 and a generated one) and frees
    # them tail first: [gen, 3, 2, 1]. 2 hits 1 2 and needs two more (4 + its generated
    # tokens): the empty block and id 3's (evicted). 3 finds 1 2, loses id 3 (8 tokens) and
    # caches it again in the empty block. 4 and 5 each evict two blocks: 5 evictions in all.
    data = data_of(run("--format", "json", "--cache-tokens", "16"))
    assert (data["cached_tokens"], data["capacity_tokens"], data["evicted_blocks"]) == (16, 16, 5)
    assert data["lost_requests"]["evicted"] == 1 and data["lost_tokens"]["evicted"] == 1


def test_text_report_of_a_trace():
    result = run()
    assert result.exit_code == 0, result.output
    assert "tokenizer none · engine vllm block pool (4-token blocks of the trace) · cache unlimited" in result.output
    assert "hit rate                   37.8%" in result.output  # 17 / 45
    assert "1. token 8: 1 request, 4 tokens computed again (first on line 2)" in result.output


def test_a_request_line_in_a_trace_is_fatal(tmp_path):
    log = tmp_path / "mixed.jsonl"
    log.write_text(SAMPLE.read_text() + json.dumps({"prompt": "hello"}) + "\n")
    result = run(log=log)
    assert result.exit_code == 2
    assert f"{log}:6: a request line among hashed-block trace lines" in result.output
    assert "Traceback" not in result.output


def test_bad_trace_lines_are_counted(tmp_path):
    log = tmp_path / "bad.jsonl"
    lines = [{"hash_ids": [1], "output_length": 3}, {"input_length": 4, "hash_ids": [1, "x"]},
             {"input_length": 4, "hash_ids": [1, 2]}, {"input_length": 8, "hash_ids": [1, 2]}]
    log.write_text("\n".join(map(json.dumps, lines)) + "\n")
    data = data_of(run("--format", "json", log=log))
    assert data["requests"] == 1
    assert data["bad_lines"] == [
        {"line": 1, "message": "`input_length` must be a non-negative integer (tokens), not missing"},
        {"line": 2, "message": "`hash_ids` must be a list of integers"},
        {"line": 3, "message": "2 hash_ids for 4 input tokens: more than one per 4-token block"
                               " (is --trace-block-size right?)"},
    ]
    strict = run("--strict", log=log)
    assert strict.exit_code == 2 and f"{log}:1: `input_length` must be" in strict.output


def test_block_size_must_be_positive():
    for size in ("0", "-4"):
        result = CliRunner().invoke(cli, ["replay", str(SAMPLE), "--trace-block-size", size])
        assert result.exit_code == 2 and "--trace-block-size" in result.output
