"""Render chat messages into the exact prompt a serving engine's chat endpoint builds.

This is the module other stages use (stable API):

    rendered = render_chat(messages, tokenizer=tok, chat_template=None, tools=None,
                           add_generation_prompt=True, now=None)   # -> RenderedChat
    ids = rendered.ids(tok)                  # the token ids the engine serves
    rendered.text, rendered.spans[i]         # the prompt text; [start, end) of message i, or None
    rendered.message_at(char_offset)         # which message a character belongs to
    reply = generated_reply(messages, i, tokenizer=tok)   # -> GeneratedReply: what the model
                                             # generated for assistant message i (text, ids)

`messages` are OpenAI chat messages (dicts); `chat_template` is None (the tokenizer's own),
Jinja source, or a `ChatTemplate` (`prefixlint.render.templates.read_chat_template(path)`).
Template failures raise `TemplateRenderError`, with the template's own `template_line`.

As vLLM's `/v1/chat/completions` does: the messages are prepared as vLLM prepares them
(`prefixlint.render.messages`), rendered by the model's chat template through transformers'
chat-template code in jinja2's sandbox (`prefixlint.render.jinja`) with
`add_generation_prompt=True`, and the text is then tokenized WITHOUT adding special tokens
again (the template writes BOS itself). gpt-oss goes through the harmony format instead
(`prefixlint.render.harmony`), which yields token ids directly; OpenAI's o200k_base models
get a ChatML-style approximation (`prefixlint.render.templates`), flagged in `note`.

`now` is the clock the template sees (`strftime_now`, harmony's `Current date`); None means
the current time, as on a server. Pass a fixed datetime for repeatable output.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any, Mapping, Sequence

from prefixlint.render import messages as prep
from prefixlint.render.conversation import encode_chatml
from prefixlint.render.templates import CHATML, HARMONY, ChatTemplate, resolve_chat_template

#: Markers that end an assistant turn in the templates prefixlint knows, tried in this order
#: after the tokenizer's own eos token.
END_OF_TURN_MARKERS = (
    "<|im_end|>", "<|eot_id|>", "<|end|>", "<｜end▁of▁sentence｜>", "<|end_of_text|>",
    "<end_of_turn>", "</s>", "<|endoftext|>", "<|end_of_role|>",
)

KNOWN_BOS_TOKENS = ("<|begin_of_text|>", "<｜begin▁of▁sentence｜>", "<s>", "<bos>")


@dataclass(frozen=True)
class RenderedChat:
    """A rendered prompt: its text and where each message's text sits in it."""

    text: str
    #: For each input message, the [start, end) character span of its text (content, else its
    #: first tool call's name) in `text`; None where the template dropped or rewrote it.
    spans: tuple[tuple[int, int] | None, ...]
    chat_format: str  # "jinja", "harmony" or "chatml-approximation"
    template_origin: str  # where the template came from (a path, or a description)
    template: str | None = None  # the Jinja source; None for harmony
    #: Token ids when the renderer produces them itself (harmony; the ChatML approximation,
    #: tokenized marker by marker); else None, and `ids()` tokenizes `text`.
    token_ids: tuple[int, ...] | None = None
    #: Template lines where `strftime_now` was called during this render.
    clock_lines: tuple[int, ...] = ()
    #: Set when the render is an approximation of the real server's.
    note: str | None = None

    def ids(self, tokenizer) -> list[int]:
        """The token ids the engine serves: the text tokenized without adding special tokens."""
        if self.token_ids is not None:
            return list(self.token_ids)
        return tokenizer.encode(self.text, add_special_tokens=False)

    def message_at(self, char_offset: int) -> int | None:
        """The message whose rendered block holds `char_offset`: its text (up to and including
        the character right after it), or the template's markup between the previous located
        message and it. None after the last message."""
        for index, span in enumerate(self.spans):
            if span is not None and char_offset <= span[1]:
                return index
        return None


@dataclass(frozen=True)
class GeneratedReply:
    """The tokens a model generated for one assistant message, as an engine caches them."""

    text: str
    ids: tuple[int, ...]
    end_of_turn: str | None  # the end-of-turn marker included at the end of `ids`
    #: False where the template renders the reply differently from how the model wrote it and
    #: prefixlint had to rebuild the generated text (see `generated_reply`).
    exact: bool


def special_tokens(tokenizer) -> dict[str, Any]:
    """The special-token variables transformers passes to templates (`bos_token`, ...).

    From tokenizer_config.json. Where it names no BOS: the token the tokenizer itself adds in
    front of a text, else a well-known BOS of its vocabulary (a bare Llama 3 tokenizer.json,
    with neither config nor BOS post-processor, has `<|begin_of_text|>`).
    """
    found = dict(_special_tokens(tokenizer))
    if "additional_special_tokens" in found:
        found["additional_special_tokens"] = list(found["additional_special_tokens"])
    return found


@lru_cache(maxsize=None)
def _special_tokens(tokenizer) -> tuple[tuple[str, Any], ...]:
    config = tokenizer.config
    found: dict[str, Any] = {}
    for key in ("bos_token", "eos_token", "unk_token", "pad_token"):
        value = config.get(key)
        value = value.get("content") if isinstance(value, dict) else value
        if isinstance(value, str):
            found[key] = value
    extra = config.get("additional_special_tokens")
    if isinstance(extra, list):
        found["additional_special_tokens"] = [t.get("content") if isinstance(t, dict) else t for t in extra]
    if "bos_token" not in found and tokenizer.family == "huggingface":
        bare, marked = tokenizer.encode("a"), tokenizer.encode("a", add_special_tokens=True)
        if len(marked) > len(bare) and marked[1:] == bare:
            found["bos_token"] = tokenizer.token_text(marked[0])
    if "bos_token" not in found:
        # A bare tokenizer.json (no config, no BOS post-processor): a well-known BOS in its vocabulary.
        for candidate in KNOWN_BOS_TOKENS:
            if tokenizer.token_id(candidate) is not None:
                found["bos_token"] = candidate
                break
    if "additional_special_tokens" in found:
        found["additional_special_tokens"] = tuple(found["additional_special_tokens"])
    return tuple(found.items())


def locate(text: str, messages: Sequence[Mapping[str, Any]]) -> tuple[tuple[int, int] | None, ...]:
    """Each message's text found in order in `text` (stripped, as many templates trim it)."""
    spans: list[tuple[int, int] | None] = []
    cursor = 0
    for message in messages:
        needle = prep.text_of(message).strip()
        start = text.find(needle, cursor) if needle else -1
        if start < 0:
            spans.append(None)
            continue
        spans.append((start, start + len(needle)))
        cursor = start + len(needle)
    return tuple(spans)


def render_chat(
    messages: Sequence[Mapping[str, Any]],
    *,
    tokenizer,
    chat_template: ChatTemplate | str | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    add_generation_prompt: bool = True,
    now: datetime | None = None,
) -> RenderedChat:
    """Render `messages` (OpenAI chat shape) as the served model's chat endpoint does.

    `chat_template` is Jinja source or a `ChatTemplate`; None takes the tokenizer's own
    (or harmony for o200k_harmony, or the ChatML approximation for o200k_base/cl100k_base).
    Raises TemplateRenderError (`template_line` set where known) when the template fails.
    """
    template = resolve_chat_template(tokenizer, chat_template)
    now = now or datetime.now()
    if template.format == HARMONY:
        from prefixlint.render import harmony

        ids = harmony.render_harmony(messages, tools=tools, add_generation_prompt=add_generation_prompt, now=now)
        text = harmony.harmony_encoding().decode(ids)
        return RenderedChat(text, locate(text, messages), HARMONY, template.origin, None, tuple(ids))
    from prefixlint.render.jinja import render_template

    assert template.source is not None  # only harmony's has none
    render = jinja_render(template.source, tokenizer, messages, tools, add_generation_prompt, now)
    text, clock_lines = render_template(render)
    token_ids = tuple(chatml_ids(tokenizer, text)) if template.format == CHATML else None
    return RenderedChat(
        text, locate(text, messages), template.format, template.origin, template.source,
        token_ids, clock_lines, template.note,
    )


def jinja_render(source: str, tokenizer, messages, tools, add_generation_prompt: bool, now: datetime):
    """`messages` prepared as vLLM prepares them and the tokenizer's special tokens: what
    rendering (`render_chat`) and tracing (the template line of an output) both give the template."""
    from prefixlint.render.jinja import JinjaRender

    messages = prep.for_template(messages)
    return JinjaRender(source, messages, tools, add_generation_prompt, special_tokens(tokenizer), now)


def chatml_ids(tokenizer, text: str) -> list[int]:
    """The ChatML approximation tokenized marker by marker (`conversation.encode_chatml`)."""
    return encode_chatml(tokenizer.encode, text)


def end_of_turn(tokenizer, text: str) -> tuple[int, str] | None:
    """The first end-of-turn marker in `text`: (position, marker)."""
    markers = [m for m in (special_tokens(tokenizer).get("eos_token"), *END_OF_TURN_MARKERS) if m]
    found = [(text.find(m), m) for m in markers if m in text]
    return min(found) if found else None


def generated_reply(
    messages: Sequence[Mapping[str, Any]],
    index: int,
    *,
    tokenizer,
    chat_template: ChatTemplate | str | None = None,
    tools: Sequence[Mapping[str, Any]] | None = None,
    now: datetime | None = None,
) -> GeneratedReply:
    """The tokens the model generated for assistant message `messages[index]`, after the
    prompt of `messages[:index]`: the reply's text tokenized, then the end-of-turn token.

    The reply's text is what the template renders for it as the newest message (so Qwen3's
    `<think>` block and tool-call markup are included as the model wrote them), cut after
    the first end-of-turn marker. Where that render does not extend the prompt, or leaves out
    the reply's reasoning (DeepSeek-R1's template never shows it), the text is rebuilt
    as `<think>\\nREASONING\\n</think>\\n\\nCONTENT` and the marker probed from the template;
    `exact` is then False.
    """
    template = resolve_chat_template(tokenizer, chat_template)
    now = now or datetime.now()
    reply = messages[index]
    if template.format == HARMONY:
        from prefixlint.render import harmony

        ids = harmony.generated_reply(messages[:index], reply, tools=tools, now=now)
        return GeneratedReply(harmony.harmony_encoding().decode(ids), tuple(ids), None, True)
    prompt = render_chat(messages[:index], tokenizer=tokenizer, chat_template=template, tools=tools, now=now)
    full = render_chat(
        messages[: index + 1], tokenizer=tokenizer, chat_template=template, tools=tools,
        add_generation_prompt=False, now=now,
    )
    # Reasoning counts only for templates that know reasoning: a model whose template never
    # mentions it does not write a `<think>` block.
    reasoning = prep.reasoning_of(reply) if _knows_reasoning(template) else None
    exact = full.text.startswith(prompt.text)
    if exact and reasoning and reasoning.strip() not in full.text[len(prompt.text):]:
        exact = False  # the template never shows this reasoning, yet the model wrote it
    if exact:
        region = full.text[len(prompt.text):]
    else:
        region = _rebuilt_reply(reply, reasoning, prompt.text) + _probe_end_of_turn(tokenizer, template, now)
    marker = end_of_turn(tokenizer, region)
    if marker is None:
        body, eot = region, None
    else:
        body, eot = region[: marker[0]], marker[1]
    eot_ids = tokenizer.encode(eot) if eot else []
    if template.format == CHATML:
        ids = chatml_ids(tokenizer, body) + eot_ids
    elif eot and len(eot_ids) > 1:  # a marker that is no special token in this vocabulary: plain text
        ids = tokenizer.encode(body + eot)
    else:
        ids = tokenizer.encode(body) + eot_ids
    return GeneratedReply(body + (eot or ""), tuple(ids), eot, exact)


def _knows_reasoning(template: ChatTemplate) -> bool:
    source = template.source or ""
    # Qwen3 and DeepSeek-R1 split `</think>` off the content; others read the reasoning field.
    words = ("split('</think>')", 'split("</think>")', "reasoning_content", ".thinking", "['thinking']")
    return any(word in source for word in words)


def _rebuilt_reply(reply: Mapping[str, Any], reasoning: str | None, prompt_text: str) -> str:
    content = prep.flatten_content(reply.get("content")) or ""
    if not reasoning:
        return content
    opened = "" if prompt_text.endswith("<think>\n") else "<think>\n"
    return f"{opened}{reasoning.strip()}\n</think>\n\n{content.lstrip()}"


def _probe_end_of_turn(tokenizer, template: ChatTemplate, now: datetime) -> str:
    probe = [{"role": "user", "content": "ping"}, {"role": "assistant", "content": "PONG"}]
    text = render_chat(probe, tokenizer=tokenizer, chat_template=template, add_generation_prompt=False, now=now).text
    after = text[text.rfind("PONG") + 4:]
    marker = end_of_turn(tokenizer, after)
    return marker[1] if marker is not None and marker[0] == 0 else ""
