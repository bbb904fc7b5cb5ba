"""Benchmark `prefixlint replay`: tokenizing a request log versus simulating vLLM's prefix cache.

Generates a realistic synthetic log (chat requests from a few system-prompt templates with
volatile values, multi-turn conversations that carry their history and earlier replies,
interleaved users, some tenants with a cache_salt) at N and 2N requests, and for each size
prints: render time (chat template), tokenization time, simulation time (vLLM, unlimited and
with a bounded cache), tokens per second of each, peak memory, and the ratios against the
targets: simulation >= 3x faster than tokenizing; 2N costs <= 2.2x N.

Each size runs in its own process, so that peak memory (ru_maxrss) is that size's alone.

    python benchmarks/bench_replay.py            # N = 20,000
    python benchmarks/bench_replay.py --n 5000   # quicker
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import resource
import subprocess
import sys
import time

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
                "salt": f"tenant-{hash(user) % 3}" if rng.random() < 0.1 else None,
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

    from prefixlint.load.requestlog import parse_line
    from prefixlint.match.blockpool import VllmPrefixCache
    from prefixlint.render.chat import render_chat
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.one)))
        return
    print(f"machine: {platform.machine()}, {platform.processor() or 'cpu'}, "
          f"{__import__('os').cpu_count()} cores, Python {platform.python_version()}")
    results = []
    for n in (args.n, 2 * args.n):
        out = subprocess.run([sys.executable, __file__, "--one", str(n)], check=True, capture_output=True, text=True)
        results.append(json.loads(out.stdout))
    print(f"{'requests':>9} {'tokens':>12} {'render s':>9} {'tokenize s':>11} {'tok/s':>11}"
          f" {'simulate s':>11} {'tok/s':>11} {'bounded s':>10} {'tok/s':>11} {'peak MiB':>9}")
    for r in results:
        print(f"{r['requests']:>9,} {r['tokens']:>12,} {r['render_s']:>9.2f} {r['tokenize_s']:>11.2f}"
              f" {r['tokens'] / r['tokenize_s']:>11,.0f} {r['simulate_s']:>11.2f} {r['tokens'] / r['simulate_s']:>11,.0f}"
              f" {r['simulate_bounded_s']:>10.2f} {r['tokens'] / r['simulate_bounded_s']:>11,.0f}"
              f" {r['peak_rss_mib']:>9,.0f}")
    small, large = results
    for r in results:
        print(f"N={r['requests']:,}: simulation is {r['tokenize_s'] / r['simulate_s']:.1f}x faster than tokenizing"
              f" (bounded cache: {r['tokenize_s'] / r['simulate_bounded_s']:.1f}x; target >= 3x);"
              f" hit rate {100 * r['cached_unlimited'] / r['prompt_tokens']:.1f}% unlimited,"
              f" {100 * r['cached_bounded'] / r['prompt_tokens']:.1f}% in 200K tokens")
    print(f"2N / N: tokenize {large['tokenize_s'] / small['tokenize_s']:.2f}x,"
          f" simulate {large['simulate_s'] / small['simulate_s']:.2f}x,"
          f" bounded {large['simulate_bounded_s'] / small['simulate_bounded_s']:.2f}x (target <= 2.2x)")


if __name__ == "__main__":
    main()
