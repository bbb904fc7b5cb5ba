"""Engines other than vLLM in a replay: an unlimited radix cache plus the profile's rounding.

For every profile but `vllm` the replay does not model the engine's memory: each request
reuses `profile.reusable_tokens(shared, prompt_len)` of the longest token prefix it shares
with any earlier request's prompt and generated tokens (`PrefixCache`, never evicted), the
rounding of `prefixlint.match.profiles`. A `cache_salt` gets its own tree, so salted
requests only match requests with the same salt.
"""

from __future__ import annotations

from array import array
from typing import Sequence

from prefixlint.match.blockpool import Miss, Outcome
from prefixlint.match.prefix import PrefixCache
from prefixlint.match.profiles import EngineProfile

#: Tokens of the cached side kept for a divergence sample.
SAMPLE_TOKENS = 16


class ProfilePrefixCache:
    def __init__(self, profile: EngineProfile) -> None:
        self.profile = profile
        self.evicted_blocks = 0
        self._trees: dict[str | None, tuple[PrefixCache, list[array]]] = {}

    def serve(self, prompt: Sequence[int], generated: Sequence[int] = (), salt: str | None = None) -> Outcome:
        tree, sequences = self._trees.setdefault(salt, (PrefixCache(), []))
        found = tree.longest_match(prompt)
        seq = list(prompt) + list(generated)
        tree.insert(seq)
        sequences.append(array("q", seq))
        shared = found.length
        miss = None
        if shared < len(prompt):
            key = (salt, hash(tuple(prompt[:shared])))
            other = sequences[found.other] if found.other is not None else None
            if other is None or shared >= len(other) or shared == 0:
                miss = Miss("new", shared, key, ())
            else:
                miss = Miss("diverged", shared, key, tuple(other[shared:shared + SAMPLE_TOKENS]))
        return Outcome(self.profile.reusable_tokens(shared, len(prompt)), miss)
