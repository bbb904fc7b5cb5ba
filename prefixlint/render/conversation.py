"""Join rendered messages into the one text a server tokenizes, keeping each message's offset.

A single prompt is its own text. A conversation is framed the way ChatML does it
(`<|im_start|>role\\n...<|im_end|>\\n`, then the generation prompt `<|im_start|>assistant\\n`):
the framing is stable text, so it moves no finding; tokenizers without ChatML special
tokens count it as ordinary text.
"""

from __future__ import annotations

from typing import Sequence

from prefixlint.render.spans import RenderedMessage


def join(messages: Sequence[RenderedMessage], is_chat: bool) -> tuple[str, tuple[int, ...]]:
    """The request text and the offset in it where each message's text starts."""
    if not is_chat:
        return messages[0].text, (0,)
    parts: list[str] = []
    starts: list[int] = []
    length = 0
    for message in messages:
        head = f"<|im_start|>{message.role}\n"
        starts.append(length + len(head))
        piece = f"{head}{message.text}<|im_end|>\n"
        parts.append(piece)
        length += len(piece)
    parts.append("<|im_start|>assistant\n")
    return "".join(parts), tuple(starts)
