"""Benchmark `prefixlint replay`: tokenizing a request log versus simulating vLLM's prefix cache.

Generates a realistic synthetic log (chat requests from a few system-prompt templates with
volatile values, multi-turn conversations that carry their history and earlier replies,
interleaved users, some tenants with a cache_salt) at N and 2N requests, and for each size
prints: render time (chat template), tokenization time, simulation time (vLLM, unlimited and
with a bounded cache), tokens per second of each, peak memory, and the ratios against the
targets: simulation >= 3x faster than tokenizing; 2N costs <= 2.2x N.

Each size runs in its own process, so that peak memory (ru_maxrss) is that size's alone.

    python benchmarks/bench_replay.py            # N = 20,000: the token-id ratio, then the table
    python benchmarks/bench_replay.py --n 5000   # quicker
    python benchmarks/bench_replay.py --runs 3   # each size three times: medians (a busy machine)
    python benchmarks/bench_replay.py --ids      # only the token-id log against the json.loads floor
    python benchmarks/bench_replay.py --smoke    # one tiny run of each (the test suite's)

The token-id measurement (first in a default run, alone with `--ids`) writes a log of N
completions whose prompts are token ids (20 shared system prompts, then a suffix of its own:
320 tokens a request on average; 20,000 requests are 6.4 M tokens, issue 23's size), and prints
the CPU time of `prefixlint replay LOG --format json` (a whole process: start-up, reading and
checking every line, the vLLM simulation, the report with its tokens as text) over the floor: a
process that reads the same log with the standard library's `json.loads`, line by line; the
median of `--runs` pairs (at least 3), run in turn so that other load hits both. Target: <= 2x.
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
import time
import zlib
from statistics import median

WORDS = (
    "order delivery refund warehouse carrier tracking package address invoice payment card account"
    " customer support agent policy return exchange shipping express standard weekend holiday"
    " product rocket engine fuel launch orbit satellite booster nozzle valve sensor battery cable"
    " the a of to and in for on with as by at from is are was be will can may should must not"
    " please thanks sorry happy help check update confirm cancel change send receive arrive late"
    " early today tomorrow monday tuesday wednesday thursday friday price discount coupon member"
).split()

TEMPLATES = {
    # name: (system prompt builder, volatile part placed where)
    "support": "Current time: {time}.\n" + "You are the support assistant of ACME Rockets. {policy}",
    "agent": "You are a research agent. Today is {date}. {policy}\nTools: search, fetch, summarize.",
    "rag": "You answer questions about ACME products. {policy}\nDocuments:\n{documents}",
    "chat": "You are a friendly assistant. {policy}",
}


def sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def build_log(n_requests: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    policies = {name: " ".join(sentence(random.Random(name), rng.randint(12, 20)) for _ in range(60))
                for name in TEMPLATES}
    users = [f"user-{i:05d}" for i in range(max(50, n_requests // 10))]
    active: list[dict] = []
    log: list[dict] = []
    clock = 1_740_000_000
    while len(log) < n_requests:
        clock += rng.randint(0, 3)
        if not active or (len(active) < 64 and rng.random() < 0.3):
            name = rng.choice(list(TEMPLATES))
            system = TEMPLATES[name].format(
                time=time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(clock)),
                date=time.strftime("%Y-%m-%d", time.gmtime(clock)),
                policy=policies[name],
                documents="\n".join(sentence(rng, 40) for _ in range(rng.randint(2, 6))),
            )
            user = rng.choice(users)
            active.append({
                "template": name, "user": user, "turns": rng.randint(1, 6),
                "salt": f"tenant-{zlib.crc32(user.encode()) % 3}" if rng.random() < 0.1 else None,
                "messages": [{"role": "system", "content": system}],
            })
        conversation = rng.choice(active)
        conversation["messages"].append({"role": "user", "content": sentence(rng, rng.randint(8, 60))})
        reply = sentence(rng, rng.randint(20, 160))
        request = {"model": "m", "messages": list(conversation["messages"]),
                   "metadata": {"template": conversation["template"], "user": conversation["user"]}}
        if conversation["salt"]:
            request["cache_salt"] = conversation["salt"]
        log.append({"timestamp": clock, "request": request,
                    "response": {"choices": [{"message": {"role": "assistant", "content": reply},
                                              "finish_reason": "stop"}]}})
        conversation["messages"].append({"role": "assistant", "content": reply})
        conversation["turns"] -= 1
        if conversation["turns"] == 0:
            active.remove(conversation)
    return log


def run_one(n: int) -> dict:
    from datetime import datetime

    from prefixlint.engines.blockpool import VllmPrefixCache
    from prefixlint.render.chat import render_chat
    from prefixlint.replay.requestlog import parse_line
    from prefixlint.tokenize import load_tokenizer

    lines = [json.dumps(entry) for entry in build_log(n)]
    tokenizer = load_tokenizer("o200k_base")
    unlimited, bounded = VllmPrefixCache(16), VllmPrefixCache(16, capacity_blocks=200_000 // 16)
    now = datetime(2025, 3, 1)
    render = tokenize = simulate = simulate_bounded = 0.0
    tokens = prompt_tokens = cached = cached_bounded = 0
    clock = time.process_time  # CPU seconds: other load on a shared machine does not count
    for number, text in enumerate(lines, 1):
        entry = parse_line(text, number)
        t0 = clock()
        prompt_text = render_chat(entry.body["messages"], tokenizer=tokenizer, now=now).text
        t1 = clock()
        prompt = tokenizer.encode(prompt_text)
        generated = tokenizer.encode(entry.response_text)
        t2 = clock()
        cached += unlimited.serve(prompt, generated, entry.cache_salt).cached_tokens
        t3 = clock()
        cached_bounded += bounded.serve(prompt, generated, entry.cache_salt).cached_tokens
        t4 = clock()
        render += t1 - t0
        tokenize += t2 - t1
        simulate += t3 - t2
        simulate_bounded += t4 - t3
        tokens += len(prompt) + len(generated)
        prompt_tokens += len(prompt)
    return {
        "requests": n, "tokens": tokens, "render_s": render, "tokenize_s": tokenize,
        "simulate_s": simulate, "simulate_bounded_s": simulate_bounded,
        "prompt_tokens": prompt_tokens, "cached_unlimited": cached, "cached_bounded": cached_bounded,
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def ratios(small: dict, large: dict) -> dict:
    """The figures the targets are about, for one run at N and 2N."""
    out = {}
    for r, name in ((small, "n"), (large, "2n")):
        out[f"unlimited_{name}"] = r["tokenize_s"] / r["simulate_s"]
        out[f"bounded_{name}"] = r["tokenize_s"] / r["simulate_bounded_s"]
    for key in ("tokenize_s", "simulate_s", "simulate_bounded_s"):
        out[f"scale_{key}"] = large[key] / small[key]
    return out


FLOOR = "import json, sys\nn = 0\nfor line in open(sys.argv[1], 'rb'):\n    n += len(json.loads(line)['prompt'])\nprint(n)\n"


def child_cpu(argv: list[str]) -> float:
    """CPU seconds (user + system) of one child process. Bytecode may be written and read
    (PYTHONDONTWRITEBYTECODE dropped): an installed package runs from .pyc files, and compiling
    prefixlint's modules anew in every run would cost the replay, not the floor, 0.3 s."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def ids_ratio(n: int, runs: int) -> float:
    import tempfile

    rng = random.Random(3)
    systems = [[rng.randrange(200_000) for _ in range(rng.randint(150, 250))] for _ in range(20)]
    with tempfile.TemporaryDirectory() as folder:
        log = f"{folder}/ids.jsonl"
        tokens = 0
        with open(log, "w") as out:
            for _ in range(n):
                prompt = rng.choice(systems) + [rng.randrange(200_000) for _ in range(rng.randint(40, 200))]
                tokens += len(prompt)
                out.write(json.dumps({"prompt": prompt}) + "\n")
        replay = [sys.executable, "-m", "prefixlint", "replay", log, "--format", "json"]
        floor = [sys.executable, "-c", FLOOR, log]
        child_cpu(replay)  # warm-up: the .pyc files written
        pairs = [(child_cpu(replay), child_cpu(floor)) for _ in range(runs)]  # in turn: load hits both
    mine, base = median(p[0] for p in pairs), median(p[1] for p in pairs)
    best, best_base = min(p[0] for p in pairs), min(p[1] for p in pairs)
    print(f"token-id log, {n:,} requests ({tokens / 1e6:.1f} M tokens): replay {mine:.2f} s CPU, json.loads floor {base:.2f} s:"
          f" {mine / base:.2f}x (best of {runs}: {best:.2f} s / {best_base:.2f} s, {best / best_base:.2f}x; target <= 2x;"
          f" load average {os.getloadavg()[0]:.1f})")
    return mine / base


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--ids", action="store_true", help="replay a token-id log against the json.loads floor")
    parser.add_argument("--smoke", action="store_true", help="one tiny run of each measurement")
    parser.add_argument("--runs", type=int, default=1, help="run each size this many times; print medians")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one)))
        return
    if args.smoke:
        args.n = 20
        ids_ratio(50, 1)
    else:
        ids_ratio(args.n, max(3, args.runs))
        if args.ids:
            return
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
          f"{os.cpu_count()} cores, Python {platform.python_version()}")
    runs = []
    for run in range(args.runs):
        results = []
        for n in (args.n, 2 * args.n):
            out = subprocess.run([sys.executable, __file__, "--one", str(n)], check=True, capture_output=True, text=True)
            results.append(json.loads(out.stdout))
        runs.append(results)
        if args.runs > 1:
            r = ratios(*results)
            print(f"run {run + 1}: tokenize / simulate {r['unlimited_n']:.1f}x, {r['unlimited_2n']:.1f}x;"
                  f" bounded {r['bounded_n']:.1f}x, {r['bounded_2n']:.1f}x;"
                  f" 2N / N {r['scale_tokenize_s']:.2f}x, {r['scale_simulate_s']:.2f}x, {r['scale_simulate_bounded_s']:.2f}x",
                  flush=True)
    # Medians over the runs, field by field (one run: its own figures).
    results = [{key: median(run[i][key] for run in runs) for key in runs[0][i]} for i in (0, 1)]
    r = {key: median(ratios(*run)[key] for run in runs) for key in ratios(*runs[0])}
    if args.runs > 1:
        print(f"medians of {args.runs} runs (CPU seconds):")
    print(f"{'requests':>9} {'tokens':>12} {'render s':>9} {'tokenize s':>11} {'tok/s':>11}"
          f" {'simulate s':>11} {'tok/s':>11} {'bounded s':>10} {'tok/s':>11} {'peak MiB':>9}")
    for x in results:
        print(f"{x['requests']:>9,.0f} {x['tokens']:>12,.0f} {x['render_s']:>9.2f} {x['tokenize_s']:>11.2f}"
              f" {x['tokens'] / x['tokenize_s']:>11,.0f} {x['simulate_s']:>11.2f} {x['tokens'] / x['simulate_s']:>11,.0f}"
              f" {x['simulate_bounded_s']:>10.2f} {x['tokens'] / x['simulate_bounded_s']:>11,.0f}"
              f" {x['peak_rss_mib']:>9,.0f}")
    for x, name in zip(results, ("n", "2n")):
        print(f"N={x['requests']:,.0f}: simulation is {r['unlimited_' + name]:.1f}x faster than tokenizing"
              f" (bounded cache: {r['bounded_' + name]:.1f}x; target >= 3x);"
              f" hit rate {100 * x['cached_unlimited'] / x['prompt_tokens']:.1f}% unlimited,"
              f" {100 * x['cached_bounded'] / x['prompt_tokens']:.1f}% in 200K tokens")
    print(f"2N / N: tokenize {r['scale_tokenize_s']:.2f}x, simulate {r['scale_simulate_s']:.2f}x,"
          f" bounded {r['scale_simulate_bounded_s']:.2f}x (target <= 2.2x)")


if __name__ == "__main__":
    main()
