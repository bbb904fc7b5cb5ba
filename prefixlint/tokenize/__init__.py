"""Tokenizers: one small interface, one adapter module per family, loaded lazily by name.

Importing this package imports no tokenizer library; `load_tokenizer` imports the one adapter
that a name needs, when it is needed.
"""

from __future__ import annotations

from prefixlint.tokenize.base import BaseTokenizer, Tokenizer, TokenTexts

__all__ = ["BaseTokenizer", "Tokenizer", "TokenTexts", "load_tokenizer", "load_token_texts", "DEFAULT_TOKENIZER"]


def load_tokenizer(spec: str, *, offline: bool = False) -> Tokenizer:
    """Resolve `spec` (an encoding, a model alias, a path or a hub id) to a loaded tokenizer."""
    from prefixlint.tokenize.registry import load

    return load(spec, offline=offline)


def load_token_texts(spec: str, *, offline: bool = False) -> TokenTexts:
    """What shows the ids of `spec`'s tokenizer as text, at the least cost: a tiktoken
    encoding's vocabulary read from its rank file (no encoder built), else the tokenizer."""
    from prefixlint.tokenize.registry import load_texts

    return load_texts(spec, offline=offline)


DEFAULT_TOKENIZER = "o200k_base"
