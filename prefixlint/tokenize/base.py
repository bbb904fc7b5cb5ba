"""The tokenizer contract: the `Tokenizer` Protocol every adapter implements, and `BaseTokenizer`,
which gives the optional members their defaults.

Callers use these members and nothing else, without probing (`getattr`/`hasattr`): a new
tokenizer family is one module with a class derived from `BaseTokenizer` that sets `name` and
`family` and implements `encode`, `char_offset` and `token_text` (see docs/architecture.md).
"""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping, Protocol, Sequence, runtime_checkable


@runtime_checkable
class Tokenizer(Protocol):
    """What every adapter offers: exact ids, and a way back from a token index to the text."""

    #: What the user named, resolved (`o200k_base`, `Qwen/Qwen2.5-7B-Instruct`, a path).
    name: str
    #: `tiktoken`, `huggingface` or `mistral`.
    family: str
    #: The model's chat template (Jinja source) when the tokenizer files carry one.
    chat_template: str | None
    #: The tokenizer file it was read from (tokenizer.json, tekken.json ...); None when built in.
    path: Path | None
    #: The model's tokenizer_config.json (special tokens, chat template); empty without one.
    config: Mapping[str, Any]

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        """Token ids of `text` as the server would produce them; special-token text is parsed."""

    def encode_lines(self, text: str, cache: dict[str, list[int]]) -> list[int]:
        """`encode(text)`, reusing `cache` (text piece -> ids) where that is exact for the family."""

    def char_offset(self, text: str, ids: Sequence[int], index: int) -> int:
        """Character offset in `text` where token `index` of `ids` (= encode(text)) starts."""

    def token_text(self, token_id: int) -> str:
        """One token shown as text (undecodable byte pieces are shown with U+FFFD)."""

    def token_id(self, text: str) -> int | None:
        """The id of a token given as its text (a special token such as `<|begin_of_text|>`), or None."""


class TokenTexts(Protocol):
    """What showing token ids as text needs (a report of a token-id log): a tokenizer, or a
    lighter reader of its vocabulary (`prefixlint.tokenize.load_token_texts`)."""

    name: str

    def token_text(self, token_id: int) -> str:
        """One token shown as text, as `Tokenizer.token_text`."""


def shown_token(texts: TokenTexts, token_id: int) -> str:
    """`texts.token_text(token_id)`, or `<token N>` for an id it has no text for (a token-id log
    may hold another model's ids or special ids): shown by number, never an internal error."""
    try:
        return texts.token_text(token_id)
    except (KeyError, ValueError, IndexError, OverflowError, TypeError):
        return f"<token {token_id}>"


class BaseTokenizer:
    """Defaults for the members a family may not have."""

    name: str = ""
    family: str = ""
    chat_template: str | None = None
    path: Path | None = None
    config: Mapping[str, Any] = MappingProxyType({})

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        raise NotImplementedError

    def encode_lines(self, text: str, cache: dict[str, list[int]]) -> list[int]:
        """Without a way to reuse pieces exactly, the whole text (`cache` is left alone)."""
        return self.encode(text)

    def char_offset(self, text: str, ids: Sequence[int], index: int) -> int:
        raise NotImplementedError

    def token_text(self, token_id: int) -> str:
        raise NotImplementedError

    def token_id(self, text: str) -> int | None:
        """No lookup of tokens by text: None."""
        return None
