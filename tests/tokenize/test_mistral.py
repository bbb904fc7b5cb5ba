"""Mistral tokenizers through mistral-common: Tekken by name and path, SentencePiece offsets."""

from __future__ import annotations

from functools import lru_cache

import pytest
from mistral_common.tokens.tokenizers.sentencepiece import SentencePieceTokenizer
from mistral_common.tokens.tokenizers.tekken import Tekkenizer

from prefixlint.tokenize import load_tokenizer, mistral, registry
from tests.realfiles import real_file

TEXT = "Hello wörld 🙂 line\n\nnext\tTab  spaces, 東京"


@lru_cache(maxsize=None)
def tekken() -> Tekkenizer:
    return Tekkenizer.from_file(str(real_file("tekken")))


@lru_cache(maxsize=None)
def sentencepiece() -> SentencePieceTokenizer:
    return SentencePieceTokenizer(str(real_file("sentencepiece/v7")))


def starts_of(text: str, pieces: list[str]) -> list[int]:
    """Where each of `pieces` (which spell out `text` in order) starts, found by searching."""
    starts, position = [], 0
    for piece in pieces:
        found = text.index(piece, position)
        starts.append(found)
        position = found + len(piece)
    return starts


def test_tekken_by_name_is_the_file_mistral_common_ships():
    tok = load_tokenizer("tekken")
    assert tok.family == "mistral"
    assert tok.path == real_file("tekken")
    assert tok.encode(TEXT) == tekken().encode(TEXT, bos=False, eos=False)
    assert tok.encode(TEXT, add_special_tokens=True) == tekken().encode(TEXT, bos=True, eos=False)


def test_tekken_by_path():
    by_path = load_tokenizer(str(real_file("tekken")))
    assert by_path.family == "mistral"
    assert by_path.encode(TEXT) == tekken().encode(TEXT, bos=False, eos=False)


@pytest.mark.parametrize("bos", [False, True])
def test_tekken_char_offsets_match_the_decoded_prefix(bos):
    tok = load_tokenizer("tekken")
    ids = tok.encode(TEXT, add_special_tokens=bos)
    assert (ids[0] == tekken().bos_id) is bos
    for index in range(len(ids) + 1):
        offset = tok.char_offset(TEXT, ids, index)
        prefix = tekken().decode(ids[:index])
        if "\ufffd" not in prefix:
            assert TEXT[:offset] == prefix, index
    words = ["Hello", " w", " line", "next", "Tab", " spaces", ","]
    for word, start in zip(words, starts_of(TEXT, words)):
        index = [tok.token_text(i) for i in ids].index(word)
        assert tok.char_offset(TEXT, ids, index) == start


def test_sentencepiece_char_offsets_skip_the_dummy_prefix_and_byte_fallback():
    tok = load_tokenizer(str(real_file("sentencepiece/v7")))
    text = "Hello world\n\nnext"
    ids = tok.encode(text)
    assert ids == sentencepiece().encode(text, bos=False, eos=False)
    shown = [tok.token_text(i) for i in ids]
    # '▁Hello' carries a dummy-prefix space; '\n' is a byte-fallback piece <0x0A>
    assert shown == [" Hello", " world", "\n", "\n", "next"]
    assert [tok.char_offset(text, ids, i) for i in range(len(ids) + 1)] == [0, 5, 11, 12, 13, 17]
    assert [tok.char_offset(text, ids, i) for i in range(len(ids) + 1)] == [
        0, text.index(" world"), text.index("\n"), text.index("\n") + 1, text.index("next"), len(text)]


def test_sentencepiece_offsets_with_bos_and_multibyte_text():
    tok = load_tokenizer(str(real_file("sentencepiece/v7")))
    ids = tok.encode(TEXT, add_special_tokens=True)
    assert ids[0] == sentencepiece().bos_id
    assert tok.char_offset(TEXT, ids, 1) == 0
    for index in range(2, len(ids) + 1):
        offset = tok.char_offset(TEXT, ids, index)
        prefix = sentencepiece().decode(ids[:index])
        if "\ufffd" not in prefix:
            assert TEXT[:offset].lstrip(" ") == prefix.lstrip(" "), index


def test_a_directory_with_tekken_json_and_without_mistral_common_falls_back(tmp_path, monkeypatch):
    (tmp_path / "tekken.json").write_bytes(real_file("tekken").read_bytes())
    (tmp_path / "tokenizer.json").write_bytes(real_file("qwen3/tokenizer.json").read_bytes())
    by_dir = load_tokenizer(str(tmp_path))
    assert by_dir.family == "mistral"  # mistral-common first, as vLLM's mistral mode
    assert by_dir.encode(TEXT) == tekken().encode(TEXT, bos=False, eos=False)
    monkeypatch.setattr(mistral, "available", lambda: False)
    assert registry._from_path(tmp_path, str(tmp_path)).family == "huggingface"
