"""tiktoken encodings: shipped rank files, tiktoken's own cache, offline loading, model aliases."""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
from importlib import resources

import pytest
import tiktoken
import tiktoken.load
import tiktoken.registry
import tiktoken_ext.openai_public

from prefixlint.tokenize import load_tokenizer, tiktoken_family
from prefixlint.tokenize.registry import encoding_for
from prefixlint.tokenize.tiktoken_family import RANK_FILES, TiktokenTokenizer

TEXT = "What's your refund policy?"


def tiktoken_expectations() -> dict[str, tuple[str, str]]:
    """encoding -> (rank file URL, sha256), as tiktoken's own constructors ask for them."""
    seen: dict[str, tuple[str, str]] = {}

    def capture(url, expected_hash=None):
        seen["last"] = (url, expected_hash)
        return {b"a": 0}

    original = tiktoken_ext.openai_public.load_tiktoken_bpe
    tiktoken_ext.openai_public.load_tiktoken_bpe = capture
    try:
        found = {}
        for name in ("o200k_base", "cl100k_base"):
            getattr(tiktoken_ext.openai_public, name)()
            found[name] = seen["last"]
        return found
    finally:
        tiktoken_ext.openai_public.load_tiktoken_bpe = original


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """No network, no encodings already built by tiktoken, a cache dir of our own."""
    def no_network(blobpath: str) -> bytes:
        if "://" in blobpath:
            raise AssertionError(f"tried to download {blobpath}")
        with open(blobpath, "rb") as f:
            return f.read()

    monkeypatch.setattr(tiktoken.load, "read_file", no_network)
    monkeypatch.setattr(tiktoken.registry, "ENCODINGS", {})
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))
    return tmp_path / "tiktoken-cache"


def spy_read_file_cached(monkeypatch) -> list[str]:
    calls: list[str] = []
    original = tiktoken.load.read_file_cached

    def spy(blobpath, expected_hash=None):
        calls.append(blobpath)
        return original(blobpath, expected_hash)

    monkeypatch.setattr(tiktoken.load, "read_file_cached", spy)
    return calls


@pytest.mark.parametrize("name", ["o200k_base", "cl100k_base"])
def test_shipped_rank_file_has_the_sha256_tiktoken_expects(name):
    url, sha256 = tiktoken_expectations()[name]
    blob = resources.files("prefixlint.tokenize").joinpath("data", f"{name}.tiktoken.gz").read_bytes()
    assert hashlib.sha256(gzip.decompress(blob)).hexdigest() == sha256
    assert (RANK_FILES[name].url, RANK_FILES[name].sha256) == (url, sha256)


def test_o200k_base_sha256_is_the_published_one():
    assert RANK_FILES["o200k_base"].sha256 == "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"


def test_first_load_seeds_tiktokens_cache_and_loads_through_get_encoding(fresh, monkeypatch):
    calls = spy_read_file_cached(monkeypatch)
    tok = TiktokenTokenizer("o200k_base")
    url = RANK_FILES["o200k_base"].url
    cached = fresh / hashlib.sha1(url.encode()).hexdigest()
    assert cached.is_file()
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == RANK_FILES["o200k_base"].sha256
    assert calls == [url]  # tiktoken read it through its own cache lookup
    assert len(tok.encode(TEXT)) == 5
    assert os.environ["TIKTOKEN_CACHE_DIR"] == str(fresh)  # the user's setting is left as it was


def test_a_verified_file_already_in_the_cache_is_used(fresh, monkeypatch):
    rank = RANK_FILES["cl100k_base"]
    fresh.mkdir()
    cached = fresh / hashlib.sha1(rank.url.encode()).hexdigest()
    cached.write_bytes(gzip.decompress(
        resources.files("prefixlint.tokenize").joinpath("data", rank.shipped).read_bytes()))
    os.utime(cached, (1_000_000, 1_000_000))

    def shipped_must_not_be_needed(_rank):
        raise AssertionError("the shipped copy was read although the cache held a verified file")

    monkeypatch.setattr(tiktoken_family, "shipped_ranks", shipped_must_not_be_needed)
    tok = TiktokenTokenizer("cl100k_base")
    assert len(tok.encode(TEXT)) == 6
    assert cached.stat().st_mtime == 1_000_000


def test_a_corrupt_cache_file_is_replaced_from_the_shipped_copy_without_network(fresh):
    rank = RANK_FILES["o200k_base"]
    fresh.mkdir()
    cached = fresh / hashlib.sha1(rank.url.encode()).hexdigest()
    cached.write_bytes(b"not a rank file\n")
    tok = TiktokenTokenizer("o200k_base")  # `fresh` makes any download raise
    assert hashlib.sha256(cached.read_bytes()).hexdigest() == rank.sha256
    assert len(tok.encode(TEXT)) == 5


def test_an_empty_tiktoken_cache_dir_still_works_offline(fresh, monkeypatch, tmp_path):
    # tiktoken reads "" as "no cache": it would download. prefixlint uses a private directory.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    tok = TiktokenTokenizer("o200k_base")
    assert len(tok.encode(TEXT)) == 5
    assert os.environ["TIKTOKEN_CACHE_DIR"] == ""
    private = tmp_path / "tmp" / f"prefixlint-tiktoken-{os.getuid()}"
    assert (private / hashlib.sha1(RANK_FILES["o200k_base"].url.encode()).hexdigest()).is_file()


def test_o200k_harmony_is_built_from_the_o200k_base_rank_file(fresh):
    tok = TiktokenTokenizer("o200k_harmony")
    plain = tiktoken.get_encoding("o200k_base")  # the same ranks, through the seeded cache
    assert tok.encode(TEXT) == plain.encode(TEXT)
    # harmony's special tokens are parsed from text, as a server parses a rendered prompt
    assert tok.encode("<|start|>user<|message|>hi<|end|>")[0] == 200006
    assert tok.encode("<|channel|>") == [200005]


ALIASES = {
    "gpt-4o": "o200k_base", "gpt-4.1": "o200k_base", "gpt-5": "o200k_base", "o1": "o200k_base",
    "o3": "o200k_base", "o4-mini": "o200k_base", "gpt-oss-20b": "o200k_harmony",
    "gpt-oss-120b": "o200k_harmony", "gpt-4": "cl100k_base", "gpt-3.5-turbo": "cl100k_base",
}


@pytest.mark.parametrize("alias, encoding", sorted(ALIASES.items()))
def test_model_aliases_resolve_as_the_issue_and_tiktoken_say(alias, encoding):
    assert encoding_for(alias) == encoding
    assert tiktoken.encoding_name_for_model(alias) == encoding
    tok = load_tokenizer(alias)
    assert (tok.family, tok.name) == ("tiktoken", encoding)


def test_dated_snapshots_and_case_fall_back_to_tiktokens_table():
    assert encoding_for("gpt-4o-2024-08-06") == "o200k_base"
    assert encoding_for("O200K_BASE") == "o200k_base"
    assert encoding_for("openai/gpt-4.1") == "o200k_base"
    assert encoding_for("text-davinci-003") is None


def test_char_offsets_and_token_text_are_exact_for_multibyte_text():
    tok = load_tokenizer("o200k_base")
    enc = tiktoken.get_encoding("o200k_base")
    text = "naïve café 🙂 東京\n\tend"
    ids = tok.encode(text)
    assert ids == enc.encode(text)
    raw = text.encode("utf-8")
    for index in range(len(ids) + 1):
        consumed = len(b"".join(enc.decode_single_token_bytes(i) for i in ids[:index]))
        offset = tok.char_offset(text, ids, index)
        # the offset is the character that holds the token's first byte
        assert len(text[:offset].encode("utf-8")) <= consumed
        assert consumed < len(text[: offset + 1].encode("utf-8")) or offset == len(text)
        if _whole(raw, consumed):  # a token boundary on a character boundary: exact
            assert text[:offset].encode("utf-8") == raw[:consumed]
    assert tok.token_text(enc.encode(" café")[0]) == enc.decode([enc.encode(" café")[0]])


def _whole(raw: bytes, count: int) -> bool:
    try:
        raw[:count].decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False
