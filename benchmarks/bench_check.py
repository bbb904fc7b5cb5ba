"""Wall and CPU time of `prefixlint check samples` against the floor, over several runs.

The floor is a bare Python process that loads the same tokenizer (o200k_base, through
prefixlint's loader, which is tiktoken reading its cached rank file) and encodes the same
rendered text: one render of every template. Run:

    python benchmarks/bench_check.py [--runs 9] [PATHS...]

The check runs as users run it, every file in a worker process with its budgets
(prefixlint/sandbox/workers.py), and also in one process (`PREFIXLINT_WORKERS=0`): their ratio is
the cost of the pool. Two groups are timed, each against its own floor:
- all: `prefixlint check PATHS` (default: the sample folder), as a user runs it;
- no chat template: the same files without the Hugging Face chat templates (`*.jinja` files
  holding a model's chat template), named on the command line. Checking a chat template
  renders it in the chat-template environment (prefixlint.render.chat_env); with transformers
  (`transformers/__init__`, which builds the lazy import table of every model and checks
  dependency versions) costs more than the whole floor; the floor never imports it.

`prefixlint` exits without tearing the interpreter down (see `prefixlint.cli.exit_now`), which
the floor as defined does not skip; so each group is also timed against the same floor ending
with `os._exit`, and that ratio is prefixlint's own overhead with nothing left out.

The commands of a group run in turn (check, floor, floor without teardown, check ...) so that load on the
machine hits both alike; medians are reported, with the best run and the CPU time (user +
system) of the child, which load distorts less than wall time. The machine's CPU count and
load average before and after are printed: on a busy machine, trust the CPU ratio more.
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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.3
#: `prefixlint check` with its worker pool (every file in a forked worker with its budgets)
#: against the same run in one process (PREFIXLINT_WORKERS=0): a few per cent at most.
POOL_TARGET = 1.05
IN_PROCESS = "check in one process (no pool)"

FLOOR = """
import json, sys
from prefixlint.tokenize import load_tokenizer
texts = json.load(open(sys.argv[1]))
tok = load_tokenizer("o200k_base")
print(sum(len(tok.encode(text)) for text in texts))
"""
#: The floor without interpreter teardown, as `prefixlint` itself exits (`cli.exit_now`):
#: freeing the tokenizer's vocabulary alone takes tens of milliseconds, which the floor above
#: pays and prefixlint does not. The ratio against this one is prefixlint's own overhead.
FLOOR_FAST_EXIT = FLOOR + """
import os
sys.stdout.flush()
os._exit(0)
"""


@dataclass
class Group:
    name: str
    paths: list[str]  # what `prefixlint check` is given
    texts: list[str]  # one render of every template in it: what the floor encodes


def rendered(path: Path) -> tuple[list[str], bool]:
    """One render of every template in `path` as `check` produces it (first variant, ChatML
    framing), and whether the file is a chat template (rendered through transformers)."""
    from prefixlint.check.measure import Measurer
    from prefixlint.engines.profiles import get_profile
    from prefixlint.load.classify import builtin_catalog
    from prefixlint.load.registry import load_templates
    from prefixlint.render.compile import compile_template
    from prefixlint.tokenize import load_tokenizer

    tokenizer = load_tokenizer("o200k_base")
    texts, chat_template = [], False
    for template in load_templates(str(path)):  # a promptfoo config holds several
        if template.format == "hf-chat-template":  # checked by rendering a probe conversation
            from prefixlint.render.chat import render_chat
            from prefixlint.rules.chat_template import DATE_PROBES

            chat_template = True
            texts.append(render_chat(DATE_PROBES[0], tokenizer=tokenizer,
                                     chat_template=template.messages[0].content).text)
            continue
        measurer = Measurer(template, compile_template(template), tokenizer,
                            get_profile("vllm"), builtin_catalog(), 16)
        texts.append(measurer.render().text)
    return texts, chat_template


def groups(paths: list[str]) -> list[Group]:
    from prefixlint.load.discover import discover

    every, plain_paths, plain_texts = [], [], []
    for path in discover(paths):
        texts, chat_template = rendered(path)
        every += texts
        if not chat_template:
            plain_paths.append(str(path))
            plain_texts += texts
    result = [Group("all", paths, every)]
    if len(plain_texts) < len(every):
        result.append(Group("no chat template", plain_paths, plain_texts))
    return result


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


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def report(group: Group, times: dict[str, list[tuple[float, float]]], runs: int) -> None:
    chars = sum(len(t) for t in group.texts)
    print(f"{group.name}: {len(group.texts)} templates, {chars:,} characters rendered; {runs} alternating runs each")
    for name, record in times.items():
        wall, cpu = [t[0] for t in record], [t[1] for t in record]
        print(f"  {name:<31} wall median {ms(statistics.median(wall))}, best {ms(min(wall))};"
              f"  CPU median {ms(statistics.median(cpu))}")
    check = times["prefixlint check"]
    pooled, alone = check, times[IN_PROCESS]
    print(f"  the worker pool's cost (check / {IN_PROCESS}): wall"
          f" {statistics.median(t[0] for t in pooled) / statistics.median(t[0] for t in alone):.3f}x median,"
          f" {min(t[0] for t in pooled) / min(t[0] for t in alone):.3f}x best; CPU"
          f" {statistics.median(t[1] for t in pooled) / statistics.median(t[1] for t in alone):.3f}x median,"
          f" {min(t[1] for t in pooled) / min(t[1] for t in alone):.3f}x best (target: at most {POOL_TARGET}x)")
    for name, floor in [(n, f) for n, f in times.items() if n not in ("prefixlint check", IN_PROCESS)]:
        def ratio(index: int, pick, floor=floor) -> float:
            return pick([t[index] for t in check]) / pick([t[index] for t in floor])

        print(f"  ratio to {name + ':':<24} wall {ratio(0, statistics.median):.2f}x median,"
              f" {ratio(0, min):.2f}x best; CPU {ratio(1, statistics.median):.2f}x median, {ratio(1, min):.2f}x best")
    print(f"  (target: at most {TARGET}x)")


def load_note() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("paths", nargs="*", default=["samples"])
    args = parser.parse_args()
    os.chdir(ROOT)  # sample paths print relative, as in the docs
    print(f"machine: {os.cpu_count()} CPUs, {load_note()} (before); Python {sys.version.split()[0]}")
    for group in groups(args.paths):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
            json.dump(group.texts, handle)
        try:
            commands = {
                # --no-cache: every run does the whole work, as the floor does (a re-run is timed apart)
                "prefixlint check": [sys.executable, "-m", "prefixlint", "check", "--no-cache", *group.paths],
                IN_PROCESS: ["env", "PREFIXLINT_WORKERS=0", sys.executable, "-m", "prefixlint", "check", "--no-cache",
                             *group.paths],
                "floor (load + encode)": [sys.executable, "-c", FLOOR, handle.name],
                "floor without teardown": [sys.executable, "-c", FLOOR_FAST_EXIT, handle.name],
            }
            timed(list(commands.values()), 2)  # warm the file, bytecode and tiktoken rank-file caches
            times = dict(zip(commands, timed(list(commands.values()), args.runs)))
        finally:
            os.unlink(handle.name)
        report(group, times, args.runs)
    print(f"machine: {load_note()} (after)")


if __name__ == "__main__":
    main()
