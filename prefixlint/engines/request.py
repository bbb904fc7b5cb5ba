"""One request as a simulator sees it: tokens (a request log) or block ids (a hashed-block trace)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Hashable, Sequence


@dataclass(slots=True)  # not frozen (but never changed): a frozen one is built ~9 times slower
class Request:
    line: int
    group: str
    #: Prompt token ids (empty for a hashed-block trace, whose size is `input_length`).
    prompt: Sequence[int] = ()
    #: Generated tokens whose KV was computed: all but the last one sampled.
    generated: Sequence[int] = ()
    #: The token sampled last, whose KV vLLM never computes (the stop token, or the last
    #: text token of a reply cut by length); SGLang's overlap scheduler computes it.
    last_sampled: int | None = None
    salt: str | None = None
    #: The request's LoRA adapter, `(name, path)` (vLLM's extra key of every block, SGLang's
    #: `extra_key`); None: the base model.
    lora: Hashable | None = None
    #: A trace's `hash_ids`: one id per block of `block_size` prompt tokens, the last one
    #: possibly partial. None for token requests.
    block_ids: Sequence[int] | None = None
    input_length: int | None = None
    output_length: int = 0
    #: Seconds since any fixed origin (a trace's milliseconds / 1000); None: no clock.
    timestamp: float | None = None
    #: The engine does not look the prompt up (vLLM: prompt_logprobs; SGLang: echo+logprobs).
    skip_lookup: bool = False
    reported_cached_tokens: int | None = None
    #: What a session router keys on: `user`, `metadata.session_id` or a trace's `chat_id`.
    session: str | None = None
    #: Seconds the request was in flight, when the log says (a router's load).
    duration: float | None = None
    #: Why generation ended (`stop`, `length`, ...; None: unknown, taken as a stop): SGLang's
    #: overlap scheduler caches `last_sampled` after a stop only.
    finish_reason: str | None = None

    @property
    def prompt_tokens(self) -> int:
        return self.input_length if self.input_length is not None else len(self.prompt)

    @property
    def generated_tokens(self) -> int:
        return len(self.generated) if self.block_ids is None else self.output_length
