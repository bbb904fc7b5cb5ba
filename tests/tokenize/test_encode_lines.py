"""`TiktokenTokenizer.encode_lines` (line-by-line tokenization with reuse) gives exactly `encode`.

The measurement reuses the ids of lines already tokenized; that is only allowed because the cut
points (a line break followed by a letter) never fall inside a pre-tokenizer piece of the
tiktoken encodings prefixlint ships. These tests compare against tokenizing the whole text.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.tokenize import load_tokenizer
from prefixlint.tokenize.tiktoken_family import LINE_START, line_pieces

ENCODINGS = ("o200k_base", "cl100k_base", "o200k_harmony")
SAMPLES = Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture(scope="module", params=ENCODINGS)
def tokenizer(request):
    return load_tokenizer(request.param)


# What meets at a line start: whitespace runs ending in line breaks (\r\n too), punctuation
# that o200k_base glues to following line breaks and `/`, digits, contractions, accented and
# CJK letters, combining marks, and special-token text.
PIECES = st.sampled_from([
    "\n", "\n\n", "\r\n", " ", "  ", "\t", " \n", "?", "?\n", ".\n/", "/", "//", ":", "-", "'s", "'ll",
    "a", "The", "x", "é", "É", "日本", "ß", "\u0301", "7", "2024", "<|endoftext|>", "<|im_start|>",
    "<|endofprompt|>", "{{ name }}", "  - item", "# Title", "`", "```\n",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=40))
def test_line_by_line_ids_are_the_ids_of_the_whole_text(tokenizer, parts):
    text = "".join(parts)
    assert tokenizer.encode_lines(text, {}) == tokenizer.encode(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(PIECES, max_size=12).map("".join), min_size=2, max_size=4))
def test_a_shared_cache_across_texts_changes_no_ids(tokenizer, texts):
    cache: dict[str, list[int]] = {}
    for text in texts:
        assert tokenizer.encode_lines(text, cache) == tokenizer.encode(text)


def test_the_cuts_fall_only_after_a_line_break_and_before_a_letter():
    text = "one\ntwo\n\nThree\n 4\n5\n/x\n\u00e9t\u00e9\n_y"
    assert LINE_START.split(text) == ["one\n", "two\n\n", "Three\n 4\n5\n/x\n", "\u00e9t\u00e9\n_y"]
    assert line_pieces(text) == LINE_START.split(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.just("\n"), st.sampled_from(["a", "\u00e9", "1", "_", " ", "/"]), st.text(max_size=4)),
                max_size=30))
def test_line_pieces_cut_where_line_start_does(parts):
    text = "".join(parts)
    assert line_pieces(text) == LINE_START.split(text)


def test_every_sample_tokenizes_the_same_line_by_line(tokenizer):
    texts = [path.read_text(encoding="utf-8") for path in sorted(SAMPLES.rglob("*")) if path.is_file()]
    assert len(texts) >= 10
    for text in texts:
        assert tokenizer.encode_lines(text, {}) == tokenizer.encode(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.just("\n"), st.text(max_size=6)), max_size=30))
def test_arbitrary_unicode_lines_tokenize_the_same(tokenizer, parts):
    text = "".join(parts)
    assert tokenizer.encode_lines(text, {}) == tokenizer.encode(text)
