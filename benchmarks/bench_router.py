"""Benchmark the simulating process alone: tokens per CPU second of one vLLM cache, of N
replicas behind each router, and of `--router all` (every policy and the global cache).

This is the ceiling of `replay --workers`/`--ray`: rendering and tokenizing spread over
processes and machines, the simulation stays in one process. Requests are token ids made
here (a few long shared system prompts, conversations that grow turn by turn), so no
tokenizer runs.

    python benchmarks/bench_router.py                  # 5,000 requests, 8 replicas
    python benchmarks/bench_router.py --n 20000 --replicas 16
"""

from __future__ import annotations

import argparse
import random
import time

from prefixlint.engines.request import Request
from prefixlint.engines.simulators import VllmSimulator
from prefixlint.replay.cluster import Cluster, Speed
from prefixlint.replay.routed import build
from prefixlint.replay.routing import POLICIES, make_policy


def requests(n: int, seed: int = 7) -> list[Request]:
    rng = random.Random(seed)
    systems = [[rng.randrange(200_000) for _ in range(rng.randint(300, 1500))] for _ in range(6)]
    talks: list[list[int]] = []
    out = []
    for line in range(1, n + 1):
        if not talks or (len(talks) < 64 and rng.random() < 0.3):
            talks.append(list(rng.choice(systems)))
        talk = rng.choice(talks)
        talk += [rng.randrange(200_000) for _ in range(rng.randint(20, 200))]
        reply = [rng.randrange(200_000) for _ in range(rng.randint(20, 200))]
        out.append(Request(line, "g", list(talk), reply, timestamp=line * 0.05))
        talk += reply
        if rng.random() < 0.2:
            talks.remove(talk)
    return out


def timed(serve, log: list[Request]) -> float:
    start = time.process_time()
    for request in log:
        serve(request)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=5000)
    parser.add_argument("--replicas", type=int, default=8)
    parser.add_argument("--cache-tokens", type=int, default=2_000_000)
    args = parser.parse_args()
    log = requests(args.n)
    tokens = sum(r.prompt_tokens + r.generated_tokens for r in log)
    blocks = args.cache_tokens // 16
    print(f"{args.n:,} requests, {tokens:,} tokens; {args.replicas} replicas of {args.cache_tokens:,} tokens")
    base = timed(VllmSimulator(16, blocks).serve, log)
    print(f"{'simulator':<28} {'CPU s':>7} {'tokens/s':>12} {'vs one cache':>12}")
    print(f"{'one cache':<28} {base:>7.2f} {tokens / base:>12,.0f} {1:>11.2f}x")
    for name in POLICIES:
        cluster = Cluster([VllmSimulator(16, blocks) for _ in range(args.replicas)],
                          make_policy(name, args.replicas), 16)
        seconds = timed(cluster.serve, log)
        print(f"{name:<28} {seconds:>7.2f} {tokens / seconds:>12,.0f} {seconds / base:>11.2f}x")
    every = build("all", args.replicas, 0, (Speed.prefill_tps, Speed.decode_tps), 16, blocks, lambda b: VllmSimulator(16, b))
    seconds = timed(every.serve, log)
    print(f"{'--router all (5 + global)':<28} {seconds:>7.2f} {tokens / seconds:>12,.0f} {seconds / base:>11.2f}x")


if __name__ == "__main__":
    main()
