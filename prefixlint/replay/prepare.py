"""Turn a logged request into the tokens the server computed: prompt ids and generated ids.

- completions: a `prompt` string is tokenized with the tokenizer's special tokens (BOS), as
  vLLM's completions endpoint does; a list of token ids is taken as it is.
- chat: the messages are rendered through the model's chat template exactly as
  `prefixlint transcript` renders them (`prefixlint.render.chat.render_chat`), then
  tokenized without adding special tokens (the template adds them), as vLLM's chat
  endpoint does.
- generated: what the model generated for the response. Chat: the reply as
  `prefixlint.render.chat.generated_reply` rebuilds it (reasoning, tool-call markup, harmony
  channels and the end-of-turn token); completions: the response text tokenized. vLLM
  computes the KV of every generated token but the last one sampled, which ends the
  request: the stop token (EOS, `<|im_end|>`, `<|return|>`) is dropped, and a response cut
  by `finish_reason: "length"` (no stop token) loses its last text token instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from prefixlint.engines.request import Request
from prefixlint.replay.media import marked
from prefixlint.replay.requestlog import LoggedRequest
from prefixlint.tokenize import Tokenizer


@dataclass(frozen=True)
class ChatSettings:
    """How chat requests are rendered: the template (None: the tokenizer's own) and the clock
    a template sees when the log line carries no timestamp."""

    chat_template: Any = None
    now: datetime = field(default_factory=datetime.now)


_DIGITS = re.compile(r"\d+")


def leading_group(text: str, width: int = 48) -> str:
    """A label for requests without a template name: the first line of their first message
    (or prompt), numbers masked as `#` so that dates and counters do not split groups."""
    if not text:
        return "(empty)"  # a prompt of token ids
    first = text.strip().split("\n", 1)[0]
    first = _DIGITS.sub("#", first)
    return (first[: width - 1] + "…") if len(first) > width else first or "(empty)"


def _first_text(entry: LoggedRequest) -> str:
    if entry.is_chat:
        content = entry.body["messages"][0].get("content")
        if isinstance(content, list):
            content = "\n".join(p if isinstance(p, str) else p.get("text", "") for p in content)
        return content or ""
    prompt = entry.body["prompt"]
    return prompt if isinstance(prompt, str) else ""


def _chat(entry: LoggedRequest, tokenizer: Tokenizer, settings: ChatSettings) -> tuple[list[int], list[int], int | None]:
    """Prompt, generated tokens whose KV vLLM computes, and the stop token sampled last."""
    from prefixlint.render.chat import generated_reply, render_chat
    from prefixlint.render.templates import resolve_chat_template

    template = resolve_chat_template(tokenizer, settings.chat_template)
    messages = [{**m, "content": marked(m.get("content"))} for m in entry.body["messages"]]
    tools = entry.body.get("tools") if isinstance(entry.body.get("tools"), list) else None
    now = entry.timestamp or settings.now
    prompt = render_chat(messages, tokenizer=tokenizer, chat_template=template, tools=tools, now=now).ids(tokenizer)
    if entry.response_message is None:
        return prompt, [], None
    reply = generated_reply([*messages, entry.response_message], len(messages), tokenizer=tokenizer,
                            chat_template=template, tools=tools, now=now)
    from prefixlint.transcript.render import split_reply, stop_tokens

    # Drop the stop token the model sampled last: its KV is never computed.
    generated, last = split_reply(reply.ids, stop_tokens(reply, tokenizer, template))
    return prompt, generated, last


#: The stop token of a tokenizer whose configuration names no EOS: an id no text encodes to.
UNKNOWN_STOP = -1


def stop_token(tokenizer: Tokenizer) -> int:
    """The id of the tokenizer's EOS (`eos_token` of its configuration), else UNKNOWN_STOP."""
    from prefixlint.render.chat import special_tokens

    try:
        eos = special_tokens(tokenizer).get("eos_token")
    except (AttributeError, TypeError):  # a tokenizer without a configuration (tiktoken)
        return UNKNOWN_STOP
    found = tokenizer.token_id(eos) if isinstance(eos, str) else None
    return UNKNOWN_STOP if found is None else found


def needs_tokenizer(entry: LoggedRequest) -> bool:
    """Whether preparing `entry` needs the tokenizer: not for a prompt of token ids without a
    response (a token-id log is replayed without loading one)."""
    return entry.is_chat or isinstance(entry.body["prompt"], str) or entry.response_text is not None


def prepare(entry: LoggedRequest, tokenizer: Tokenizer | None, settings: ChatSettings | None) -> Request:
    """Raises PrefixlintError when the request cannot be rendered (a bad line). `tokenizer`
    and `settings` may be None for an entry that `needs_tokenizer` says needs neither."""
    last = None
    generated: list[int] = []
    if tokenizer is None or settings is None:  # only for a request that does not `needs_tokenizer`
        prompt = entry.body["prompt"]  # token ids, checked as the log was read
    elif entry.is_chat:
        prompt, generated, last = _chat(entry, tokenizer, settings)
    else:
        if isinstance(entry.body["prompt"], str):
            prompt = tokenizer.encode(entry.body["prompt"], add_special_tokens=True)
        else:
            prompt = entry.body["prompt"]  # token ids, checked as the log was read
        generated = tokenizer.encode(entry.response_text, add_special_tokens=False) if entry.response_text else []
    if entry.finish_reason == "length" and generated:
        last = generated.pop()  # no stop token: the last text token was the last sampled
    elif last is None and entry.finish_reason == "stop" and entry.response_text is not None:
        # A completion's text never shows the EOS it ended with (a response needs the tokenizer).
        last = stop_token(tokenizer) if tokenizer is not None else UNKNOWN_STOP
    group = entry.template if entry.template is not None else leading_group(_first_text(entry))
    return Request(entry.line, group, prompt, generated, last, entry.cache_salt,
                   timestamp=entry.timestamp.timestamp() if entry.timestamp is not None else None,
                   reported_cached_tokens=entry.reported_cached_tokens, session=entry.session,
                   duration=entry.duration, finish_reason=entry.finish_reason)
