"""Multi-turn reuse: each request of a conversation against what the earlier ones cached.

For turn k the cache holds the prompt of every earlier turn and, as a serving engine keeps
the KV of generated tokens, the tokens of the reply each turn produced (`RenderedTurn.
cached_ids`); with `generated=False` (an API that caches prompts only) just the prompts.
The reuse of request k is what the engine's simulator serves from its cache
(`prefixlint.engines.serve`: the engine's rounding, and only the generated tokens whose KV it
computed: vLLM never computes the stop token's); the shared prefix with that cache is measured
token for token, to say where a turn diverged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from prefixlint.engines.profiles import EngineProfile
from prefixlint.engines.request import Request
from prefixlint.engines.serve import serve, unlimited
from prefixlint.match.prefix import PrefixCache
from prefixlint.transcript.render import RenderedTurn


@dataclass(frozen=True)
class TurnDivergence:
    """Where a turn stops matching what the previous turn cached."""

    token_index: int
    char_offset: int  # in this turn's prompt text
    message_index: int | None  # the message whose rendered block holds char_offset
    #: Where the same token index sits in the previous turn's cached text, and the two tokens.
    cached_char_offset: int
    token: str | None
    cached_token: str | None


@dataclass(frozen=True)
class TurnReuse:
    turn: RenderedTurn
    prompt_tokens: int
    #: Tokens the previous request and its reply left in the cache: the most this turn can reuse.
    previous_cached_tokens: int
    shared_prefix_tokens: int
    reusable_tokens: int
    divergence: TurnDivergence | None

    @property
    def new_tokens(self) -> int:
        """Tokens after the shared prefix: computed afresh (before the engine's rounding)."""
        return self.prompt_tokens - self.shared_prefix_tokens

    @property
    def lost_tokens(self) -> int:
        """Cached tokens of the previous turn that this one could not reuse."""
        return max(min(self.previous_cached_tokens, self.prompt_tokens) - self.shared_prefix_tokens, 0)


def engine_request(turn: RenderedTurn) -> Request:
    """A turn as the engine serves it: its prompt, then the reply it generated."""
    if turn.reply is None:
        return Request(turn.number, "", list(turn.prompt_ids))
    generated, last = turn.reply_tokens()
    return Request(turn.number, "", list(turn.prompt_ids), generated, last)


def measure_turns(turns: Sequence[RenderedTurn], tokenizer, profile: EngineProfile) -> list[TurnReuse]:
    cache = PrefixCache()
    results: list[TurnReuse] = []
    previous: RenderedTurn | None = None
    served = serve(map(engine_request, turns), unlimited(profile))
    for turn, (_, outcome) in zip(turns, served):
        ids = list(turn.prompt_ids)  # PrefixCache compares slices: lists only, never tuples
        shared = cache.longest_match(ids).length
        expected = len(previous.cached_ids) if previous else 0
        divergence = None
        if previous is not None and shared < min(expected, len(ids)):
            divergence = _divergence(turn, previous, shared, tokenizer)
        results.append(TurnReuse(turn, len(ids), expected, shared, outcome.cached_tokens, divergence))
        cache.insert(ids)
        if turn.reply is not None:
            cache.insert(list(turn.cached_ids))
        previous = turn
    return results


def _divergence(turn: RenderedTurn, previous: RenderedTurn, shared: int, tokenizer) -> TurnDivergence:
    char_offset = tokenizer.char_offset(turn.prompt.text, turn.prompt_ids, shared)
    cached = previous.cached_ids
    return TurnDivergence(
        token_index=shared,
        char_offset=char_offset,
        message_index=turn.prompt.message_at(char_offset),
        cached_char_offset=previous.cached_char_offset(tokenizer, shared),
        token=tokenizer.token_text(turn.prompt_ids[shared]) if shared < len(turn.prompt_ids) else None,
        cached_token=tokenizer.token_text(cached[shared]) if shared < len(cached) else None,
    )
