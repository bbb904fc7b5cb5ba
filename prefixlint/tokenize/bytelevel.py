"""Offsets for byte-level tokenizers: from a token index back to a character offset."""

from __future__ import annotations


def char_offset_from_bytes(text: str, byte_count: int) -> int:
    """Characters of `text` wholly covered by its first `byte_count` UTF-8 bytes.

    A token that starts inside a multi-byte character is said to start at that character.
    """
    if byte_count <= 0:
        return 0
    head = text.encode("utf-8")[:byte_count]
    return len(head.decode("utf-8", errors="ignore"))
