"""Published facts about the two OpenAI encodings, through prefixlint's own loading path."""

from prefixlint.match.prefix import shared_prefix
from prefixlint.tokenize import load_tokenizer

A = "What's your refund policy?"
B = "What is your refund policy?"


def test_o200k_base_splits_the_contraction_into_one_token():
    tok = load_tokenizer("o200k_base")
    a, b = tok.encode(A), tok.encode(B)
    assert (len(a), len(b), shared_prefix(a, b)) == (5, 6, 0)
    assert [tok.token_text(i) for i in a[:1] + b[:1]] == ["What's", "What"]


def test_cl100k_base_shares_the_first_word():
    tok = load_tokenizer("cl100k_base")
    a, b = tok.encode(A), tok.encode(B)
    assert (len(a), len(b), shared_prefix(a, b)) == (6, 6, 1)
