"""A system prompt as a chat server serves it: followed by the conversation history.

A chat server puts the whole conversation after the system message, on every turn. So a
conversation whose rendered messages are only system messages (a system prompt on its own:
`role: system`, a Prompty/Dotprompt/Semantic Kernel system section, a string passed as
`system=`, a file named or configured as a system prompt, see `prefixlint.load.system_prompt`)
is measured followed by the earlier turns of `prefixlint.render.history` and the user's message
of the turn being served (only by that message when it writes the turns itself: a loop over
`history`, which renders them); one that ends with its conversation slot (`[system, *messages]`) gets
that user's message after the slot, also when system messages follow the slot (a message the
application adds after the conversation, as `check --fix` writes one: it comes after the user's
message the conversation ends with). A conversation that has user turns of its own after its
system prompt and no slot is a complete request (a one-shot prompt) and is measured as written.

`history_region` says where the earlier turns are in a request, so a finding can say how many
tokens of history a value ahead of them costs on every turn.
"""

from __future__ import annotations

from typing import Sequence

from prefixlint.load.template import SLOT_ROLE
from prefixlint.match import variants
from prefixlint.render.history import CURRENT, History
from prefixlint.render.spans import RenderedMessage


def serve(messages: Sequence[RenderedMessage], history: History, *, has_history: bool = False
          ) -> tuple[RenderedMessage, ...]:
    """The messages the server gets: a lone system prompt followed by `history` and the current
    user message (only the user message when the template writes the history itself:
    `has_history`, a loop over it); a conversation whose slot is followed by system messages
    only (or nothing) gets the current user message right after the slot."""
    messages = tuple(messages)
    if not history or not messages:
        return messages
    if all(m.role == "system" for m in messages):
        own = () if has_history else (RenderedMessage(SLOT_ROLE, str(history), ()),)
        return messages + own + (RenderedMessage("user", CURRENT, ()),)
    slots = [number for number, m in enumerate(messages) if m.role == SLOT_ROLE]
    if slots and all(m.role == "system" for m in messages[slots[-1] + 1 :]):
        after = slots[-1] + 1  # the conversation holds the user's message; system messages follow it
        return messages[:after] + (RenderedMessage("user", CURRENT, ()),) + messages[after:]
    return messages


def history_region(messages: Sequence[RenderedMessage], starts: Sequence[int], text: str,
                   history: History) -> tuple[int, int] | None:
    """Where the earlier turns are in a request's text: its slot messages, else the span from the
    first turn's content to the last one's (a loop over `history` in one prompt, history turns
    split into messages of their own); None without a history."""
    slots = [number for number, m in enumerate(messages) if m.role == SLOT_ROLE]
    if slots:
        first, last = slots[0], slots[-1]
        return starts[first], starts[last] + len(messages[last].text)
    if not history:
        return None
    start = text.find(history[0]["content"])
    end = text.rfind(history[-1]["content"])
    if start < 0 or end < start:
        return None
    return start, end + len(history[-1]["content"])


def tokens_before(tokenizer, text: str, ids: Sequence[int], offset: int) -> int:
    """How many tokens of `ids` (= the encoding of `text`) start before character `offset`."""
    lo, hi = 0, len(ids)  # the first token that starts at or after `offset`
    while lo < hi:
        mid = (lo + hi) // 2
        if tokenizer.char_offset(text, ids, mid) < offset:
            lo = mid + 1
        else:
            hi = mid
    return lo


def own_target(own, served) -> int | None:
    """Where `check --fix` moves a value, as an index of the served messages: the target it
    plans on the template's own messages (a new message after the conversation: after the
    user's message the server adds). None for a system prompt on its own: the value belongs
    in the user's message, which the application writes (no fix; the promise is that move)."""
    if not own or all(m.role == "system" for m in own):
        return None
    target = variants.target_message(own)
    if target == len(own):
        return len(served)
    return next(number for number, m in enumerate(served) if m is own[target])
