"""Benchmark `replay --workers` and `replay --ray`: throughput and peak memory on a text log.

Generates (once, streaming, deterministic) a chat request log of N requests: four system
prompts with a per-second clock or a daily date, conversations of one to four turns that
carry their earlier replies, interleaved users with timestamps. Then runs `prefixlint replay
LOG --format json` in a fresh process for each mode (one process, `--workers 2`, `--ray`,
and one process on a log 4x as long), and prints wall seconds, requests and tokens per
second, the peak RSS of the replay's process and of its children, and checks that every
mode reports the same figures. The 4x log is the same requests four times over: the cache
holds the same blocks, so what memory it adds is what the log itself would cost (nothing,
when the log is streamed); new traffic grows the cache, not the log's share.

    python benchmarks/bench_parallel.py                 # N = 200,000 (and 800,000 for memory)
    python benchmarks/bench_parallel.py --n 20000       # quicker
    python benchmarks/bench_parallel.py --modes 1,workers2   # skip Ray and the 4x log
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time

WORDS = ("order delivery refund warehouse carrier tracking package address invoice payment card account"
         " customer support agent policy return exchange shipping express standard rocket engine fuel"
         " the a of to and in for on with as by at from is are was be will can may please thanks").split()
SYSTEMS = [
    "Current time: {time}. You are the support assistant of ACME Rockets. {policy}",
    "You are a research agent. Today is {date}. {policy} Tools: search, fetch, summarize.",
    "You answer questions about ACME products. {policy}",
    "You are a friendly assistant. {policy}",
]


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def write_log(path: str, n: int, repeat: int = 1, seed: int = 7) -> None:
    """N requests, one JSON line each, written as they are made (memory stays small); the
    same N requests `repeat` times over."""
    with open(path, "w") as out:
        for _ in range(repeat):
            _write(out, n, seed)


def _write(out, n: int, seed: int) -> None:
    rng = random.Random(seed)
    policies = [" ".join(sentence(random.Random(i), 14) for _ in range(8)) for i in range(len(SYSTEMS))]
    active: list[dict] = []
    clock = 1_740_000_000
    for _ in range(n):
        clock += rng.randint(0, 1)
        if not active or (len(active) < 48 and rng.random() < 0.35):
            kind = rng.randrange(len(SYSTEMS))
            system = SYSTEMS[kind].format(time=time.strftime("%H:%M:%S", time.gmtime(clock)),
                                          date=time.strftime("%Y-%m-%d", time.gmtime(clock)), policy=policies[kind])
            active.append({"user": f"user-{rng.randrange(5000)}", "turns": rng.randint(1, 4),
                           "messages": [{"role": "system", "content": system}]})
        talk = rng.choice(active)
        talk["messages"].append({"role": "user", "content": sentence(rng, rng.randint(6, 30))})
        reply = sentence(rng, rng.randint(10, 60))
        out.write(json.dumps({"timestamp": clock, "request": {"model": "m", "user": talk["user"],
                                                              "messages": talk["messages"]},
                              "response": {"choices": [{"message": {"content": reply}, "finish_reason": "stop"}]}}))
        out.write("\n")
        talk["messages"] = [*talk["messages"], {"role": "assistant", "content": reply}]
        talk["turns"] -= 1
        if talk["turns"] == 0:
            active.remove(talk)


MODES = {"1": [], "workers2": ["--workers", "2"], "ray": ["--ray"]}


def run_one(mode: str, log: str) -> None:
    """In a fresh process: the replay, timed; its JSON figures and peak memory."""
    from click.testing import CliRunner

    from prefixlint.cli import cli

    start = time.perf_counter()
    result = CliRunner().invoke(cli, ["replay", log, "--format", "json", "--now", "2025-03-01T00:00:00", *MODES[mode]])
    wall = time.perf_counter() - start
    if result.exit_code != 0:
        raise SystemExit(result.output)
    data = json.loads(result.stdout)
    print(json.dumps({"wall_s": wall, "figures": {k: data[k] for k in ("requests", "prompt_tokens", "cached_tokens")},
                      "generated": data["generated_tokens"],
                      "self_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "children_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--modes", default="1,workers2,ray,4x")
    parser.add_argument("--one", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        run_one(*args.one)
        return
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()},"
          f" load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        logs = {}
        for scale in (1, 4) if "4x" in args.modes else (1,):
            logs[scale] = os.path.join(tmp, f"log{scale}.jsonl")
            write_log(logs[scale], args.n, scale)
            print(f"log {scale}x: {scale * args.n:,} requests, {os.path.getsize(logs[scale]) / 2**20:,.0f} MiB")
        rows = []
        for mode in args.modes.split(","):
            name, log = (("1", logs[4]) if mode == "4x" else (mode, logs[1]))
            out = subprocess.run([sys.executable, __file__, "--one", name, log], check=True, capture_output=True, text=True)
            rows.append((mode, json.loads(out.stdout.strip().splitlines()[-1])))
            print(f"  ran {mode}", flush=True)
    base = rows[0][1]
    print(f"{'mode':<9} {'requests':>9} {'tokens':>12} {'wall s':>8} {'req/s':>7} {'tokens/s':>10}"
          f" {'vs 1':>6} {'replay MiB':>10} {'children MiB':>12}  same figures")
    for mode, r in rows:
        tokens = r["figures"]["prompt_tokens"] + r["generated"]
        same = r["figures"] == base["figures"] if mode != "4x" else "-"
        speedup = base["wall_s"] / r["wall_s"] if mode != "4x" else r["wall_s"] / base["wall_s"]
        print(f"{mode:<9} {r['figures']['requests']:>9,} {tokens:>12,} {r['wall_s']:>8.1f}"
              f" {r['figures']['requests'] / r['wall_s']:>7,.0f} {tokens / r['wall_s']:>10,.0f}"
              f" {speedup:>5.2f}x {r['self_mib']:>10,.0f} {r['children_mib']:>12,.0f}  {same}")
    print("vs 1: the one-process time over the mode's (for 4x: the 4x log's time over the 1x log's)")


if __name__ == "__main__":
    main()
