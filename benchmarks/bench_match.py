"""Benchmark the matcher: PrefixCache over N and 2N requests (linear: ~2x), and shared_prefix.

Requests are chat-like prompts tokenized with o200k_base: a few long system prompts, and
conversations whose every turn resends the whole history (as a chat API does), so requests
share long prefixes with each other. Tokenizing is done before the clock starts; times are
CPU time of this process, so other programs running on the machine do not distort the ratios.

    python benchmarks/bench_match.py [N]      (N defaults to 2000; --smoke: one tiny run)
"""

from __future__ import annotations

import gc
import random
import sys
import time

from prefixlint.match.prefix import PrefixCache, shared_prefix
from prefixlint.tokenize import load_tokenizer

WORDS = (
    "the customer order refund policy account password shipping delivery invoice payment card bank "
    "support agent answer question please thanks help issue problem error update version release "
    "product service subscription plan price discount coupon email phone address city country "
    "today tomorrow week month year time date number item quantity total amount balance status "
    "open closed pending approved rejected cancel return exchange warranty repair replace broken "
    "screen battery charger cable laptop printer paper ink toner network wifi router password login"
).split()


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def requests(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    systems = [" ".join(sentence(rng, 15) for _ in range(60)) for _ in range(4)]  # ~1,000 tokens each
    prompts: list[str] = []
    while len(prompts) < count:
        history = systems[rng.randrange(len(systems))]
        for _ in range(rng.randint(1, 8)):  # turns of one conversation
            history += "\nUser: " + sentence(rng, rng.randint(5, 30))
            prompts.append(history)
            history += "\nAssistant: " + " ".join(sentence(rng, 12) for _ in range(rng.randint(1, 4)))
    return prompts[:count]


def time_once(sequences: list[list[int]]) -> float:
    """One run over a fresh cache, with the garbage collector off while timing (as timeit does)."""
    cache = PrefixCache()
    gc.collect()
    gc.disable()
    try:
        start = time.process_time()  # CPU time: other processes on the machine do not count
        for ids in sequences:
            cache.match_and_insert(ids)
        return time.process_time() - start
    finally:
        gc.enable()


def time_both(small: list[list[int]], large: list[list[int]], repeat: int = 7) -> tuple[float, float]:
    """Best of `repeat` for each, the runs interleaved so that machine noise hits both alike."""
    best_small = best_large = float("inf")
    for _ in range(repeat):
        best_small = min(best_small, time_once(small))
        best_large = min(best_large, time_once(large))
    return best_small, best_large


def time_pairwise(sequences: list[list[int]]) -> float:
    """The O(N^2) way the radix tree avoids: compare each request with every earlier one."""
    start = time.process_time()
    for number, ids in enumerate(sequences):
        max((shared_prefix(ids, earlier) for earlier in sequences[:number]), default=0)
    return time.process_time() - start


def main() -> None:
    smoke = "--smoke" in sys.argv[1:]  # one tiny run (the test suite's)
    n = 50 if smoke else int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    tokenizer = load_tokenizer("o200k_base")
    texts = requests(2 * n)
    sequences = [tokenizer.encode(text) for text in texts]
    small, large = sequences[:n], sequences
    tokens_small = sum(map(len, small))
    tokens_large = sum(map(len, large))
    t_small, t_large = time_both(small, large)
    print("PrefixCache.match_and_insert, o200k_base chat-like requests (CPU time, best of 7, interleaved, gc off)")
    print(f"  N  = {n:>6,} requests  {tokens_small:>12,} tokens  {t_small * 1000:9.1f} ms"
          f"  {t_small / tokens_small * 1e9:6.1f} ns/token")
    print(f"  2N = {2 * n:>6,} requests  {tokens_large:>12,} tokens  {t_large * 1000:9.1f} ms"
          f"  {t_large / tokens_large * 1e9:6.1f} ns/token")
    print(f"  time ratio 2N/N = {t_large / t_small:.2f}  (token ratio {tokens_large / tokens_small:.2f};"
          " linear means the two ratios agree; pairwise O(N^2) would be ~4)")

    m = max(n // 8, 50)
    t_pair_small, t_pair_large = time_pairwise(sequences[:m]), time_pairwise(sequences[: 2 * m])
    print(f"  for contrast, pairwise against every earlier request: {m} -> {2 * m} requests"
          f" {t_pair_small * 1000:.1f} -> {t_pair_large * 1000:.1f} ms, ratio {t_pair_large / t_pair_small:.2f}")

    print("shared_prefix on long sequences (equal up to the last token)")
    for length in (1000,) if smoke else (100_000, 1_000_000, 4_000_000):
        a = random.Random(length).choices(range(200_000), k=length)
        b = list(a)
        b[-1] += 1
        start = time.process_time()
        found = shared_prefix(a, b)
        elapsed = time.process_time() - start
        assert found == length - 1
        start = time.process_time()
        naive = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), length)
        naive_elapsed = time.process_time() - start
        assert naive == found
        print(f"  {length:>9,} tokens  {elapsed * 1000:8.2f} ms"
              f"  (token-by-token loop {naive_elapsed * 1000:8.2f} ms, {naive_elapsed / elapsed:5.1f}x slower)")


if __name__ == "__main__":
    main()
