"""A small, fast slice of the oracle campaign (benchmarks/oracle_campaign.py; the whole campaign
drives vLLM's own KVCacheManager and is run by hand where vLLM is installed): its traffic has
every shape the campaign promises, and each engine's --curve equals a bounded replay at every
capacity on it, SGLang with and without the overlap scheduler."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

from oracle_campaign import ADAPTERS, EOS, traffic  # noqa: E402


def test_the_traffic_has_every_shape():
    turns = traffic(7, 300)
    assert len(turns) == 300
    assert {t.finish for t in turns} == {"stop", "length"}
    assert all(t.last == EOS for t in turns if t.finish == "stop")
    assert {t.lora for t in turns} == {None, *ADAPTERS}
    assert {t.salt for t in turns} == {None, "tenant-a", "tenant-b"}
    assert any(turns[i] is turns[j] for i in range(300) for j in range(max(0, i - 20), i))  # exact retries
    # A later turn carries an earlier one's prompt, reply and last sampled token.
    carried = [(a, b) for a in turns for b in turns
               if len(b.prompt) > len(a.prompt) + len(a.generated) + 1
               and b.prompt[:len(a.prompt) + len(a.generated) + 1] == [*a.prompt, *a.generated, a.last]]
    assert carried
    assert min(len(t.generated) for t in turns) == 0 and max(len(t.generated) for t in turns) > 100


def test_curves_equal_bounded_replays_on_campaign_traffic():
    result = subprocess.run([sys.executable, str(BENCHMARKS / "oracle_campaign.py"), "--no-vllm", "--requests", "60",
                             "--seeds", "3", "--blocks", "1,16", "--pools", "0.05,0.2,0.6"],
                            capture_output=True, text=True, timeout=300, cwd=BENCHMARKS.parent)
    assert result.returncode == 0, result.stdout + result.stderr[-2000:]
    rows = [line.split() for line in result.stdout.splitlines() if line.split()[:1] in (["vllm"], ["sglang"])]
    assert len(rows) == 6 and all(row[-2:] == ["3", "0"] for row in rows)  # 3 capacities each, none differ
    assert "curves: 0 capacities differ" in result.stdout
