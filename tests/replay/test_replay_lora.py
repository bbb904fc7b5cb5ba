"""`replay --lora-modules`: each adapter a cache of its own, keyed on every block as vLLM does."""

from __future__ import annotations

import json

import pytest
import tiktoken
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.replay.lora import LoraError, parse_lora_modules

PROMPT = ("You are the support assistant of ACME Rockets. Answer in two sentences at most, be friendly,"
          " cite the order number when there is one, and never promise refunds. Where is order 1234?")


def run(tmp_path, lines, *args):
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(map(json.dumps, lines)) + "\n")
    result = CliRunner().invoke(cli, ["replay", str(log), "--format", "json", *args])
    return result


def test_each_adapter_has_a_cache_of_its_own(tmp_path):
    n = len(tiktoken.get_encoding("o200k_base").encode(PROMPT))  # o200k_base has no BOS to add
    hit = (n - 1) // 16 * 16
    lines = [{"prompt": PROMPT, "model": "base"}, {"prompt": PROMPT, "model": "sql-lora"},
             {"prompt": PROMPT, "model": "sql-lora"}, {"prompt": PROMPT, "model": "chat-lora"},
             {"prompt": PROMPT, "model": "not-an-adapter"}]
    result = run(tmp_path, lines, "--lora-modules", "sql-lora=/adapters/sql,chat-lora")
    assert result.exit_code == 0, result.output
    # base: cold; sql-lora: cold, then its own; chat-lora: cold; an unknown model is the base model's.
    data = json.loads(result.stdout)
    assert data["cached_tokens"] == 2 * hit
    # An adapter's first request is a cold start of its own cache, not a block evicted from the base's.
    assert data["lost_requests"] == {"diverged": 0, "evicted": 0, "expired": 0, "new": 3}
    # Without --lora-modules every request shares the base model's cache: four hits.
    assert json.loads(run(tmp_path, lines).stdout)["cached_tokens"] == 4 * hit


def test_lora_modules_parsing():
    assert parse_lora_modules(("a=/p/a,b", "c")) == {"a": "/p/a", "b": None, "c": None}
    with pytest.raises(LoraError, match="needs a name"):
        parse_lora_modules(("=/path",))


def test_an_entry_without_a_name_is_a_usage_error(tmp_path):
    result = run(tmp_path, [{"prompt": "hi"}], "--lora-modules", "ok,=/adapters/x")
    assert result.exit_code == 2 and "'=/adapters/x': an adapter needs a name" in result.output
