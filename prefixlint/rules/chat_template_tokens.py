"""The detection behind PFX103 chat-template-retokenizes-history: the same text, other tokens.

Renders a conversation up to an assistant reply, adds the tokens the model generated for that
reply (the reply's text tokenized on its own, as it was sampled after the generation prompt),
and renders the next request. Where the texts agree but the token ids part before the end of
the reply, the next request re-tokenizes history across the boundary between the template's
generation prompt and the reply: a generation prompt that ends in plain text a reply can merge
with (`assistant: ` and `Hello` are `:` ` ` `Hello` as generated, `:` ` Hello` as history).
PFX102 reports templates whose text changes; this one, the texts being equal (cause
`retokenized` in `replay`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Mapping, Sequence

from prefixlint.render.templates import ChatTemplate
from prefixlint.rules.chat_template import FIRST_CLOCK, HistoryTurn, common_text, probe_history, template_line_at

#: Replies whose first characters merge with text before them in most BPE vocabularies.
RETOKENIZE_PROBE = (
    {"role": "user", "content": "Say hello."},
    {"role": "assistant", "content": "Hello! How can I help?"},
    {"role": "user", "content": "Thanks."},
)


@dataclass(frozen=True)
class HistoryRetokenized:
    template_origin: str
    token: int  # first token of the next request that differs from what was cached
    char_offset: int  # where that token starts in the next request's text
    line: int | None  # the template line that writes the text there
    cached_tokens: tuple[str, ...]  # the cached side's tokens there, as text
    new_tokens: tuple[str, ...]  # the next request's
    shared_prefix_tokens: int
    cached_len: int


def detect_history_retokenize(
    tokenizer,
    chat_template: ChatTemplate | str | None = None,
    *,
    messages: Sequence[Mapping[str, Any]] | None = None,
    tools=None,
    now: datetime = FIRST_CLOCK,
) -> HistoryRetokenized | None:
    return probe_history(tokenizer, chat_template, (RETOKENIZE_PROBE,), _retokenized,
                         messages=messages, tools=tools, now=now)


def _retokenized(turn: HistoryTurn, tokenizer, tools, now: datetime) -> HistoryRetokenized | None:
    cached_ids, new_ids, shared, cached_text = turn.cached_ids, turn.new_ids, turn.shared, turn.cached_text
    if shared >= len(cached_ids) or len(common_text(cached_text, turn.following.text)) < len(cached_text):
        return None  # kept intact, or the text itself changes (PFX102's)
    offset = len("".join(tokenizer.token_text(t) for t in new_ids[:shared]))
    if offset >= len(cached_text) - len(turn.reply.end_of_turn or ""):
        return None  # within the end-of-turn marker, the stop token an engine never caches
    line = template_line_at(turn.template, turn.messages, tools, True, tokenizer, now, offset)
    return HistoryRetokenized(
        turn.template.origin, shared, offset, line,
        tuple(tokenizer.token_text(t) for t in cached_ids[shared: shared + 3]),
        tuple(tokenizer.token_text(t) for t in new_ids[shared: shared + 3]), shared, len(cached_ids),
    )
