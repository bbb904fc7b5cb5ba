"""Serving requests in order: shared prefix, reuse and where each request diverges."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.engines.profiles import get_profile
from prefixlint.engines.serve import Prompt, serve_prompts
from prefixlint.tokenize import load_tokenizer
from tests.oracles import naive_shared_prefix as first_difference
from tests.realfiles import tiktoken_encoding

ENC = tiktoken_encoding("o200k_base")


@pytest.fixture(scope="module")
def o200k():
    return load_tokenizer("o200k_base")


def served(tokenizer, *texts, engine="vllm"):
    requests = [Prompt(f"r{i}", text, tokenizer.encode(text)) for i, text in enumerate(texts)]
    return serve_prompts(requests, tokenizer, get_profile(engine))


def test_the_refund_policy_example_diverges_at_the_first_token(o200k):
    first, second = served(o200k, "What's your refund policy?", "What is your refund policy?")
    assert (first.tokens, first.shared_prefix_tokens, first.divergence) == (5, 0, None)
    d = second.divergence
    assert (second.tokens, second.shared_prefix_tokens) == (6, 0)
    assert (d.token_index, d.char_offset, d.other_char_offset, d.other_index) == (0, 0, 0, 0)
    assert (d.token, d.other_token) == ("What", "What's")
    assert (d.token, d.other_token) == (ENC.decode([ENC.encode("What is")[0]]), ENC.decode([ENC.encode("What's")[0]]))


def test_a_break_inside_an_emoji_points_at_the_emoji(o200k):
    a, b = "Price: 💶 100 per month", "Price: 💷 100 per month"
    ia, ib = ENC.encode(a), ENC.encode(b)
    k = first_difference(ia, ib)
    before = len(ENC.decode_bytes(ia[:k]))
    emoji_start = len(a[: a.index("💶")].encode())
    assert emoji_start < before < emoji_start + 4  # the shared tokens end inside the emoji's bytes
    _, second = served(o200k, a, b)
    d = second.divergence
    assert second.shared_prefix_tokens == d.token_index == k
    assert d.char_offset == d.other_char_offset == b.index("💷") == 7
    assert (d.token, d.other_token) == ("💷", "💶")  # not two U+FFFD halves


def test_char_offsets_in_multibyte_text(o200k):
    a, b = "東京の天気は晴れです。", "東京の天気は雨です。"
    ia, ib = ENC.encode(a), ENC.encode(b)
    k = first_difference(ia, ib)
    shared_bytes = ENC.decode_bytes(ia[:k])
    _, second = served(o200k, a, b)
    d = second.divergence
    assert d.token_index == k
    assert b[: d.char_offset].encode() == shared_bytes  # the break sits on a character boundary here
    assert d.char_offset == b.index("雨") == 6
    assert (d.token, d.other_token) == (ENC.decode([ib[k]]), ENC.decode([ia[k]])) == ("雨", "晴")


def test_a_request_that_extends_a_cached_one_has_no_other_token(o200k):
    base = "You are a support agent for Acme."
    first, second = served(o200k, base, base + " Answer in French.")
    d = second.divergence
    assert second.shared_prefix_tokens == len(ENC.encode(base)) == d.token_index
    assert d.char_offset == len(base) and d.other_char_offset == len(base)
    assert d.token == ENC.decode([ENC.encode(base + " Answer in French.")[d.token_index]]) == " Answer"
    assert d.other_token is None


def test_a_request_wholly_cached_has_no_divergence(o200k):
    text = "Summarise the following document."
    _, again, shorter = served(o200k, text, text, text[:9])
    assert again.shared_prefix_tokens == again.tokens == len(ENC.encode(text))
    assert again.divergence is None
    assert shorter.divergence is None and shorter.shared_prefix_tokens == shorter.tokens


def test_the_divergence_is_against_the_most_recent_request_that_goes_on(o200k):
    results = served(o200k, "Ticket 1: printer on fire", "Ticket 2: printer jammed", "Ticket 3: no paper")
    d = results[2].divergence
    assert d.other_index == 1
    assert results[2].shared_prefix_tokens == first_difference(ENC.encode("Ticket 3"), ENC.encode("Ticket 2"))


def test_reusable_tokens_follow_the_engine(o200k):
    system = "You are a careful assistant. " * 20
    a, b = system + "Question one?", system + "Question two?"
    shared = first_difference(ENC.encode(a), ENC.encode(b))
    assert shared > 100
    for engine, expected in [("vllm", shared // 16 * 16), ("sglang", shared), ("lmcache", 0),
                             ("trtllm", shared), ("openai", 0)]:
        assert served(o200k, a, b, engine=engine)[1].reusable_tokens == expected, engine


WORDS = ["You", " are", " a", " helpful", " assistant", ".", "\n", " 🙂", " café", " 東京", "2025", "-", "01", "'s"]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), max_size=12), min_size=2, max_size=5))
def test_divergence_points_at_the_first_different_token_and_the_shared_text(o200k, requests):
    texts = ["".join(words) or "." for words in requests]
    ids = [ENC.encode(text) for text in texts]
    for number, result in enumerate(served(o200k, *texts)):
        shared = max((first_difference(ids[number], earlier) for earlier in ids[:number]), default=0)
        assert result.shared_prefix_tokens == shared
        d = result.divergence
        if d is None:
            assert number == 0 or shared == len(ids[number])
            continue
        assert d.token_index == shared and d.other_index < number
        assert first_difference(ids[number], ids[d.other_index]) == shared
        assert texts[number][: d.char_offset] == texts[d.other_index][: d.other_char_offset]
        consumed = len(ENC.decode_bytes(ids[number][:shared]))
        assert len(texts[number][: d.char_offset].encode()) <= consumed
