"""Mistral tokenizers (Tekken and SentencePiece) through mistral-common, an optional extra.

`pip install "prefixlint[mistral]"` (mistral-common with sentencepiece). The names `tekken`
and `mistral-tekken` pick the newest Tekken file that mistral-common itself ships, so they
work offline.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from prefixlint.errors import PrefixlintError
from prefixlint.tokenize.base import BaseTokenizer
from prefixlint.tokenize.bytelevel import char_offset_from_bytes

SHIPPED_TEKKEN = "tekken_240911.json"
INSTALL_HINT = 'install the extra: pip install "prefixlint[mistral]" (mistral-common and sentencepiece)'


def is_tekken_file(path: Path) -> bool:
    return path.suffix == ".json" and path.name.startswith("tekken")


def is_sentencepiece_file(path: Path) -> bool:
    return ".model" in path.name and not path.name.endswith(".json")


def available() -> bool:
    """Whether mistral-common is installed (found without importing it)."""
    import importlib.util

    return importlib.util.find_spec("mistral_common") is not None


def shipped_tekken_path() -> Path:
    try:
        import mistral_common
    except ImportError:
        raise PrefixlintError("the Mistral tokenizers need mistral-common", hint=INSTALL_HINT) from None
    return Path(mistral_common.__file__).parent / "data" / SHIPPED_TEKKEN


class MistralTokenizer(BaseTokenizer):
    family = "mistral"

    def __init__(self, path: Path, name: str | None = None) -> None:
        from prefixlint.limits import regular_file

        regular_file(path)
        #: mistral-common's Tekkenizer or SentencePieceTokenizer (imported only here): the same methods.
        self._tokenizer: Any
        try:
            if is_tekken_file(path):
                from mistral_common.tokens.tokenizers.tekken import Tekkenizer

                self._tokenizer = Tekkenizer.from_file(str(path))
            else:
                import sentencepiece  # noqa: F401  (mistral-common's optional dependency)
                from mistral_common.tokens.tokenizers.sentencepiece import SentencePieceTokenizer

                self._tokenizer = SentencePieceTokenizer(str(path))
        except ImportError:
            raise PrefixlintError("the Mistral tokenizers need mistral-common", hint=INSTALL_HINT) from None
        except Exception as exc:  # mistral-common raises assorted errors on a bad file
            raise PrefixlintError(f"not a Mistral tokenizer file: {exc}", path=str(path)) from None
        self.name = name or str(path)
        self.path = path
        #: The SentencePiece processor for offsets and pieces (None for Tekken); Any: the code
        #: calls 0.2.0's `out_type="immutable_proto"`, which newer versions' stubs do not list.
        self._pieces: Any = None
        if not is_tekken_file(path):
            import sentencepiece

            self._pieces = sentencepiece.SentencePieceProcessor(model_file=str(path))

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        return list(self._tokenizer.encode(text, bos=add_special_tokens, eos=False))

    def char_offset(self, text: str, ids: Sequence[int], index: int) -> int:
        if index <= 0:
            return 0
        if index >= len(ids):
            return len(text)
        bos = self._tokenizer.bos_id
        if self._pieces is not None:
            return self._sentencepiece_offset(text, ids, index, bos)
        count = sum(len(self._tekken_bytes(i)) for i in ids[:index] if i != bos)
        return min(char_offset_from_bytes(text, count), len(text))

    def _sentencepiece_offset(self, text: str, ids: Sequence[int], index: int, bos: int) -> int:
        # SentencePiece pieces do not add up to the text: the first word gets a dummy-prefix
        # '\u2581' that is not in the text, and byte-fallback pieces are spelled `<0x0A>`.
        # The processor itself knows where each piece starts in the input.
        position = index - (1 if ids and ids[0] == bos else 0)
        if position <= 0:
            return 0
        try:  # sentencepiece >= 0.2.1: character offsets
            starts = [begin for begin, _ in self._pieces.encode(text, return_type="offset_mapping")["offsets"]]
        except (TypeError, ValueError):  # 0.2.0: byte offsets in an immutable proto
            pieces = self._pieces.encode(text, out_type="immutable_proto").pieces
            starts = [char_offset_from_bytes(text, piece.begin) for piece in pieces]
        return starts[position] if position < len(starts) else len(text)

    def _tekken_bytes(self, token_id: int) -> bytes:
        try:
            return self._tokenizer.id_to_byte_piece(token_id)
        except Exception:  # an id outside the vocabulary
            return b""

    def token_text(self, token_id: int) -> str:
        if self._pieces is None:
            from mistral_common.tokens.tokenizers.base import SpecialTokenPolicy

            try:
                piece = self._tokenizer.id_to_byte_piece(token_id, SpecialTokenPolicy.KEEP)
            except Exception:
                return "\ufffd"
            return piece.decode("utf-8", errors="replace")
        sp = self._pieces
        spelled = sp.id_to_piece(token_id)
        if sp.is_byte(token_id):  # byte fallback: <0x0A> is the byte 0x0a
            return bytes([int(spelled[3:-1], 16)]).decode("utf-8", errors="replace")
        if sp.is_control(token_id) or sp.is_unknown(token_id):
            return spelled
        return spelled.replace("\u2581", " ")
