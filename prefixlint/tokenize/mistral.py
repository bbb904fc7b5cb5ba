"""Mistral tokenizers (Tekken and SentencePiece) through mistral-common, an optional extra.

`pip install "prefixlint[mistral]"`. The names `tekken` and `mistral-tekken` pick the newest
Tekken file that mistral-common itself ships, so they work offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from prefixlint.errors import PrefixlintError
from prefixlint.tokenize.bytelevel import char_offset_from_bytes

SHIPPED_TEKKEN = "tekken_240911.json"
INSTALL_HINT = 'install the extra: pip install "prefixlint[mistral]"'


def is_tekken_file(path: Path) -> bool:
    return path.suffix == ".json" and path.name.startswith("tekken")


def is_sentencepiece_file(path: Path) -> bool:
    return ".model" in path.name and not path.name.endswith(".json")


def shipped_tekken_path() -> Path:
    try:
        import mistral_common
    except ImportError:
        raise PrefixlintError("the Mistral tokenizers need mistral-common", hint=INSTALL_HINT) from None
    return Path(mistral_common.__file__).parent / "data" / SHIPPED_TEKKEN


class MistralTokenizer:
    family = "mistral"
    chat_template = None

    def __init__(self, path: Path, name: str | None = None) -> None:
        try:
            if is_tekken_file(path):
                from mistral_common.tokens.tokenizers.tekken import Tekkenizer

                self._tokenizer = Tekkenizer.from_file(str(path))
            else:
                from mistral_common.tokens.tokenizers.sentencepiece import SentencePieceTokenizer

                self._tokenizer = SentencePieceTokenizer(str(path))
        except ImportError:
            raise PrefixlintError("the Mistral tokenizers need mistral-common", hint=INSTALL_HINT) from None
        except Exception as exc:  # mistral-common raises assorted errors on a bad file
            raise PrefixlintError(f"not a Mistral tokenizer file: {exc}", path=str(path)) from None
        self.name = name or str(path)
        self.path = path

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        return list(self._tokenizer.encode(text, bos=add_special_tokens, eos=False))

    def _piece_bytes(self, token_id: int) -> bytes:
        piece = getattr(self._tokenizer, "id_to_byte_piece", None)
        if piece is not None:
            try:
                return piece(token_id)
            except Exception:
                return b""
        text = self._tokenizer.id_to_piece(token_id).replace("\u2581", " ")
        return text.encode("utf-8")

    def char_offset(self, text: str, ids: Sequence[int], index: int) -> int:
        bos = getattr(self._tokenizer, "bos_id", None)
        count = sum(len(self._piece_bytes(i)) for i in ids[:index] if i != bos)
        return min(char_offset_from_bytes(text, count), len(text))

    def token_text(self, token_id: int) -> str:
        return self._piece_bytes(token_id).decode("utf-8", errors="replace")
