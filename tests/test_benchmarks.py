"""Every benchmark runs: one tiny run each, so that none can rot (bench_check.py once imported a
module that no longer existed, and nothing noticed). Their timings are not checked here: the
targets are printed by the benchmarks themselves, run by hand on a quiet machine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"

#: script -> the arguments of its tiniest run, and a line its output must hold.
SMOKE = {
    "bench_check.py": (["--runs", "1", "samples/daily_briefing.txt"], "ratio to floor"),
    "bench_match.py": (["--smoke"], "shared_prefix on long sequences"),
    "bench_replay.py": (["--smoke"], "json.loads floor"),
    "bench_router.py": (["--n", "40", "--replicas", "2", "--cache-tokens", "20000"], "--router all"),
    "bench_trace.py": (["--n", "40"], "2N / N"),
    "bench_parallel.py": (["--n", "100", "--modes", "1"], "same figures"),
    "bench_sources.py": (["--runs", "1"], "load_templates"),
    "bench_server.py": (["1"], "re-check of a 100-line template"),
    "bench_prompts_module.py": (["--runs", "1", "--prompts", "3", "--scale", "1,2"], "for 2.0x the prompts"),
    "bench_hostile.py": (["sum_lists.j2"], "sum_lists.j2                2"),
}


def test_every_benchmark_has_a_smoke_run():
    timed = {path.name for path in BENCHMARKS.glob("bench_*.py")}
    assert timed == set(SMOKE)


@pytest.mark.parametrize("script", sorted(SMOKE))
def test_the_benchmark_runs(script):
    args, expected = SMOKE[script]
    result = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True,
                            timeout=600, cwd=BENCHMARKS.parent)
    assert result.returncode == 0, result.stderr[-2000:]
    assert expected in result.stdout
