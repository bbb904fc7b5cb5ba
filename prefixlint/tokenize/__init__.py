"""Tokenizers: one small interface, one adapter module per family, loaded lazily by name.

Importing this package imports no tokenizer library; `load_tokenizer` imports the one adapter
that a name needs, when it is needed.
"""

from __future__ import annotations

from typing import Protocol, Sequence


class Tokenizer(Protocol):
    """What every adapter offers: exact ids, and a way back from a token index to the text."""

    #: What the user named, resolved (`o200k_base`, `Qwen/Qwen2.5-7B-Instruct`, a path).
    name: str
    #: `tiktoken`, `huggingface` or `mistral`.
    family: str
    #: The model's chat template (Jinja source) when the tokenizer files carry one.
    chat_template: str | None

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        """Token ids of `text` as the server would produce them; special-token text is parsed."""

    def char_offset(self, text: str, ids: Sequence[int], index: int) -> int:
        """Character offset in `text` where token `index` of `ids` (= encode(text)) starts."""

    def token_text(self, token_id: int) -> str:
        """One token shown as text (undecodable byte pieces are shown with U+FFFD)."""


def load_tokenizer(spec: str, *, offline: bool = False) -> Tokenizer:
    """Resolve `spec` (an encoding, a model alias, a path or a hub id) to a loaded tokenizer."""
    from prefixlint.tokenize.registry import load

    return load(spec, offline=offline)


DEFAULT_TOKENIZER = "o200k_base"
