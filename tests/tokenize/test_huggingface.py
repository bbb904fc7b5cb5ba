"""Hugging Face tokenizers: a tokenizer.json, a model directory, and hub ids from the hub cache."""

from __future__ import annotations

import json
from functools import lru_cache

import pytest
from huggingface_hub import constants as hub_constants  # imported first: read at import time
from tokenizers import Tokenizer

from prefixlint.errors import PrefixlintError
from prefixlint.render.chat import special_tokens
from prefixlint.tokenize import huggingface, load_tokenizer, registry
from tests.realfiles import hub_cache, model_dir, real_file

TEXT = "You are a helpful assistant.\nWhat's your refund policy? 東京 🙂"


@pytest.fixture(autouse=True)
def offline_and_uncached(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home-unused"))
    monkeypatch.delenv("HF_HUB_CACHE", raising=False)
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)


@pytest.fixture
def forget_loaded():
    """Hub ids are loaded once per process; these tests change the cache under the same id."""
    registry.load.cache_clear()
    yield
    registry.load.cache_clear()


@lru_cache(maxsize=None)
def direct(key: str) -> Tokenizer:
    return Tokenizer.from_file(str(real_file(key)))


@pytest.mark.parametrize("key", ["qwen3/tokenizer.json", "llama3/tokenizer.json", "deepseek-r1/tokenizer.json"])
def test_a_tokenizer_json_path_gives_the_ids_of_the_tokenizers_library(key):
    tok = load_tokenizer(str(real_file(key)))
    expected = direct(key).encode(TEXT, add_special_tokens=False).ids
    assert tok.family == "huggingface"
    assert tok.encode(TEXT) == expected
    assert len(expected) > 10
    assert [tok.token_text(i) for i in expected[:3]] == [direct(key).decode([i]) for i in expected[:3]]


def test_qwen3_and_llama3_tokenize_the_same_text_differently():
    qwen = load_tokenizer(str(real_file("qwen3/tokenizer.json"))).encode(TEXT)
    llama = load_tokenizer(str(real_file("llama3/tokenizer.json"))).encode(TEXT)
    assert qwen != llama


def test_a_model_directory_reads_the_chat_template_and_bos_eos(tmp_path):
    directory = model_dir(tmp_path, "qwen3/tokenizer.json", "qwen3/tokenizer_config.json")
    config = json.loads(real_file("qwen3/tokenizer_config.json").read_text())
    tok = load_tokenizer(str(directory))
    assert tok.chat_template == config["chat_template"]
    assert "<|im_start|>" in tok.chat_template
    assert config["bos_token"] is None
    assert special_tokens(tok)["eos_token"] == config["eos_token"] == "<|im_end|>"
    assert tok.token_id("<|im_end|>") == direct("qwen3/tokenizer.json").token_to_id("<|im_end|>")
    assert tok.config == config


def test_bos_and_eos_given_as_added_token_dicts(tmp_path):
    directory = model_dir(tmp_path, "deepseek-r1/tokenizer.json", "deepseek-r1/tokenizer_config.json")
    config = json.loads(real_file("deepseek-r1/tokenizer_config.json").read_text())
    tok = load_tokenizer(str(directory))
    bos = special_tokens(tok)["bos_token"]
    assert bos == config["bos_token"]["content"] == "<｜begin▁of▁sentence｜>"
    assert special_tokens(tok)["eos_token"] == config["eos_token"]["content"]
    assert tok.token_id(bos) == direct("deepseek-r1/tokenizer.json").token_to_id(bos)
    assert tok.chat_template == config["chat_template"]


def test_a_chat_template_jinja_file_beside_the_tokenizer_wins(tmp_path):
    directory = model_dir(tmp_path, "qwen3/tokenizer.json", "qwen3/tokenizer_config.json",
                          chat_template="template/qwen2.5")
    assert load_tokenizer(str(directory)).chat_template == real_file("template/qwen2.5").read_text()


def test_a_directory_without_tokenizer_json_is_a_clear_error(tmp_path):
    with pytest.raises(PrefixlintError, match="no tokenizer.json in this directory") as caught:
        load_tokenizer(str(tmp_path))
    assert caught.value.path == str(tmp_path)


def test_a_file_that_is_not_a_tokenizer_is_a_clear_error(tmp_path):
    bogus = tmp_path / "tokenizer.json"
    bogus.write_text('{"not": "a tokenizer"}')
    with pytest.raises(PrefixlintError, match="not a Hugging Face tokenizer.json") as caught:
        load_tokenizer(str(bogus))
    assert caught.value.path == str(bogus)


def test_char_offsets_point_at_each_tokens_text():
    tok = load_tokenizer(str(real_file("qwen3/tokenizer.json")))
    direct_tok = direct("qwen3/tokenizer.json")
    ids = tok.encode(TEXT)
    for index in range(1, len(ids)):
        offset = tok.char_offset(TEXT, ids, index)
        prefix = direct_tok.decode(ids[:index])
        if "\ufffd" not in prefix:  # the token boundary is a character boundary
            assert TEXT[:offset] == prefix
    assert tok.char_offset(TEXT, ids, len(ids)) == len(TEXT)


# --- hub ids, resolved from a hub-cache layout that `hf download` would leave ------------------

def test_a_qwen3_hub_id_resolves_from_HF_HUB_CACHE_after_huggingface_hub_was_imported(tmp_path, monkeypatch, forget_loaded):
    cache = hub_cache(tmp_path / "hub", "Qwen/Qwen3-8B", {
        "tokenizer.json": real_file("qwen3/tokenizer.json"),
        "tokenizer_config.json": real_file("qwen3/tokenizer_config.json"),
    })
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    assert hub_constants.HF_HUB_CACHE != str(cache)  # so the adapter must read the env
    tok = load_tokenizer("Qwen/Qwen3-8B")
    config = json.loads(real_file("qwen3/tokenizer_config.json").read_text())
    assert (tok.family, tok.name) == ("huggingface", "Qwen/Qwen3-8B")
    assert tok.encode(TEXT) == direct("qwen3/tokenizer.json").encode(TEXT, add_special_tokens=False).ids
    assert tok.chat_template == config["chat_template"]
    assert tok.path.is_relative_to(cache)


def test_a_llama3_hub_id_resolves_from_HF_HOME(tmp_path, monkeypatch, forget_loaded):
    home = tmp_path / "hf-home"
    hub_cache(home / "hub", "meta-llama/Meta-Llama-3-8B", {"tokenizer.json": real_file("llama3/tokenizer.json")})
    monkeypatch.setenv("HF_HOME", str(home))
    tok = load_tokenizer("meta-llama/Meta-Llama-3-8B")
    assert tok.encode(TEXT) == direct("llama3/tokenizer.json").encode(TEXT, add_special_tokens=False).ids
    assert tok.chat_template is None  # no tokenizer_config.json in that cache


def test_a_hub_id_at_a_commit(tmp_path, monkeypatch, forget_loaded):
    commit = "0123456789abcdef0123456789abcdef01234567"
    cache = hub_cache(tmp_path / "hub", "Qwen/Qwen3-8B", {"tokenizer.json": real_file("qwen3/tokenizer.json")},
                      commit=commit)
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    tok = load_tokenizer(f"Qwen/Qwen3-8B@{commit}")
    assert tok.name == f"Qwen/Qwen3-8B@{commit}"
    assert commit in str(tok.path)


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_a_hub_id_absent_from_the_cache_offline_says_how_to_download_it(tmp_path, monkeypatch, forget_loaded, how):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    if how == "flag":
        monkeypatch.delenv("HF_HUB_OFFLINE")
    with pytest.raises(PrefixlintError) as caught:
        load_tokenizer("acme/not-downloaded", offline=(how == "flag"))
    message = str(caught.value)
    assert "'acme/not-downloaded'" in message and "hub id" in message
    assert str(tmp_path / "empty-hub") in message and "offline" in message
    assert "hf download acme/not-downloaded tokenizer.json tokenizer_config.json" in caught.value.hint
    assert "path" in caught.value.hint


def test_hub_cache_dir_follows_the_environment_in_huggingface_hubs_order(monkeypatch, tmp_path):
    monkeypatch.delenv("HF_HOME")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert huggingface.hub_cache_dir() == str(tmp_path / "xdg" / "huggingface" / "hub")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "home"))
    assert huggingface.hub_cache_dir() == str(tmp_path / "home" / "hub")
    monkeypatch.setenv("HUGGINGFACE_HUB_CACHE", str(tmp_path / "legacy"))
    assert huggingface.hub_cache_dir() == str(tmp_path / "legacy")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "new"))
    assert huggingface.hub_cache_dir() == str(tmp_path / "new")


def test_a_cached_hub_id_is_used_without_contacting_the_hub_even_online(tmp_path, monkeypatch, forget_loaded):
    from huggingface_hub import file_download

    def no_network(*args, **kwargs):
        raise AssertionError("the hub was contacted for a cached tokenizer")

    monkeypatch.setattr(file_download, "get_hf_file_metadata", no_network)
    monkeypatch.delenv("HF_HUB_OFFLINE")
    cache = hub_cache(tmp_path / "hub", "Qwen/Qwen3-8B", {
        "tokenizer.json": real_file("qwen3/tokenizer.json"),
        "tokenizer_config.json": real_file("qwen3/tokenizer_config.json"),
    })
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    tok = load_tokenizer("Qwen/Qwen3-8B")
    assert tok.chat_template == json.loads(real_file("qwen3/tokenizer_config.json").read_text())["chat_template"]


def test_online_without_a_network_the_error_says_it_could_not_download(tmp_path, monkeypatch, forget_loaded):
    from huggingface_hub import file_download
    from huggingface_hub.errors import OfflineModeIsEnabled

    def unreachable(*args, **kwargs):
        raise OfflineModeIsEnabled("no network in this test")

    monkeypatch.setattr(file_download, "get_hf_file_metadata", unreachable)
    monkeypatch.setattr(huggingface, "_unreachable_hub", lambda: None)  # past the TCP probe, no network used
    monkeypatch.delenv("HF_HUB_OFFLINE")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(PrefixlintError, match="could not be downloaded") as caught:
        load_tokenizer("acme/not-downloaded")
    assert "hf download acme/not-downloaded" in caught.value.hint
