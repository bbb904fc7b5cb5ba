"""A smoke run of benchmarks/bench_check.py (its timings are not asserted: they live in the
benchmark): the floor's render of a sample is what `check` renders, and the benchmark still
imports what it measures (it broke once when a module moved)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def load_benchmark():
    spec = importlib.util.spec_from_file_location("bench_check", ROOT / "benchmarks" / "bench_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_check"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_the_benchmark_renders_the_samples_as_check_does():
    bench = load_benchmark()
    (group,) = bench.groups([str(ROOT / "samples" / "greeting_policy.md")])
    assert group.name == "all" and len(group.texts) == 1
    source = (ROOT / "samples" / "greeting_policy.md").read_text()
    assert group.texts[0].splitlines()[-1] == source.strip().splitlines()[-1]  # the last line, rendered as is
    assert bench.POOL_TARGET == 1.05 and "no pool" in bench.IN_PROCESS
