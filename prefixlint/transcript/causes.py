"""Why a turn reused less than everything the previous turn cached, in words.

Tried in this order at the first token where the turn leaves the cache:
1. a token boundary merged: the cached text is still there, tokenized differently (its last
   cached token merged with the text that follows it);
2. the application changed an earlier message (the messages themselves differ there);
3. the template injects a changing date: the turn was sent with another clock, and rendering
   it with the previous turn's clock keeps the cached text (found by rendering twice);
4. the template rewrote history: the same messages render differently once they are history
   (earlier reasoning dropped, the generated end-of-turn token replaced, ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from prefixlint.render.chat import render_chat
from prefixlint.render.templates import ChatTemplate
from prefixlint.report.style import visible
from prefixlint.rules.chat_template import changed_words, common_text, rewrite_reason, template_line_at
from prefixlint.transcript.render import RenderedTurn
from prefixlint.transcript.reuse import TurnReuse

BOUNDARY = "token-boundary"
APPLICATION = "application-changed-message"
DATE = "template-injects-date"
HISTORY = "template-rewrites-history"


@dataclass(frozen=True)
class Cause:
    kind: str  # one of the four constants above
    text: str  # in words, with the message and character
    message_index: int | None
    char_offset: int  # in the turn's prompt text
    template_line: int | None = None


def _message_key(message: dict) -> dict:
    return {k: v for k, v in message.items() if k != "timestamp"}


def changed_message(previous: RenderedTurn, current: RenderedTurn) -> int | None:
    """The first message of `current` that differs from what the previous turn sent and got."""
    earlier = list(previous.messages)
    if previous.request.reply is not None:
        earlier.append(_message_key(previous.request.reply))
    for index, message in enumerate(earlier):
        if index >= len(current.messages) or _message_key(current.messages[index]) != message:
            return index
    return None


def _where(message_index: int | None, char_offset: int, line: int | None = None) -> str:
    parts = [f"message {message_index}" if message_index is not None else "after the last message",
             f"char {char_offset:,}"]
    if line:
        parts.append(f"template line {line}")
    return "(" + ", ".join(parts) + ")"


def explain(previous: RenderedTurn, current: RenderedTurn, reuse: TurnReuse, tokenizer,
            template: ChatTemplate) -> Cause | None:
    d = reuse.divergence
    if d is None:
        return None
    who = "harmony" if template.format == "harmony" else "the template"
    cached_text, text = previous.cached_text, current.prompt.text
    common = len(common_text(cached_text, text))
    if d.token_index < len(previous.cached_ids):
        token_end = previous.cached_char_offset(tokenizer, d.token_index + 1)
        if token_end <= common:
            return Cause(
                BOUNDARY,
                f"a token boundary merged: the cached token {visible(d.cached_token or '')!r} and the text"
                f" after it became {visible(d.token or '')!r} {_where(d.message_index, d.char_offset)}",
                d.message_index, d.char_offset,
            )
    message_index = current.prompt.message_at(common)
    changed = changed_message(previous, current)
    if changed is not None and (message_index is None or changed <= message_index):
        span = current.prompt.spans[changed] if changed < len(current.prompt.spans) else None
        offset = span[0] if span else common
        role = current.messages[changed]["role"] if changed < len(current.messages) else "removed"
        return Cause(APPLICATION, f"the application changed an earlier message ({role})"
                     f" {_where(changed, offset)}", changed, offset)
    if current.now != previous.now:
        again = render_chat(current.messages, tokenizer=tokenizer, chat_template=template,
                            tools=current.request.tools, now=previous.now)
        if len(common_text(cached_text, again.text)) > common:
            line = (current.prompt.clock_lines or (None,))[0]
            _, before, after = changed_words(again.text, text)
            return Cause(DATE, f"{who} injects a changing date: '{visible(before)}' became '{visible(after)}'"
                         f" {_where(message_index, common, line)}", message_index, common, line)
    reason = rewrite_reason(cached_text, text, common, current.messages, message_index, previous.reply,
                            current.request.tools)
    line = template_line_at(template, current.messages, current.request.tools, True, tokenizer, current.now, common)
    return Cause(HISTORY, f"{who} rewrote history: it {reason} {_where(message_index, common, line)}",
                 message_index, common, line)
