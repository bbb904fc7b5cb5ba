"""The vLLM prefix-cache simulator: worked examples, hand-traced evictions, and properties
against brute-force references."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.engines.blockpool import VllmPrefixCache
from tests.oracles import naive_shared_prefix as _shared

BASE = list(range(1000, 3003))


def test_worked_examples_of_engines_md():
    # docs/engines.md: each row checked against vLLM's own KVCacheManager, block 16.
    for capacity in (None, 100_000):
        cache = VllmPrefixCache(16, capacity)
        served = [
            cache.serve(BASE[:2003]),                # cold
            cache.serve(BASE[:2002] + [1, 2]),       # shares 2,002 -> 2,000
            cache.serve(BASE[:2000]),                # cap 1,999 -> 1,984
            cache.serve([7] + BASE[:2000]),          # one token prepended -> 0
            cache.serve(BASE[:37]),
            cache.serve(BASE[:33]),
            cache.serve(BASE[:32]),                  # cap 31 -> 16
        ]
        assert [s.cached_tokens for s in served] == [0, 2000, 1984, 0, 32, 32, 16]


def test_a_salt_isolates_through_the_whole_chain():
    cache = VllmPrefixCache(4)
    prompt = list(range(20))
    assert cache.serve(prompt, salt="alice").cached_tokens == 0
    assert cache.serve(prompt, salt="bob").cached_tokens == 0
    assert cache.serve(prompt).cached_tokens == 0  # no salt is a salt of its own
    assert cache.serve(prompt, salt="alice").cached_tokens == 16  # (20 - 1) // 4 blocks
    assert cache.serve(prompt, salt="bob").cached_tokens == 16


def test_generated_blocks_are_cached_as_they_fill():
    cache = VllmPrefixCache(4)
    cache.serve([1, 2, 3, 4, 5, 6], generated=[7, 8, 9, 10, 11, 12])  # 12 tokens: 3 full blocks
    follow_up = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
    assert cache.serve(follow_up).cached_tokens == 12


def test_eviction_order_traced_by_hand():
    # Block size 4, four usable blocks (ids 1-4; 0 is the null block). Free queue head first.
    cache = VllmPrefixCache(4, capacity_blocks=4)
    a = [10, 11, 12, 13, 14, 15, 16, 17, 18]  # 9 tokens: 2 full blocks + 1 partial
    b = [20, 21, 22, 23, 24, 25, 26, 27, 28]
    assert cache.free_queue() == [1, 2, 3, 4]
    assert cache.serve(a).cached_tokens == 0
    # A held blocks 1, 2 (cached) and 3 (partial). Freed tail first: the unhashed 3 goes to
    # the head, then the hashed 2 before 1 at the tail.
    assert cache.free_queue() == [3, 4, 2, 1]
    assert cache.serve(b).cached_tokens == 0
    # B popped 3, 4 and 2 (evicting A's second block), cached 3 and 4, left 2 partial.
    assert cache.free_queue() == [2, 1, 4, 3]
    assert cache.evicted_blocks == 1
    again = cache.serve(a)
    # A's first block (block 1) survived, its second was evicted: 4 tokens, and the miss says so.
    assert again.cached_tokens == 4
    assert (again.miss.kind, again.miss.position) == ("evicted", 4)
    # A touched 1 and popped 2 (B's unhashed partial) and 4 (evicting B's second block); its
    # second block is now 2, its partial one 4: freed as 4 to the head, then 2 and 1 at the tail.
    assert cache.free_queue() == [4, 3, 2, 1]
    assert cache.evicted_blocks == 2
    assert cache.serve(b).cached_tokens == 4  # B's first block (3) is still there


def test_a_request_larger_than_the_cache_is_not_cached():
    cache = VllmPrefixCache(4, capacity_blocks=2)
    outcome = cache.serve(list(range(9)))  # needs 3 blocks
    assert outcome.over_capacity and outcome.cached_tokens == 0
    assert cache.free_queue() == [1, 2] and cache.cached_blocks() == 0


def test_duplicate_blocks_are_kept_not_deduplicated():
    cache = VllmPrefixCache(4, capacity_blocks=8)
    cache.serve(list(range(8)))
    # Exactly the same 8 tokens: the cap (7) allows one block; the second is computed again
    # into a new block with the same hash, and vLLM keeps both.
    assert cache.serve(list(range(8))).cached_tokens == 4
    assert cache.cached_blocks() == 3


def test_divergence_is_located_inside_the_block():
    cache = VllmPrefixCache(16)
    cache.serve(BASE[:40])
    outcome = cache.serve(BASE[:21] + [5] * 30)
    assert outcome.cached_tokens == 16
    assert (outcome.miss.kind, outcome.miss.position) == ("diverged", 21)
    assert outcome.miss.other_tokens == tuple(BASE[21:32])
    cold = cache.serve([9] * 40)
    assert cold.miss.kind == "new" and cold.cached_tokens == 0


# --- properties --------------------------------------------------------------------------

requests = st.lists(
    st.tuples(
        st.lists(st.integers(0, 2), min_size=1, max_size=24),  # prompt
        st.lists(st.integers(0, 2), max_size=8),               # generated
        st.sampled_from([None, None, "s"]),                    # salt
    ),
    min_size=1, max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(requests, st.integers(1, 5))
def test_unlimited_hit_is_the_block_rounded_longest_shared_prefix(log, block):
    cache = VllmPrefixCache(block)
    earlier: list[tuple[list[int], str | None]] = []
    for prompt, generated, salt in log:
        best = max((_shared(prompt, seq) for seq, s in earlier if s == salt), default=0)
        expected = min(best // block, (len(prompt) - 1) // block) * block
        assert cache.serve(prompt, generated, salt).cached_tokens == expected
        earlier.append((prompt + generated, salt))


class ReferencePool:
    """vLLM's BlockPool written the plain way: lists, a dict of lists, exact chain keys."""

    def __init__(self, block, capacity):
        self.block = block
        self.free = list(range(1, capacity + 1))
        self.key = {}  # block id -> chain key
        self.table = {}  # chain key -> [block ids in caching order]

    def serve(self, prompt, generated, salt):
        seq = prompt + generated
        keys, parent = [], ("root",)
        for i in range(len(seq) // self.block):
            parent = (parent, tuple(seq[i * self.block:(i + 1) * self.block]), salt if i == 0 else None)
            keys.append(parent)
        hits = []
        for k in keys[: (len(prompt) - 1) // self.block]:
            if not self.table.get(k):
                break
            hits.append(self.table[k][0])
        needed = -(-len(seq) // self.block)
        if needed > len(self.free):  # served one at a time: the whole pool is free
            return 0  # refused: never served (vLLM rejects it), so nothing is served from cache
        for h in hits:
            self.free.remove(h)
        blocks = list(hits)
        while len(blocks) < needed:
            b = self.free.pop(0)
            if b in self.key:
                self.table[self.key[b]].remove(b)
                del self.key[b]
            blocks.append(b)
        for i in range(len(hits), len(keys)):
            self.key[blocks[i]] = keys[i]
            self.table.setdefault(keys[i], []).append(blocks[i])
        released = list(reversed(blocks))
        fresh = [b for b in released if b not in self.key]
        self.free = fresh + self.free + [b for b in released if b in self.key]
        return len(hits) * self.block


@settings(max_examples=150, deadline=None)
@given(requests, st.integers(1, 4), st.integers(1, 12))
def test_bounded_pool_matches_a_plain_reference(log, block, capacity):
    cache = VllmPrefixCache(block, capacity)
    reference = ReferencePool(block, capacity)
    for prompt, generated, salt in log:
        assert cache.serve(prompt, generated, salt).cached_tokens == reference.serve(prompt, generated, salt)
        assert cache.free_queue() == reference.free


@settings(max_examples=100, deadline=None)
@given(requests, st.integers(1, 4), st.integers(1, 12))
def test_a_bounded_cache_never_beats_an_unlimited_one(log, block, capacity):
    bounded, unlimited = VllmPrefixCache(block, capacity), VllmPrefixCache(block)
    for prompt, generated, salt in log:
        assert bounded.serve(prompt, generated, salt).cached_tokens <= unlimited.serve(prompt, generated, salt).cached_tokens


@settings(max_examples=100, deadline=None)
@given(requests, st.sampled_from(["sglang", "trtllm", "lmcache", "openai"]))
def test_other_profiles_round_the_longest_shared_prefix(log, engine):
    from prefixlint.engines.profiles import get_profile
    from prefixlint.engines.radix import RadixLRU

    profile = get_profile(engine, block_size=4 if engine != "openai" else None)
    cache = RadixLRU(profile)
    earlier: list[tuple[list[int], str | None]] = []
    for prompt, generated, salt in log:
        best = max((_shared(prompt, seq) for seq, s in earlier if s == salt), default=0)
        assert cache.serve(prompt, prompt + generated, salt).cached_tokens == profile.reusable_tokens(best, len(prompt))
        earlier.append((prompt + generated, salt))


def test_hit_blocks_at_the_head_of_the_queue_are_not_taken_as_new_blocks():
    # Block size 4, four usable blocks. A's first block (1) is a hit for C while it sits
    # among the head blocks C takes as new ones: vLLM takes it out of the queue first.
    cache = VllmPrefixCache(4, capacity_blocks=4)
    a = [10, 11, 12, 13, 14, 15, 16, 17, 18]
    b = [20, 21, 22, 23, 24, 25, 26, 27, 28]
    cache.serve(a)
    cache.serve(b)
    assert cache.free_queue() == [2, 1, 4, 3]  # traced in test_eviction_order_traced_by_hand
    c = a[:4] + [30, 31, 32, 33, 34, 35, 36, 37, 38]  # 13 tokens: hit A's first block, 3 new
    assert cache.serve(c).cached_tokens == 4
    # The queue without block 1 is [2, 4, 3]: C takes 2 (unhashed), 4 (evicting B's second
    # block) and 3 (evicting B's first). Freed: the partial 3 to the head, then 4 (C's third
    # block), 2 (its second) and 1 (its first) at the tail.
    assert cache.free_queue() == [3, 4, 2, 1]
    assert cache.evicted_blocks == 3
    again = cache.serve(b)
    assert again.cached_tokens == 0 and (again.miss.kind, again.miss.position) == ("evicted", 0)


prefixes = st.lists(st.integers(0, 3), min_size=1, max_size=30)
shared_requests = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 30), st.lists(st.integers(0, 3), max_size=10),
              st.lists(st.integers(0, 3), max_size=10), st.sampled_from([None, None, None, "s"])),
    min_size=1, max_size=25,
)


@settings(max_examples=150, deadline=None)
@given(st.lists(prefixes, min_size=3, max_size=3), shared_requests, st.integers(1, 4), st.integers(1, 40))
def test_bounded_pool_matches_the_reference_on_shared_prefixes(bases, log, block, capacity):
    # Traffic shaped like the benchmark's: requests share one of three prefixes (cut
    # anywhere) and add their own tokens, repeat one another, and outgrow small caches.
    cache = VllmPrefixCache(block, capacity)
    reference = ReferencePool(block, capacity)
    for which, cut, own, generated, salt in log:
        prompt = (bases[which][:cut] + own) or [0]
        assert cache.serve(prompt, generated, salt).cached_tokens == reference.serve(prompt, generated, salt)
        assert cache.free_queue() == reference.free
        assert sorted(cache.free_queue()) == list(range(1, capacity + 1))  # every block is free again
        assert cache.cached_blocks() == len(reference.key)


def test_a_duplicate_takes_over_its_hash_when_the_first_block_is_evicted():
    cache = VllmPrefixCache(4, capacity_blocks=3)
    a = list(range(8))  # two full blocks, A0 and A1
    cache.serve(a)  # A0 in block 1, A1 in block 2; the unused 3 stays at the head
    assert cache.free_queue() == [3, 2, 1]
    assert cache.serve(a).cached_tokens == 4  # the cap (7 tokens) reaches A0 only
    # A1 computed again into block 3, a duplicate of block 2: both stay cached.
    assert cache.free_queue() == [2, 3, 1] and cache.cached_blocks() == 3
    cache.serve([9] * 5)  # takes 2 (A1's first copy: block 3 holds A1 now) and 3 (the last copy)
    assert cache.evicted_blocks == 2 and cache.cached_blocks() == 2  # A0 and the new block
    again = cache.serve(a + [8])  # 9 tokens: the cap reaches A1, evicted with both copies
    assert again.cached_tokens == 4
    assert (again.miss.kind, again.miss.position) == ("evicted", 4)
