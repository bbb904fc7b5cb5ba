"""Wall time of `prefixlint check samples` against the floor, over several runs.

The floor is a bare Python process that loads the same tokenizer (o200k_base, through
prefixlint's loader, which is tiktoken reading its cached rank file) and encodes the same
rendered text: one render of every sample. Run:

    python benchmarks/bench_check.py [--runs 7] [PATHS...]

It prints the median and best wall time of each, and their ratio (target: at most 1.3x).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FLOOR = """
import json, sys
from prefixlint.tokenize import load_tokenizer
texts = json.load(open(sys.argv[1]))
tok = load_tokenizer("o200k_base")
print(sum(len(tok.encode(text)) for text in texts))
"""


def rendered_texts(paths: list[str]) -> list[str]:
    """One render of every template, as `check` produces it (first variant, ChatML framing)."""
    from prefixlint.load.discover import discover
    from prefixlint.load.registry import load_template
    from prefixlint.match.profiles import get_profile
    from prefixlint.render.compile import compile_template
    from prefixlint.rules.classify import builtin_catalog
    from prefixlint.rules.measure import Measurer
    from prefixlint.tokenize import load_tokenizer

    texts = []
    for path in discover(paths):
        template = load_template(str(path))
        measurer = Measurer(template, compile_template(template), load_tokenizer("o200k_base"),
                            get_profile("vllm"), builtin_catalog(), 16)
        texts.append(measurer.render().text)
    return texts


# Both processes may write and reuse bytecode caches, as an installed package does (pip
# byte-compiles on install); PYTHONDONTWRITEBYTECODE would make every run compile from source.
ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def once(command: list[str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds: user + system of the child)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT, env=ENV)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timed(commands: list[list[str]], runs: int) -> list[list[tuple[float, float]]]:
    """Run the commands in turn, `runs` rounds, so that load on the machine hits both alike."""
    times: list[list[tuple[float, float]]] = [[] for _ in commands]
    for _ in range(runs):
        for command, record in zip(commands, times):
            record.append(once(command))
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("paths", nargs="*", default=[str(ROOT / "samples")])
    args = parser.parse_args()
    texts = rendered_texts(args.paths)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(texts, handle)
    try:
        check = [sys.executable, "-m", "prefixlint", "check", "--isolated", "--exit-zero", *args.paths]
        floor = [sys.executable, "-c", FLOOR, handle.name]
        timed([check, floor], 2)  # warm the file, bytecode and tiktoken rank-file caches
        check_times, floor_times = timed([check, floor], args.runs)
    finally:
        os.unlink(handle.name)
    chars = sum(len(t) for t in texts)
    print(f"{len(texts)} templates, {chars:,} characters rendered; {args.runs} interleaved runs each")
    for name, times in (("prefixlint check", check_times), ("floor (load + encode)", floor_times)):
        wall, cpu = [t[0] for t in times], [t[1] for t in times]
        print(f"  {name:<22} wall median {statistics.median(wall) * 1000:7.1f} ms, best {min(wall) * 1000:7.1f} ms;"
              f"  CPU median {statistics.median(cpu) * 1000:7.1f} ms")
    def ratio(index: int, pick) -> float:
        return pick([t[index] for t in check_times]) / pick([t[index] for t in floor_times])

    print(f"  ratio wall: {ratio(0, statistics.median):.2f}x median, {ratio(0, min):.2f}x best;"
          f" CPU: {ratio(1, statistics.median):.2f}x median (target <= 1.3x)")


if __name__ == "__main__":
    main()
