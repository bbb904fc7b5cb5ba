"""Detections behind PFX101 and PFX102: what a chat template itself does to prefix reuse.

- `detect_date_injection` (PFX101 chat-template-injects-date): render the same messages with
  two clocks; where the texts differ, the template writes something that changes with time.
  The Jinja line is where `strftime_now` was called (and the line that wrote the text).
- `detect_history_rewrite` (PFX102 chat-template-rewrites-history): render a conversation
  up to a reply (k turns), add the tokens the model generated for that reply, and render the
  next request (k+1 turns). A template that keeps history intact makes the first a prefix of
  the second; one that drops earlier reasoning (Qwen3, DeepSeek-R1, gpt-oss analysis) or
  rewrites earlier turns does not. The Jinja line is the one that wrote the history text.

Both take a tokenizer and, optionally, a template (Jinja source or `ChatTemplate`); without
one they use the tokenizer's own (as `render_chat` does). Probe messages can be given.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Mapping, Sequence

from prefixlint.match.prefix import shared_prefix
from prefixlint.render import messages as prep
from prefixlint.render.chat import GeneratedReply, generated_reply, render_chat
from prefixlint.render.templates import JINJA, ChatTemplate, resolve_chat_template

#: The clock of the first render; the second is 400 days, 1 hour, 1 minute and 1 second later,
#: so that a year, month, day, hour, minute or second written by the template all change.
FIRST_CLOCK = datetime(2025, 1, 2, 10, 30, 15)
CLOCK_STEP = timedelta(days=400, hours=1, minutes=1, seconds=1)

#: With and without a system message: some templates (Granite 3.3) write the date only into
#: the default system message they use when none is given.
DATE_PROBES = (
    ({"role": "system", "content": "You are a helpful assistant."},
     {"role": "user", "content": "What is the capital of France?"}),
    ({"role": "user", "content": "What is the capital of France?"},),
)
HISTORY_PROBE = (
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "user", "content": "What is 2 + 2?"},
    {"role": "assistant", "content": "2 + 2 = 4.", "reasoning_content": "Adding two and two gives four."},
    {"role": "user", "content": "And 3 + 3?"},
)


@dataclass(frozen=True)
class DateInjection:
    template_origin: str
    line: int | None  # where the changing text originates (the `strftime_now` call)
    output_line: int | None  # the line that writes it into the prompt
    char_offset: int  # first character that differs between the two renders
    text: str  # the changing text at the first clock
    other_text: str  # ... and at the second
    stable_prefix_tokens: int  # tokens before the change: all that survives a date change
    prompt_tokens: int


@dataclass(frozen=True)
class HistoryRewrite:
    template_origin: str
    message_index: int | None  # the message whose rendering changed once it became history
    char_offset: int  # in the next request's text
    line: int | None  # the template line that writes the history form there
    cached_line: int | None  # the template line that wrote what was cached there
    cached_text: str  # what was cached from there on (a snippet)
    new_text: str  # what the next request has there (a snippet)
    reason: str
    shared_prefix_tokens: int
    cached_tokens: int


def changed_words(a: str, b: str) -> tuple[int, str, str]:
    """First differing offset, and the differing runs widened to whole words (`02 Jan 2025`)."""
    start = len(common_text(a, b))
    end = 0
    while end < min(len(a), len(b)) - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    while start > 0 and a[start - 1].isalnum():
        start -= 1
    while end > 0 and a[len(a) - end].isalnum():
        end -= 1
    return start, a[start: len(a) - end], b[start: len(b) - end]


def common_text(a: str, b: str) -> str:
    return a[:shared_prefix(a, b)]


def template_line_at(template: ChatTemplate, messages, tools, add_generation_prompt, tokenizer, now, offset):
    if template.format != JINJA or template.source is None:
        return None
    from prefixlint.render.chat import jinja_render
    from prefixlint.render.jinja import line_at, trace_template

    render = jinja_render(template.source, tokenizer, messages, tools, add_generation_prompt, now)
    return line_at(trace_template(render), offset)


def detect_date_injection(
    tokenizer,
    chat_template: ChatTemplate | str | None = None,
    *,
    messages: Sequence[Mapping[str, Any]] | None = None,
    tools=None,
    now: datetime = FIRST_CLOCK,
    later: datetime | None = None,
) -> DateInjection | None:
    """Render `messages` at `now` and at `later`; report where the prompt changes, if it does.

    Without `messages`, each of `DATE_PROBES` is tried in turn.
    """
    template = resolve_chat_template(tokenizer, chat_template)
    later = later or now + CLOCK_STEP
    if messages is None:
        return _first_found(DATE_PROBES, lambda probe: detect_date_injection(
            tokenizer, template, messages=probe, tools=tools, now=now, later=later))
    first = render_chat(messages, tokenizer=tokenizer, chat_template=template, tools=tools, now=now)
    second = render_chat(messages, tokenizer=tokenizer, chat_template=template, tools=tools, now=later)
    if first.text == second.text:
        return None
    offset, text, other = changed_words(first.text, second.text)
    ids = first.ids(tokenizer)
    stable = shared_prefix(ids, second.ids(tokenizer))
    output_line = template_line_at(template, messages, tools, True, tokenizer, now, offset)
    line = first.clock_lines[0] if first.clock_lines else output_line
    return DateInjection(template.origin, line, output_line, offset, text, other, stable, len(ids))


@dataclass(frozen=True)
class HistoryTurn:
    """One history probe: the request before the last assistant message (`prompt`), that reply
    as the model generated it, and the request that follows (`following`), as token ids."""
    template: ChatTemplate
    messages: Sequence[Mapping[str, Any]]
    index: int  # of the last assistant message
    prompt: Any
    reply: GeneratedReply
    following: Any
    cached_ids: list[int]  # the prompt's ids and the generated reply's: what the engine cached
    new_ids: list[int]
    shared: int  # shared prefix of the two, in tokens

    @property
    def cached_text(self) -> str:
        return self.prompt.text + self.reply.text


def probe_history(tokenizer, chat_template, probes, judge, *, messages=None, tools=None, now=FIRST_CLOCK):
    """`judge(turn, tokenizer, tools, now)` on the history turn of `messages` (which must hold an
    assistant message), or without them on each of `probes` until one is judged (`_first_found`):
    the rendering PFX102 and PFX103 share."""
    template = resolve_chat_template(tokenizer, chat_template)
    if messages is None:
        return _first_found(probes, lambda probe: probe_history(
            tokenizer, template, probes, judge, messages=probe, tools=tools, now=now))
    index = max(i for i, m in enumerate(messages) if m.get("role") == "assistant")
    prompt = render_chat(messages[:index], tokenizer=tokenizer, chat_template=template, tools=tools, now=now)
    reply = generated_reply(messages, index, tokenizer=tokenizer, chat_template=template, tools=tools, now=now)
    following = render_chat(messages, tokenizer=tokenizer, chat_template=template, tools=tools, now=now)
    cached_ids = prompt.ids(tokenizer) + list(reply.ids)
    new_ids = following.ids(tokenizer)
    turn = HistoryTurn(template, messages, index, prompt, reply, following, cached_ids, new_ids,
                       shared_prefix(cached_ids, new_ids))
    return judge(turn, tokenizer, tools, now)


def detect_history_rewrite(
    tokenizer,
    chat_template: ChatTemplate | str | None = None,
    *,
    messages: Sequence[Mapping[str, Any]] | None = None,
    tools=None,
    now: datetime = FIRST_CLOCK,
) -> HistoryRewrite | None:
    """Whether the request before the last assistant message, plus that reply as generated,
    is a prefix of the request that follows it (`messages` must hold an assistant message).

    Without `messages`, `HISTORY_PROBE`, or without its system message for a template that
    refuses one."""
    return probe_history(tokenizer, chat_template, (HISTORY_PROBE, HISTORY_PROBE[1:]), _rewrite,
                         messages=messages, tools=tools, now=now)


def _rewrite(turn: HistoryTurn, tokenizer, tools, now: datetime) -> HistoryRewrite | None:
    messages, reply, following, cached_text = turn.messages, turn.reply, turn.following, turn.cached_text
    offset = len(common_text(cached_text, following.text))
    if turn.shared == len(turn.cached_ids) or offset >= len(cached_text):
        return None  # kept intact (a lost token at a boundary is not the template's doing)
    message_index = following.message_at(offset)
    reason = rewrite_reason(cached_text, following.text, offset, messages, message_index, reply, tools)
    line = template_line_at(turn.template, messages, tools, True, tokenizer, now, offset)
    cached_line = None
    if reply.exact:
        cached_line = template_line_at(turn.template, messages[: turn.index + 1], tools, False, tokenizer, now, offset)
    return HistoryRewrite(
        turn.template.origin, message_index, offset, line, cached_line,
        cached_text[offset: offset + 60], following.text[offset: offset + 60], reason, turn.shared,
        len(turn.cached_ids),
    )


def _first_found(probes, detect):
    """The first probe's detection that is not None. A probe the template refuses (it raises:
    some templates take no system message) is skipped; if every probe is refused, the first
    refusal is raised."""
    from prefixlint.errors import TemplateRenderError

    refused: TemplateRenderError | None = None
    answered = False
    for probe in probes:
        try:
            found = detect(probe)
        except TemplateRenderError as exc:  # the template refused the probe; anything else is raised
            refused = refused or exc
            continue
        answered = True
        if found is not None:
            return found
    if not answered and refused is not None:
        raise refused
    return None


def rewrite_reason(
    cached_text: str, new_text: str, offset: int, messages: Sequence[Mapping[str, Any]],
    message_index: int | None, reply: GeneratedReply | None, tools=None,
) -> str:
    """What the template changed at `offset` once an earlier reply became history (a verb phrase)."""
    message = messages[message_index] if message_index is not None else {}
    reasoning = (prep.reasoning_of(message) or "").strip()
    ahead = cached_text[offset:]
    if reasoning and reasoning[:40] in ahead and reasoning[:40] not in new_text[offset:]:
        return "drops the reasoning of earlier replies"
    if _tool_block_moved(ahead, new_text[offset:], tools):
        return "moves the tool definitions (they follow the last user message)"
    end = reply.end_of_turn if reply is not None else None
    if end is None and ahead.startswith("<|return|>"):
        end = "<|return|>"
    if end and ahead.startswith(end):
        shown = _common_marker(new_text[offset:])
        return f"ends earlier replies with {shown!r} where the model generated {end!r}"
    return "renders an earlier message differently once it is history"


def _tool_block_moved(cached_ahead: str, new_ahead: str, tools, window: int = 400) -> bool:
    """The cached text goes on with the tool definitions where the new text does not: the
    template writes them at a place that moves with the conversation (Mistral's
    `[AVAILABLE_TOOLS]` before the last user message)."""
    for tool in tools or ():
        function = tool.get("function") or {}
        for mark in (function.get("description"), function.get("name")):
            if isinstance(mark, str) and mark and (position := cached_ahead[:window].find(mark)) >= 0:
                later = new_ahead.find(mark)
                return later < 0 or later > position
    return False


def _common_marker(text: str) -> str:
    if text.startswith("<"):
        close = text.find(">")
        if 0 < close < 40:
            return text[: close + 1]
    return text[:20]
