"""The oracle campaign of issue 23: prefixlint's vLLM model against vLLM's own `KVCacheManager`.

Fresh traffic (seeded; multi-turn chats that carry their replies, shared system prompts, exact
retries, long and short replies, `stop` and `length` finishes, salts, three LoRA adapters) is
served one request after another to vLLM's manager (`vllm/v1/core/kv_cache_manager.py`,
driven on the CPU: `get_computed_blocks`, `allocate_slots` for the prompt and for each
generated token whose KV is computed, `free`) and to prefixlint's `VllmSimulator`, at page
sizes 1, 16 and 64 and pools of 5% to 60% of the working set and unbounded; it prints one
row per configuration: requests compared and how many differ. `--curve` rows compare
prefixlint's one-pass curve with its own bounded replay at each capacity.

vLLM is not a dependency of prefixlint: run this in an environment that has it (the CPU build
of torch and `pip install --no-deps vllm==0.33.0` plus the modules it imports), with
prefixlint importable (PYTHONPATH=. from the checkout):

    PYTHONPATH=. python benchmarks/oracle_campaign.py --requests 400 --seeds 11,12
    PYTHONPATH=. python benchmarks/oracle_campaign.py --sglang-pools   # bounded SGLang (oracle_sglang_pool.py)
    python benchmarks/oracle_campaign.py --no-vllm --requests 40 --seeds 1 --blocks 4   # the curves only

Bounded SGLang (`--sglang-pools`) drives SGLang's own `RadixCache` over its own token allocator
with its own allocation functions, called where its scheduler calls them (oracle_sglang_pool.py
cites each line); a pool's size is a share of the working set in tokens, and a request SGLang
refuses (a prompt too long for the pool) must be refused by prefixlint too.

The test suite runs a small slice without vLLM (tests/engines/test_campaign_slice.py).
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass


@dataclass
class Turn:
    prompt: list[int]
    generated: list[int]  # KV computed: every generated token but the last sampled
    last: int | None
    finish: str
    salt: str | None
    lora: tuple[str, str] | None


ADAPTERS = [("sql-lora", "/adapters/sql"), ("chat-lora", "/adapters/chat"), ("code-lora", "/adapters/code")]
EOS = 2


def traffic(seed: int, n: int) -> list[Turn]:
    """Multi-turn chats over shared system prompts, exact retries, stop and length finishes,
    salts and three adapters (tokens drawn from a 32,000-token vocabulary)."""
    rng = random.Random(seed)
    systems = [[rng.randrange(3, 32000) for _ in range(rng.randint(20, 300))] for _ in range(6)]
    chats: list[tuple[list[int], str | None, tuple[str, str] | None]] = []
    out: list[Turn] = []
    while len(out) < n:
        roll = rng.random()
        if out and roll < 0.08:  # an exact retry of a recent request
            out.append(rng.choice(out[-20:]))
            continue
        if chats and roll < 0.55:  # the next turn of a running chat
            index = rng.randrange(len(chats))
            history, salt, lora = chats[index]
        else:
            salt = rng.choice([None, None, None, "tenant-a", "tenant-b"])
            lora = rng.choice([None, None, *ADAPTERS])
            history = list(rng.choice(systems))
            chats.append((history, salt, lora))
            index = len(chats) - 1
        prompt = history + [rng.randrange(3, 32000) for _ in range(rng.randint(1, 120))]
        length = rng.choice([1, 2, rng.randint(3, 20), rng.randint(20, 200)])
        reply = [rng.randrange(3, 32000) for _ in range(length)]
        if rng.random() < 0.3:  # cut by max_tokens: the last text token is the last sampled
            finish, generated, last = "length", reply[:-1], reply[-1]
        else:  # the stop token is the last sampled
            finish, generated, last = "stop", reply, EOS
        out.append(Turn(prompt, generated, last, finish, salt, lora))
        chats[index] = (prompt + generated + [last], salt, lora)  # the next turn carries the reply
        if len(chats) > 40:
            chats.pop(0)
    return out


def working_set(turns: list[Turn], block: int) -> int:
    """Blocks of every distinct full block the traffic computes (an unbounded pool's size)."""
    seen = set()
    for t in turns:
        seq = t.prompt + t.generated
        key = (t.salt, t.lora)
        for i in range(len(seq) // block):
            key = hash((key, tuple(seq[i * block:(i + 1) * block])))
            seen.add(key)
    return len(seen)


class VllmOracle:
    """vLLM 0.33's KVCacheManager, one request at a time to completion."""

    def __init__(self, block: int, num_blocks: int) -> None:
        import torch
        from vllm.utils.hashing import sha256_cbor
        from vllm.v1.core.kv_cache_manager import KVCacheManager
        from vllm.v1.core.kv_cache_utils import get_request_block_hasher, init_none_hash
        from vllm.v1.kv_cache_interface import FullAttentionSpec, KVCacheConfig, KVCacheGroupSpec

        init_none_hash(sha256_cbor)
        spec = FullAttentionSpec(block, num_kv_heads=1, head_size=1, dtype=torch.float32)
        config = KVCacheConfig(num_blocks=num_blocks, kv_cache_tensors=[],
                               kv_cache_groups=[KVCacheGroupSpec(["layer.0"], spec)])
        self.manager = KVCacheManager(config, max_model_len=1 << 20, scheduler_block_size=block,
                                      hash_block_size=block, enable_caching=True)
        self.hasher = get_request_block_hasher(block, sha256_cbor)
        self.count = 0

    def serve(self, turn: Turn) -> int | None:
        from vllm.lora.request import LoRARequest
        from vllm.sampling_params import SamplingParams
        from vllm.v1.request import Request

        self.count += 1
        lora = None
        if turn.lora is not None:
            lora = LoRARequest(turn.lora[0], ADAPTERS.index(turn.lora) + 1, turn.lora[1])
        request = Request(str(self.count), list(turn.prompt), SamplingParams(max_tokens=1 << 16), None,
                          lora_request=lora, cache_salt=turn.salt, block_hasher=self.hasher)
        manager = self.manager
        blocks, cached, _ = manager.get_computed_blocks(request)
        new = manager.allocate_slots(request, len(turn.prompt) - cached, cached, blocks)
        if new is None:  # more than the pool holds: refused
            return None
        request.num_computed_tokens = len(turn.prompt)
        for token in [*turn.generated, turn.last][:-1] if turn.last is not None else turn.generated:
            request.append_output_token_ids(token)
            if manager.allocate_slots(request, 1) is None:
                break
            request.num_computed_tokens += 1
        manager.free(request)
        return cached


class SglangTreeOracle:
    """SGLang 0.5.23's own `RadixCache` (`mem_cache/radix_cache.py`, `create_simulated`: no
    memory pool, so unbounded) with the scheduler's keys: the match capped at `input_len - 1`
    (`Req._compute_max_prefix_len`, managers/schedule_batch.py:1766-1785), the tree namespaced
    by `extra_key` (the LoRA id, schedule_batch.py:1165-1170) and `cache_salt`
    (`_req_radix_key`, mem_cache/common.py:207-212). What a finished request inserts is the
    rule prefixlint models (its prompt and computed reply; under the overlap scheduler the last
    sampled token too after `stop`), not read from the scheduler here: this checks the tree."""

    def __init__(self, page: int, overlap: bool) -> None:
        from sglang.srt.mem_cache.radix_cache import RadixCache

        self.tree = RadixCache.create_simulated(None, page_size=page)
        self.overlap = overlap

    def serve(self, turn: Turn) -> int:
        from array import array

        from sglang.srt.mem_cache.base_prefix_cache import InsertParams, MatchPrefixParams
        from sglang.srt.mem_cache.radix_cache import RadixKey

        extra = turn.lora[0] if turn.lora is not None else None
        key = RadixKey(array("q", turn.prompt), extra_key=extra, limit=max(len(turn.prompt) - 1, 0), cache_salt=turn.salt)
        cached = self.tree.match_prefix(MatchPrefixParams(key=key)).device_prefix_len
        tokens = [*turn.prompt, *turn.generated]
        if self.overlap and turn.last is not None and turn.finish != "length":
            tokens.append(turn.last)
        self.tree.insert(InsertParams(key=RadixKey(array("q", tokens), extra_key=extra, cache_salt=turn.salt)))
        return cached


def sglang_rows(args) -> int:
    from prefixlint.engines.profiles import get_profile
    from prefixlint.engines.simulators import RadixSimulator

    print(f"{'sglang tree':>12} {'seed':>5} {'page':>5} {'overlap':>7} {'requests':>8} {'cached (SGLang)':>15} {'differ':>6}")
    differ_total = 0
    for seed in map(int, args.seeds.split(",")):
        turns = traffic(seed, args.requests)
        for page in map(int, args.blocks.split(",")):
            for overlap in (True, False):
                oracle = SglangTreeOracle(page, overlap)
                theirs = [oracle.serve(t) for t in turns]
                sim = RadixSimulator(get_profile("sglang", page), None, None, overlap)
                ours = [sim.serve(request_of(n, t)).cached_tokens for n, t in enumerate(turns, 1)]
                differ = sum(a != b for a, b in zip(theirs, ours))
                differ_total += differ
                print(f"{'unbounded':>12} {seed:>5} {page:>5} {str(overlap):>7} {len(turns):>8} {sum(theirs):>15,} {differ:>6}",
                      flush=True)
    print(f"sglang: {differ_total} requests differ")
    return differ_total


def sglang_pool_rows(args) -> int:
    """Bounded SGLang: its own tree, allocator and allocation calls (oracle_sglang_pool.py) against
    prefixlint's `RadixSimulator` at the same pool, per request (None: refused)."""
    from oracle_sglang_pool import SglangPoolOracle

    from prefixlint.engines.profiles import get_profile
    from prefixlint.engines.simulators import RadixSimulator

    print(f"{'sglang pool':>12} {'seed':>5} {'page':>5} {'overlap':>7} {'tokens':>8} {'requests':>8} {'refused':>7}"
          f" {'cached (SGLang)':>15} {'differ':>6}")
    differ_total = 0
    for seed in map(int, args.seeds.split(",")):
        turns = traffic(seed, args.requests)
        for page in map(int, args.blocks.split(",")):
            for pool, blocks in zip(args.pools.split(","), pools(turns, page, args.pools)):
                capacity = (blocks if blocks is not None else 3 * working_set(turns, page) + 4096) * page
                for overlap in (True, False):
                    oracle = SglangPoolOracle(page, capacity, overlap)
                    theirs = [oracle.serve(t) for t in turns]
                    sim = RadixSimulator(get_profile("sglang", page), capacity, None, overlap)
                    ours = []
                    for n, t in enumerate(turns, 1):
                        outcome = sim.serve(request_of(n, t))
                        ours.append(None if outcome.over_capacity else outcome.cached_tokens)
                    differ = sum(a != b for a, b in zip(theirs, ours))
                    differ_total += differ
                    print(f"{pool:>12} {seed:>5} {page:>5} {str(overlap):>7} {capacity:>8} {len(turns):>8}"
                          f" {theirs.count(None):>7} {sum(x or 0 for x in theirs):>15,} {differ:>6}", flush=True)
                    if differ:
                        first = next(i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b)
                        print(f"      first difference at request {first + 1}: SGLang {theirs[first]}, prefixlint {ours[first]}")
    print(f"sglang pools: {differ_total} requests differ")
    return differ_total


def prefixlint_cached(turns: list[Turn], block: int, capacity: int | None) -> list[int | None]:
    from prefixlint.engines.simulators import VllmSimulator

    sim = VllmSimulator(block, capacity)
    out: list[int | None] = []
    for number, t in enumerate(turns, 1):
        outcome = sim.serve(request_of(number, t))
        out.append(None if outcome.over_capacity else outcome.cached_tokens)
        # A request larger than the whole pool (vLLM refuses it: None) still counts the
        # blocks its lookup found in a replay's total, and in the curve's.
        BOUNDED_TOTAL[0] += outcome.cached_tokens
    return out


#: The bounded replay's total cached tokens of the last `prefixlint_cached` run.
BOUNDED_TOTAL = [0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--seeds", default="11,12")
    parser.add_argument("--blocks", default="1,16,64")
    parser.add_argument("--pools", default="0.05,0.1,0.2,0.4,0.6,unbounded")
    parser.add_argument("--no-vllm", action="store_true",
                        help="without vLLM installed: only the curves against prefixlint's bounded replays")
    parser.add_argument("--sglang", action="store_true", help="only SGLang's own tree (unbounded), with and without overlap")
    parser.add_argument("--sglang-pools", action="store_true",
                        help="only bounded SGLang: its own tree, token allocator and allocation calls at each pool")
    args = parser.parse_args()
    if args.sglang_pools:
        sys.exit(1 if sglang_pool_rows(args) else 0)
    if args.no_vllm:
        sys.exit(1 if curves(args, bounded_totals(args)) else 0)
    if args.sglang:
        sys.exit(1 if sglang_rows(args) else 0)
    print(f"{'seed':>5} {'block':>5} {'pool':>10} {'blocks':>7} {'requests':>8} {'cached (vLLM)':>13} {'differ':>6}")
    total = differ_total = 0
    vllm_totals: dict[tuple[int, int], dict[int, int]] = {}
    for seed in map(int, args.seeds.split(",")):
        turns = traffic(seed, args.requests)
        for block in map(int, args.blocks.split(",")):
            need = working_set(turns, block)
            for pool, capacity in zip(args.pools.split(","), pools(turns, block, args.pools)):
                oracle = VllmOracle(block, (capacity if capacity is not None else 3 * need + 4096) + 1)  # + the null block
                theirs = [oracle.serve(t) for t in turns]
                BOUNDED_TOTAL[0] = 0
                ours = prefixlint_cached(turns, block, capacity if capacity is not None else None)
                differ = sum(a != b for a, b in zip(theirs, ours))
                total += len(turns)
                differ_total += differ
                cached = sum(x or 0 for x in theirs)
                if capacity is not None:  # equal to vLLM's on every request it served (the row above)
                    vllm_totals.setdefault((seed, block), {})[capacity] = BOUNDED_TOTAL[0]
                print(f"{seed:>5} {block:>5} {pool:>10} {capacity or need:>7} {len(turns):>8} {cached:>13,} {differ:>6}",
                      flush=True)
                if differ:
                    first = next(i for i, (a, b) in enumerate(zip(theirs, ours)) if a != b)
                    print(f"      first difference at request {first + 1}: vLLM {theirs[first]}, prefixlint {ours[first]}")
    print(f"all: {total} requests compared, {differ_total} differ")
    curve_differ = curves(args, vllm_totals)
    sys.exit(1 if differ_total or curve_differ else 0)


def request_of(number: int, t: Turn):
    from prefixlint.engines.request import Request

    return Request(number, "", t.prompt, t.generated, t.last, t.salt, lora=t.lora, finish_reason=t.finish)


def pools(turns: list[Turn], block: int, shares: str) -> list[int | None]:
    """The pool sizes in blocks, each a share of the working set (None: unbounded)."""
    need = working_set(turns, block)
    return [None if pool == "unbounded" else max(2, int(need * float(pool))) for pool in shares.split(",")]


def bounded_totals(args) -> dict[tuple[int, int], dict[int, int]]:
    totals: dict[tuple[int, int], dict[int, int]] = {}
    for seed in map(int, args.seeds.split(",")):
        turns = traffic(seed, args.requests)
        for block in map(int, args.blocks.split(",")):
            for capacity in pools(turns, block, args.pools):
                if capacity is not None:
                    BOUNDED_TOTAL[0] = 0
                    prefixlint_cached(turns, block, capacity)
                    totals.setdefault((seed, block), {})[capacity] = BOUNDED_TOTAL[0]
    return totals


def curves(args, vllm_totals: dict) -> int:
    """`--curve` against bounded replays at each pool: vLLM's curve against the bounded block pool
    (equal to vLLM's manager on every request, above), SGLang's (with and without the overlap
    scheduler) against prefixlint's bounded tree."""
    from prefixlint.engines.curve import CurveSimulator
    from prefixlint.engines.profiles import get_profile
    from prefixlint.engines.radix_curve import RadixCurve
    from prefixlint.engines.simulators import RadixSimulator

    print(f"{'curve':>12} {'seed':>5} {'page':>5} {'capacities':>10} {'differ':>6}")
    differ_total = 0
    for (seed, block), totals in vllm_totals.items():
        requests = [request_of(n, t) for n, t in enumerate(traffic(seed, args.requests), 1)]
        at = sorted(c * block for c in totals)
        sim = CurveSimulator(block, at)
        for r in requests:
            sim.serve(r)
        points = {p["cache_tokens"]: p["cached_tokens"] for p in sim.curve(at)}
        differ = sum(points[c * block] != totals[c] for c in totals)
        print(f"{'vllm':>12} {seed:>5} {block:>5} {len(totals):>10} {differ:>6}", flush=True)
        differ_total += differ
        profile = get_profile("sglang", block)
        for overlap in (True, False):
            curve = RadixCurve(profile, None, overlap, at)
            for r in requests:
                curve.serve(r)
            points = {p["cache_tokens"]: p["cached_tokens"] for p in curve.curve(at)}
            differ = 0
            for capacity in at:
                bounded = RadixSimulator(profile, capacity, None, overlap)
                differ += points[capacity] != sum(bounded.serve(r).cached_tokens for r in requests)
            name = "sglang" + (" overlap" if overlap else "")
            print(f"{name:>12} {seed:>5} {block:>5} {len(at):>10} {differ:>6}", flush=True)
            differ_total += differ
    print(f"curves: {differ_total} capacities differ")
    return differ_total


if __name__ == "__main__":
    main()
