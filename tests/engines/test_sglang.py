"""SGLang's radix tree against a plain one written from SGLang's algorithm (sglang_reference.py),
and the touched-leaf regression worked by hand. The hand-worked cases below were also served to
SGLang 0.5.23 itself (its RadixCache and token allocator on the CPU, benchmarks/oracle_sglang_pool.py):
the same cached tokens and pool use at every step."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.engines.profiles import get_profile
from prefixlint.engines.radix import RadixLRU
from tests.engines.sglang_reference import PlainRadixCache

SGLANG = get_profile("sglang")


def test_an_exact_repeat_splits_a_one_token_leaf_that_can_still_be_evicted():
    cache = RadixLRU(SGLANG, capacity_tokens=14)  # prompts of 8 tokens or more refused
    a, b = [1, 2, 3, 4], [5, 6, 7, 8, 9, 10, 11]
    assert cache.serve(a, a).cached_tokens == 0
    # The repeat matches 3 tokens (input_len - 1): the leaf [1,2,3,4] splits into [1,2,3] -> [4],
    # and the insert touches [4] again. It must stay evictable.
    assert cache.serve(a, a).cached_tokens == 3
    c = [20, 21, 22, 23, 24]
    assert cache.serve(c, c).cached_tokens == 0  # 5 slots, 10 free: 9 tokens cached
    # b needs 7 slots, 5 are free: the shortfall, evict(2), takes [4] (1 token, the oldest
    # leaf), then its parent [1,2,3] (3), now a leaf and older than c.
    assert cache.serve(b, b).cached_tokens == 0
    assert (cache.size, cache.evicted_blocks) == (12, 4)
    assert cache.serve(c + [0], c + [0]).cached_tokens == 5  # c survived
    assert cache.serve(a, a).cached_tokens == 0  # a was evicted whole (the old heap kept it: 3)


def test_eviction_frees_the_shortfall_and_a_reply_before_its_prompt():
    """SGLang 0.5.23 evicts `num_tokens - available_size()` (mem_cache/allocator/base.py:166-168),
    and `RadixCache.checkpoint` splits a finished request's leaf at its prompt
    (`_insert_cache(split_prompt=True)`, mem_cache/radix_cache.py:482-496), so the reply is a leaf
    of its own: evicted first, the prompt kept."""
    cache = RadixLRU(SGLANG, capacity_tokens=16)
    p, reply, q = [1, 2, 3, 4, 5, 6, 7, 8], [20, 21, 22, 23], [30, 31, 32, 33, 34, 35, 36, 37]
    cache.serve(p, p + reply)  # the tree: [P] -> [reply], 12 tokens
    # 8 slots wanted, 4 free: evict(4) takes the reply leaf (4 tokens), not P with it.
    assert cache.serve(q, q).cached_tokens == 0
    assert (cache.size, cache.evicted_blocks) == (16, 4)
    # P is still cached (the whole allocation, evict(8), or one P+reply leaf would have lost it).
    assert cache.serve(p + [9], p + [9]).cached_tokens == 8
    # 1 slot wanted, none free: evict(1) takes q's leaf (8 tokens); P is locked by the match.
    assert (cache.size, cache.evicted_blocks) == (9, 12)


def test_a_paged_decode_step_evicts_a_page_whenever_no_page_is_free():
    """`alloc_paged_token_slots_decode` asks for a page at every decode step
    (mem_cache/allocation.py:582-585), whether or not the step starts one: with no free page a
    mid-page step evicts a page's worth."""
    cache = RadixLRU(SGLANG.with_block_size(4), capacity_tokens=24)
    cache.serve([1, 2, 3, 4], [1, 2, 3, 4])
    cache.serve([5, 6, 7, 8], [5, 6, 7, 8])  # 8 of 24 slots held
    # Prefill: 4 + one page wanted, 16 free. Decode pages start at positions 4, 8, 12; the
    # last one takes the last free page, so the step at position 13 (mid-page) evicts [1..4].
    prompt = [9, 10, 11, 12]
    assert cache.serve(prompt, prompt + list(range(13, 25))).cached_tokens == 0
    assert (cache.size, cache.evicted_blocks) == (20, 1)  # 4 + 16 tokens, one page evicted
    assert cache.serve([5, 6, 7, 8, 0], [5, 6, 7, 8, 0]).cached_tokens == 4
    assert cache.serve([1, 2, 3, 4, 0], [1, 2, 3, 4, 0]).cached_tokens == 0


def test_a_prompt_too_long_for_the_pool_is_refused_unseen():
    """`max_req_input_len = min(context_len - 1, pool - 1) - 5` (managers/tp_worker.py:568-572):
    a prompt that long is refused before it is queued (managers/scheduler.py:3231), never looked
    up, so it reports no cached tokens even where its prefix is cached."""
    cache = RadixLRU(SGLANG, capacity_tokens=16)
    nine = list(range(1, 10))
    assert cache.serve(nine, nine).over_capacity is False  # 9 < 16 - 6
    outcome = cache.serve(nine + [0], nine + [0])  # 10 tokens: refused
    assert (outcome.cached_tokens, outcome.over_capacity, cache.size) == (0, True, 9)
    assert cache.serve(nine + [1], nine + [1]).cached_tokens == 0  # refused too: 10 tokens
    assert cache.serve(nine[:8] + [0], nine[:8] + [0]).cached_tokens == 8


tokens = st.lists(st.integers(0, 3), min_size=1, max_size=12)


@st.composite
def traffic(draw):
    """Requests over a tiny vocabulary: shared prefixes, exact repeats, replies, adapters."""
    served = []
    for _ in range(draw(st.integers(1, 25))):
        if served and draw(st.booleans()):
            prompt, _, _ = draw(st.sampled_from(served))  # a retry or an extension of an earlier one
            prompt = prompt[:draw(st.integers(1, len(prompt)))] + draw(st.lists(st.integers(0, 3), max_size=6))
        else:
            prompt = draw(tokens)
        served.append((prompt, draw(st.lists(st.integers(0, 3), max_size=8)), draw(st.sampled_from([None, "a"]))))
    return served


@settings(max_examples=300, deadline=None)
@given(traffic(), st.integers(1, 40), st.sampled_from([1, 2, 4]))
def test_every_request_matches_the_plain_tree(requests, capacity, page):
    profile = SGLANG.with_block_size(page)
    capacity *= page
    mine, plain = RadixLRU(profile, capacity), PlainRadixCache(capacity, page)
    for prompt, generated, adapter in requests:
        seq = prompt + generated
        outcome = mine.serve(prompt, seq, adapter)
        matched, over = plain.serve(prompt, seq, adapter)
        assert (outcome.cached_tokens, outcome.over_capacity) == (matched, over)
        assert mine.size == plain.size


def test_an_adapter_keys_its_own_tree():
    cache = RadixLRU(SGLANG)
    p = list(range(10))
    cache.serve(p, p, ("sql", "/adapters/sql"))
    assert cache.serve(p + [1], p + [1], None).cached_tokens == 0
    assert cache.serve(p + [1], p + [1], ("sql", "/adapters/sql")).cached_tokens == 10
