"""The tests' own hand-written answers, written once: a naive shared prefix and vLLM's rounding
worked out by hand. Nothing here imports prefixlint, so a test that compares the program with
these compares it with an independent computation."""

from __future__ import annotations

from typing import Sequence


def naive_shared_prefix(a: Sequence, b: Sequence) -> int:
    """Tokens equal at the start of both, counted one by one."""
    n = 0
    while n < len(a) and n < len(b) and a[n] == b[n]:
        n += 1
    return n


def vllm_reusable(shared: int, prompt_tokens: int, block: int = 16) -> int:
    """vLLM by hand: never the prompt's last token (its logits are computed), then whole blocks."""
    usable = min(shared, prompt_tokens - 1)
    return max(usable, 0) // block * block
