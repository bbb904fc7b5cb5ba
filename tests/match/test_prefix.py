"""The exact-token matcher against brute force, on random sequences over small alphabets."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.match.prefix import Match, PrefixCache, _common, shared_prefix
from tests.oracles import naive_shared_prefix as brute_shared

# Two or three symbols make long shared prefixes and collisions the common case.
tokens = st.lists(st.integers(min_value=0, max_value=2), max_size=40)


def brute_match(cached: list[list[int]], query: list[int]) -> Match:
    """The longest shared prefix with any cached sequence, and which one to compare against:
    the most recent of those sharing it that go on past it, else the most recent of them."""
    if not cached:
        return Match(0, None)
    lengths = [brute_shared(c, query) for c in cached]
    best = max(lengths)
    sharing = [i for i, n in enumerate(lengths) if n == best]
    onward = [i for i in sharing if len(cached[i]) > best]
    return Match(best, max(onward) if onward else max(sharing))


@st.composite
def related_pair(draw):
    """Two sequences with a common head of any length, up to a few thousand tokens."""
    head = draw(st.lists(st.integers(0, 1), max_size=3000))
    cut = draw(st.integers(0, len(head)))
    return head, head[:cut] + draw(st.lists(st.integers(0, 2), max_size=5))


@given(related_pair())
def test_shared_prefix_is_the_brute_force_count(pair):
    a, b = pair
    assert shared_prefix(a, b) == brute_shared(a, b) == shared_prefix(b, a)


@given(tokens, tokens, st.integers(0, 40), st.integers(0, 40), st.integers(0, 80))
def test_common_run_at_any_offsets(a, b, i, j, limit):
    i, j = min(i, len(a)), min(j, len(b))
    limit = min(limit, len(a) - i, len(b) - j)
    assert _common(a, i, b, j, limit) == brute_shared(a[i:i + limit], b[j:j + limit])


@settings(max_examples=300)
@given(st.lists(tokens, max_size=15), tokens)
def test_prefix_cache_agrees_with_brute_force_request_by_request(sequences, extra):
    cache = PrefixCache()
    for number, sequence in enumerate(sequences):
        assert cache.longest_match(sequence) == brute_match(sequences[:number], sequence)
        assert cache.insert(sequence) == number
    assert cache.longest_match(extra) == brute_match(sequences, extra)
    assert len(cache) == len(sequences)


@given(st.lists(st.lists(st.integers(0, 1), min_size=1, max_size=60), min_size=1, max_size=8))
def test_match_and_insert_is_match_then_insert(sequences):
    one, two = PrefixCache(), PrefixCache()
    for sequence in sequences:
        found = one.longest_match(sequence)
        one.insert(sequence)
        assert two.match_and_insert(sequence) == found


def test_other_prefers_the_request_that_goes_on_differently():
    cache = PrefixCache()
    cache.insert([1, 2, 3, 4])   # 0: goes on past [1, 2]
    cache.insert([1, 2])         # 1: ends at [1, 2]
    assert cache.longest_match([1, 2, 9]) == Match(2, 0)
    cache.insert([1, 2, 5])      # 2: also goes on, more recent
    assert cache.longest_match([1, 2, 9]) == Match(2, 2)
    assert cache.longest_match([1, 2]) == Match(2, 2)
    assert cache.longest_match([1, 2, 3, 4, 5]) == Match(4, 0)  # 0 ends there: nothing goes on
    assert cache.longest_match([7]) == Match(0, 2)
    assert PrefixCache().longest_match([1]) == Match(0, None)


def test_tuples_and_lists_match_each_other():
    # A tuple slice never equals a list slice: the cache must not care which one it is given.
    cache = PrefixCache()
    cache.insert((1, 2, 3, 4))
    cache.insert([1, 2, 3, 5])
    assert cache.longest_match((1, 2, 3, 4, 9)).length == 4
    assert cache.longest_match([1, 2, 9]).length == 2
    assert shared_prefix((1, 2, 3), [1, 2, 4]) == 2


@given(st.text(alphabet="ab\n", max_size=300), st.text(alphabet="ab\n", max_size=300))
def test_strings_share_the_characters_a_naive_count_finds(a, b):
    assert shared_prefix(a, b) == brute_shared(a, b)
