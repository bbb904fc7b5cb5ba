"""`replay --ray` on a local Ray started here (once for the module: Ray takes seconds to
start): every figure equals the one-process replay, for JSON Lines and for Parquet."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from tests.replay.test_parallel import mixed_log

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module", autouse=True)
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def replay(*args):
    result = CliRunner().invoke(cli, ["replay", *args, "--format", "json", "--now", "2025-03-01T12:00:00",
                                      "--replicas", "2", "--router", "kv-cost"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_ray_jsonl_equals_one_process(tmp_path):
    log = mixed_log(tmp_path, 400)  # two 256-line batches, a blank line and two bad lines
    alone = replay(log)
    assert replay(log, "--ray") == alone
    assert alone["requests"] == 398 and [b["line"] for b in alone["bad_lines"]] == [301]


def test_ray_parquet_equals_one_process(tmp_path):
    """Completions rows (no chat template to import in the Ray workers: quicker)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    preamble = "You are the shipping assistant of ACME Rockets. Answer with the day only. " * 3
    rows = [{"timestamp": 1_740_000_000 + i, "request": {"prompt": f"{preamble}Order {i % 7} ships on day", "user": f"u{i % 5}"},
             "response": {"choices": [{"text": f" {i % 3}.", "finish_reason": "stop"}]}} for i in range(120)]
    jsonl = tmp_path / "completions.jsonl"
    jsonl.write_text("".join(json.dumps(row) + "\n" for row in rows))
    parquet = tmp_path / "completions.parquet"
    pq.write_table(pa.Table.from_pylist(rows), parquet, row_group_size=50)
    alone = replay(str(jsonl))
    with_ray = replay(str(parquet), "--ray")
    assert {**with_ray, "log": None} == {**alone, "log": None}
    assert alone["requests"] == 120 and alone["cached_tokens"] > 0
