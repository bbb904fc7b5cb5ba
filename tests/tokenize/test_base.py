"""The tokenizer contract: every adapter implements the whole `Tokenizer` Protocol."""

from __future__ import annotations

import inspect

import pytest

from prefixlint.tokenize import BaseTokenizer, Tokenizer, load_tokenizer
from tests.realfiles import model_dir, real_file

MEMBERS = {"name", "family", "chat_template", "path", "config", "encode", "encode_lines", "char_offset",
           "token_text", "token_id"}


def test_the_protocol_declares_every_member_callers_use():
    declared = set(Tokenizer.__annotations__) | {
        name for name, value in vars(Tokenizer).items() if inspect.isfunction(value) and not name.startswith("_")}
    assert declared == MEMBERS


@pytest.mark.parametrize("family", ["tiktoken", "huggingface", "mistral"])
def test_every_adapter_implements_the_protocol(family, tmp_path):
    spec = {"tiktoken": "o200k_base", "mistral": str(real_file("tekken")),
            "huggingface": str(model_dir(tmp_path, "llama3/tokenizer.json") / "tokenizer.json")}[family]
    tokenizer = load_tokenizer(spec, offline=True)
    assert isinstance(tokenizer, BaseTokenizer) and isinstance(tokenizer, Tokenizer)
    assert tokenizer.family == family
    ids = tokenizer.encode("Hello world\nagain")
    assert tokenizer.encode_lines("Hello world\nagain", {}) == ids
    assert tokenizer.char_offset("Hello world\nagain", ids, 1) == 5  # " world" starts after "Hello"
    assert tokenizer.token_text(ids[0]) == "Hello"


def test_the_defaults_of_the_base_class():
    tiktoken = load_tokenizer("o200k_base")
    assert tiktoken.path is None and dict(tiktoken.config) == {} and tiktoken.chat_template is None
    assert tiktoken.token_id("<|endoftext|>") is None  # no lookup by text for this family


def test_a_hugging_face_tokenizer_finds_a_token_by_its_text(tmp_path):
    llama = load_tokenizer(str(model_dir(tmp_path, "llama3/tokenizer.json")), offline=True)
    assert llama.token_id("<|begin_of_text|>") == 128000  # Llama 3's BOS, from its tokenizer.json
    assert llama.path == tmp_path / "model" / "tokenizer.json"
