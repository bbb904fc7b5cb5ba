"""Resolve a `--tokenizer` name to an adapter: encodings, model aliases, paths, hub ids.

Tried in this order, and the error names each step that was tried:
1. a tiktoken encoding (`o200k_base`, `cl100k_base`, `o200k_harmony`) or an OpenAI model name;
2. a Mistral name (`tekken`, `mistral-tekken`) or `mistral:PATH`;
3. a local path: a tokenizer.json, a directory holding one, a Tekken json or a SentencePiece model;
4. a Hugging Face hub id (`org/name`, optionally `@revision`), through huggingface_hub's cache.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from prefixlint.errors import PrefixlintError
from prefixlint.tokenize import Tokenizer
from prefixlint.tokenize.base import TokenTexts

TIKTOKEN_ENCODINGS = ("o200k_base", "cl100k_base", "o200k_harmony")

# OpenAI model names -> encoding. Longer prefixes (dated snapshots) fall back to tiktoken's table.
MODEL_ALIASES = {
    "gpt-4o": "o200k_base",
    "gpt-4o-mini": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4.1-mini": "o200k_base",
    "gpt-4.1-nano": "o200k_base",
    "gpt-5": "o200k_base",
    "gpt-5-mini": "o200k_base",
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o3-mini": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-oss-20b": "o200k_harmony",
    "gpt-oss-120b": "o200k_harmony",
    "gpt-4": "cl100k_base",
    "gpt-4-turbo": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
}
MISTRAL_NAMES = ("tekken", "mistral-tekken")


def encoding_for(name: str) -> str | None:
    """The tiktoken encoding that `name` (an encoding or an OpenAI model name) stands for."""
    key = name.lower().removeprefix("openai/")
    if key in TIKTOKEN_ENCODINGS:
        return key
    if key in MODEL_ALIASES:
        return MODEL_ALIASES[key]
    if key.startswith(("gpt-", "o1-", "o3-", "o4-", "chatgpt-", "ft:")):
        from tiktoken.model import encoding_name_for_model

        try:
            found = encoding_name_for_model(key)
        except KeyError:
            return None
        return found if found in TIKTOKEN_ENCODINGS else None
    return None


def _from_path(path: Path, display: str) -> Tokenizer:
    from prefixlint.tokenize import mistral

    if path.is_dir():
        tekken = sorted(path.glob("tekken*.json"))
        # A Mistral model directory: mistral-common, as vLLM's mistral tokenizer mode does;
        # without mistral-common installed, its tokenizer.json (when it has one) instead.
        if tekken and (mistral.available() or not (path / "tokenizer.json").is_file()):
            return mistral.MistralTokenizer(tekken[-1], display)
    elif mistral.is_tekken_file(path) or mistral.is_sentencepiece_file(path):
        return mistral.MistralTokenizer(path, display)
    from prefixlint.tokenize import huggingface

    return huggingface.from_path(path, display)


@lru_cache(maxsize=None)
def load_texts(spec: str, *, offline: bool = False) -> TokenTexts:
    """`load(spec)` when all that is needed is the text of token ids: for a tiktoken encoding
    its rank file alone (`TiktokenTexts`), which is read in a fraction of the encoder's time."""
    encoding = encoding_for(spec.strip())
    if encoding is not None:
        from prefixlint.tokenize.tiktoken_family import TiktokenTexts

        return TiktokenTexts(encoding)
    return load(spec, offline=offline)


@lru_cache(maxsize=None)
def load(spec: str, *, offline: bool = False) -> Tokenizer:
    """Load once per process: every later call with the same name gets the same object."""
    spec = spec.strip()
    encoding = encoding_for(spec)
    if encoding is not None:
        from prefixlint.tokenize.tiktoken_family import TiktokenTokenizer

        return TiktokenTokenizer(encoding)
    if spec.lower() in MISTRAL_NAMES:
        from prefixlint.tokenize import mistral

        return mistral.MistralTokenizer(mistral.shipped_tekken_path(), spec)
    if spec.startswith("mistral:"):
        from prefixlint.tokenize import mistral

        return mistral.MistralTokenizer(Path(spec.removeprefix("mistral:")).expanduser(), spec)
    path = Path(spec).expanduser()
    if path.exists():
        return _from_path(path, spec)
    from prefixlint.tokenize import huggingface

    if huggingface.is_hub_id(spec):
        repo_id, _, revision = spec.partition("@")
        return huggingface.from_hub(repo_id, offline=offline, revision=revision or None)
    import difflib

    close = difflib.get_close_matches(spec.lower(), [*TIKTOKEN_ENCODINGS, *MISTRAL_NAMES, *MODEL_ALIASES], n=1)
    raise PrefixlintError(
        (f"unknown tokenizer {spec!r} (did you mean {close[0]!r}?)" if close else f"unknown tokenizer {spec!r}") +
        f": it is not a tiktoken encoding ({', '.join(TIKTOKEN_ENCODINGS)}),"
        f" an OpenAI model name, a Mistral name ({', '.join(MISTRAL_NAMES)}), an existing path,"
        " or a Hugging Face hub id (org/name)",
        hint="pass a path to a tokenizer.json or its directory, or a hub id such as"
        " Qwen/Qwen2.5-7B-Instruct (download it once with `hf download Qwen/Qwen2.5-7B-Instruct"
        " tokenizer.json tokenizer_config.json`)",
    )
