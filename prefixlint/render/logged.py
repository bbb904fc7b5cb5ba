"""Turn a logged request into the tokens the server computed: prompt ids and generated ids.

- completions: a `prompt` string is tokenized with the tokenizer's special tokens (BOS), as
  vLLM's completions endpoint does; a list of token ids is taken as it is.
- chat: the messages are rendered through the model's chat template exactly as
  `prefixlint transcript` renders them (`prefixlint.render.chat.render_chat`), then
  tokenized without adding special tokens (the template adds them), as vLLM's chat
  endpoint does.
- generated: the response text tokenized on its own. vLLM computes the KV of every
  generated token but the last one sampled, which ends the request: a response that
  stopped normally ended with a stop token (EOS, `<|im_end|>`) that is not in its text, so
  all of its text tokens count; one cut by `finish_reason: "length"` loses its last token.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from prefixlint.load.requestlog import LoggedRequest, leading_group
from prefixlint.tokenize import Tokenizer

#: (request body, tokenizer) -> the prompt text the chat template renders.
ChatRenderer = Callable[[dict[str, Any], Tokenizer], str]


@dataclass(frozen=True)
class PreparedRequest:
    line: int
    group: str
    prompt: list[int]
    generated: list[int]
    salt: str | None
    reported_cached_tokens: int | None


def _first_text(entry: LoggedRequest) -> str:
    if entry.is_chat:
        content = entry.body["messages"][0].get("content")
        if isinstance(content, list):
            content = "\n".join(p if isinstance(p, str) else p.get("text", "") for p in content)
        return content or ""
    prompt = entry.body["prompt"]
    return prompt if isinstance(prompt, str) else ""


def prepare(entry: LoggedRequest, tokenizer: Tokenizer, render_chat: ChatRenderer | None) -> PreparedRequest:
    """Raises PrefixlintError when the request cannot be rendered (a bad line)."""
    if entry.is_chat:
        if render_chat is None:
            from prefixlint.errors import PrefixlintError

            raise PrefixlintError("chat requests need a chat template renderer")
        prompt = tokenizer.encode(render_chat(entry.body, tokenizer), add_special_tokens=False)
    elif isinstance(entry.body["prompt"], str):
        prompt = tokenizer.encode(entry.body["prompt"], add_special_tokens=True)
    else:
        prompt = list(entry.body["prompt"])
    generated: list[int] = []
    if entry.response_text:
        generated = tokenizer.encode(entry.response_text, add_special_tokens=False)
        if entry.finish_reason == "length":
            generated = generated[:-1]
    group = entry.template if entry.template is not None else leading_group(_first_text(entry))
    return PreparedRequest(entry.line, group, prompt, generated, entry.cache_salt, entry.reported_cached_tokens)
