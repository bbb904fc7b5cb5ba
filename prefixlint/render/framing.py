"""Frame a chat file's rendered messages into the one request a server tokenizes.

`check` renders a template's messages with its own renderer (spans per substitution), then
frames them as the served model's chat endpoint would, keeping where each message's text
starts in the request so every character still maps back to the file:

- `ChatTemplateFraming`: the tokenizer in effect has a chat format (a Hugging Face
  tokenizer with a `chat_template`, or gpt-oss / `o200k_harmony` through harmony). The
  messages go through `prefixlint.render.chat.render_chat`, as `prefixlint transcript`
  renders them, with one fixed clock for every render (a date the template writes is then
  the same in both renders of a measurement, not a finding of the user's variable), and are
  tokenized as the server does. `render_chat`'s message spans give each message's place.
- `ApproximateFraming`: no public chat format (o200k_base, cl100k_base, a tokenizer without
  a template) or a single prompt: `prefixlint.render.conversation.join`'s ChatML framing.

A conversation slot message (`SLOT_ROLE`) becomes the earlier turns of
`prefixlint.render.history`, each a message of its own, and is re-cut to the text the
template rendered for them (one stable span).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, Sequence

from prefixlint.errors import ChatTemplateFailure, PrefixlintError, TemplateRenderError
from prefixlint.load.template import SLOT_ROLE
from prefixlint.render.conversation import encode_chatml, join
from prefixlint.render.spans import RenderedMessage, Span
from prefixlint.render.templates import ChatTemplate

#: The clock every chat-template render of `check` sees (the first clock of PFX101's probes).
CHECK_CLOCK = datetime(2025, 1, 2, 10, 30, 15)


@dataclass(frozen=True)
class Framed:
    """One request: its messages (slot messages as rendered), text, message starts and ids."""

    messages: tuple[RenderedMessage, ...]
    text: str
    starts: tuple[int, ...]
    ids: list[int]


class ApproximateFraming:
    """ChatML-style framing for tokenizers without a public chat format (and single prompts)."""

    chat_template: ChatTemplate | None = None
    chat_format = "chatml-approximation"

    def __init__(self, is_chat: bool) -> None:
        self.is_chat = is_chat

    def frame(self, messages: Sequence[RenderedMessage], encode: Callable[[str], list[int]]) -> Framed:
        text, starts = join(messages, self.is_chat)
        return Framed(tuple(messages), text, starts, encode_chatml(encode, text) if self.is_chat else encode(text))


class ChatTemplateFraming:
    """The served model's chat format, through `render_chat` with a fixed clock."""

    def __init__(self, tokenizer, chat_template: ChatTemplate, now: datetime = CHECK_CLOCK) -> None:
        self.tokenizer, self.chat_template, self.now = tokenizer, chat_template, now
        self.chat_format = chat_template.format

    def frame(self, messages: Sequence[RenderedMessage], encode: Callable[[str], list[int]]) -> Framed:
        from prefixlint.render.chat import render_chat
        from prefixlint.render.history import History

        chat: list[dict[str, str]] = []
        owners: list[int] = []  # for each chat message, the index of the rendered message it is
        for number, message in enumerate(messages):
            turns = list(History()) if message.role == SLOT_ROLE else [{"role": message.role or "user",
                                                                          "content": message.text}]
            chat += turns
            owners += [number] * len(turns)
        try:
            rendered = render_chat(chat, tokenizer=self.tokenizer, chat_template=self.chat_template, now=self.now)
        except PrefixlintError as exc:
            raise self._failed(exc) from None
        placed, starts = self._place(messages, owners, rendered.spans, rendered.text)
        ids = rendered.ids(self.tokenizer) if rendered.token_ids is not None else encode(rendered.text)
        return Framed(placed, rendered.text, starts, ids)

    @staticmethod
    def _place(messages, owners, spans, text) -> tuple[tuple[RenderedMessage, ...], tuple[int, ...]]:
        """Each message's start in `text`: where `render_chat` found its (stripped) text, less
        the leading whitespace it stripped. A message the template dropped or rewrote past
        recognition starts where the previous one ended (its characters map to nothing there)."""
        placed, starts = [], []
        cursor = 0
        for number, message in enumerate(messages):
            found = [span for owner, span in zip(owners, spans) if owner == number and span is not None]
            if message.role == SLOT_ROLE and found:  # the turns as the template rendered them
                start, end = found[0][0], found[-1][1]
                segment = text[start:end]
                spans_ = tuple(Span(s.placeholder, 0, len(segment)) for s in message.spans[:1])
                placed.append(RenderedMessage(message.role, segment, spans_))
                starts.append(start)
                cursor = end
                continue
            placed.append(message)
            if found:
                lead = len(message.text) - len(message.text.lstrip())
                starts.append(max(found[0][0] - lead, 0))
                cursor = found[0][1]
            else:
                starts.append(cursor)
        return tuple(placed), tuple(starts)

    def _failed(self, exc: PrefixlintError) -> PrefixlintError:
        """A template failure, saying where in the template (file and line) it failed."""
        if not isinstance(exc, TemplateRenderError):
            return exc  # not the template's doing (a missing package)
        template_line = exc.template_line
        path, line = self.chat_template.file_location(template_line)
        where = f"{path}:{line}" if line else path
        if line and template_line and line != template_line:
            where += f" (template line {template_line})"
        cause = re.sub(r"^the chat template (failed|does not compile)( \(template line \d+\))?: ", "", exc.message)
        return ChatTemplateFailure(
            f"the model's chat template cannot render these messages ({where}): {cause}",
            hint="check the roles and the order of the messages against what the model's template accepts",
        )


def framing_for(tokenizer, is_chat: bool, chat_template: ChatTemplate | None = None):
    """The framing `check` uses for a file: the model's chat format where the tokenizer in
    effect has one (or `chat_template` is given), else the ChatML approximation."""
    from prefixlint.render.templates import resolve_chat_template, uses_harmony

    if not is_chat:
        return ApproximateFraming(False)
    if chat_template is None and not (uses_harmony(tokenizer) or tokenizer.chat_template):
        return ApproximateFraming(True)
    return ChatTemplateFraming(tokenizer, resolve_chat_template(tokenizer, chat_template))

