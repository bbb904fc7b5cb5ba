"""SGLang's radix tree against a plain one written from SGLang's algorithm (sglang_reference.py),
and the touched-leaf regression worked by hand."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.engines.profiles import get_profile
from prefixlint.engines.radix import RadixLRU
from tests.engines.sglang_reference import PlainRadixCache

SGLANG = get_profile("sglang")


def test_an_exact_repeat_splits_a_one_token_leaf_that_can_still_be_evicted():
    cache = RadixLRU(SGLANG, capacity_tokens=6)
    a, b = [1, 2, 3, 4], [5, 6, 7, 8]
    assert cache.serve(a, a).cached_tokens == 0
    # The repeat matches 3 tokens (input_len - 1): the leaf [1,2,3,4] splits into [1,2,3] -> [4],
    # and the insert touches [4] again. It must stay evictable.
    assert cache.serve(a, a).cached_tokens == 3
    # b needs 4 slots, 2 are free: evict(4) takes [4] (1 token), then its parent [1,2,3] (3).
    assert cache.serve(b, b).cached_tokens == 0
    assert (cache.size, cache.evicted_blocks) == (4, 4)
    assert cache.serve(a, a).cached_tokens == 0  # a was evicted whole (the old heap kept it: 3)


def test_decode_steps_evict_too():
    cache = RadixLRU(SGLANG, capacity_tokens=10)
    cache.serve([1, 2, 3], [1, 2, 3])  # 3 tokens cached
    cache.serve([4, 5, 6], [4, 5, 6])  # 6
    # A 3-token prompt fits in the 4 free slots (no eviction at prefill); of its 4 decode steps
    # the first takes the last free slot, the second finds none and evicts one step's worth
    # (evict(1)): the oldest leaf, [1,2,3], whole. [4,5,6] survives.
    assert cache.serve([7, 8, 9], [7, 8, 9, 10, 11, 12, 13]).cached_tokens == 0
    assert cache.size == 10 and cache.evicted_blocks == 3
    assert cache.serve([4, 5, 6, 0], [4, 5, 6, 0]).cached_tokens == 3
    # That request (1 new slot, none free) evicted [7..13], the oldest leaf left.
    assert (cache.size, cache.evicted_blocks) == (4, 10)



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
