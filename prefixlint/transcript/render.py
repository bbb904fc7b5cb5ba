"""Render each request of a transcript, and the reply it generated, as the engine saw them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Sequence

from prefixlint.errors import PrefixlintError, TemplateRenderError
from prefixlint.load.transcript import Request, Transcript, for_rendering
from prefixlint.render.chat import GeneratedReply, RenderedChat, generated_reply, render_chat
from prefixlint.render.templates import ChatTemplate


def split_reply(ids: Sequence[int], stop_tokens: int) -> tuple[list[int], int | None]:
    """(generated tokens whose KV was computed, the token sampled last) of a reply whose last
    `stop_tokens` ids are its stop marker: the model sampled the marker's first token and ended."""
    ids = list(ids)
    end = len(ids) - stop_tokens
    return ids[:end], ids[end] if end < len(ids) else None


@dataclass(frozen=True)
class RenderedTurn:
    number: int  # 1-based
    request: Request
    messages: tuple[dict, ...]  # as rendered (without prefixlint's own keys)
    prompt: RenderedChat
    prompt_ids: tuple[int, ...]
    #: The reply the engine generated and cached after the prompt; None with --no-generated
    #: or where the transcript has no reply for this request.
    reply: GeneratedReply | None
    now: datetime
    #: How many of the reply's last ids are its stop marker (`stop_tokens`).
    stop_tokens: int = 0

    @property
    def cached_ids(self) -> tuple[int, ...]:
        """What this request leaves in the cache: its prompt, then its reply's tokens."""
        return self.prompt_ids + (self.reply.ids if self.reply else ())

    @property
    def cached_text(self) -> str:
        return self.prompt.text + (self.reply.text if self.reply else "")

    def reply_tokens(self) -> tuple[list[int], int | None]:
        """The reply's tokens whose KV the engine computed, and the token it sampled last
        (the end-of-turn marker's first token; harmony's `<|return|>`/`<|end|>`), whose KV
        vLLM never computes (SGLang's overlap scheduler does)."""
        if self.reply is None:
            return [], None
        return split_reply(self.reply.ids, self.stop_tokens)

    def cached_char_offset(self, tokenizer, index: int) -> int:
        """Where token `index` of `cached_ids` starts in `cached_text`."""
        if index <= len(self.prompt_ids) or self.reply is None:
            return tokenizer.char_offset(self.prompt.text, self.prompt_ids, min(index, len(self.prompt_ids)))
        within = min(index - len(self.prompt_ids), len(self.reply.ids))
        return len(self.prompt.text) + tokenizer.char_offset(self.reply.text, self.reply.ids, within)


def render_turns(
    transcript: Transcript,
    *,
    tokenizer,
    chat_template: ChatTemplate,
    now: datetime,
    generated: bool = True,
) -> list[RenderedTurn]:
    """Every request rendered with the clock it was sent at (its `timestamp`, else `now`)."""
    turns = []
    for number, request in enumerate(transcript.requests, 1):
        clock = request.now or now
        messages = tuple(for_rendering(m) for m in request.messages)
        try:
            prompt = render_chat(messages, tokenizer=tokenizer, chat_template=chat_template,
                                 tools=request.tools, now=clock)
            reply = None
            if generated and request.reply is not None:
                reply = generated_reply([*messages, for_rendering(request.reply)], len(messages),
                                        tokenizer=tokenizer, chat_template=chat_template,
                                        tools=request.tools, now=clock)
        except TemplateRenderError as exc:  # anything else is not the template's doing (a missing extra)
            raise located(exc, transcript.path, request, number, chat_template) from None
        turns.append(RenderedTurn(number, request, messages, prompt, tuple(prompt.ids(tokenizer)), reply, clock,
                                  stop_tokens(reply, tokenizer, chat_template)))
    return turns


def stop_tokens(reply: GeneratedReply | None, tokenizer, chat_template: ChatTemplate) -> int:
    """How many of a reply's last ids are the stop marker the model sampled to end it."""
    from prefixlint.render.templates import HARMONY

    if reply is None or not reply.ids:
        return 0
    if chat_template.format == HARMONY:
        return 1  # <|return|> or <|call|>
    return len(tokenizer.encode(reply.end_of_turn)) if reply.end_of_turn else 0


def located(exc: TemplateRenderError, path: str, request: Request, number: int,
            chat_template: ChatTemplate) -> PrefixlintError:
    """A template failure, placed at the last message of the request that made it fail."""
    line = next((line for line in reversed(request.lines) if line), None)
    where = chat_template.origin + (f":{exc.template_line}" if exc.template_line else "")
    return PrefixlintError(
        f"turn {number} ({len(request.messages)} messages): {exc.message} [template {where}]",
        path=path, line=line, hint=exc.hint,
    )
