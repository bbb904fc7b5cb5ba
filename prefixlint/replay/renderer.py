"""The `prepare` of a replay: logged requests rendered and tokenized with the named tokenizer,
which is loaded at the first request that needs it (a trace, or a log of token ids without
responses, needs none), and the texts of token ids for the report."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any, Callable, Hashable

from prefixlint.engines.request import Request
from prefixlint.engines.simulators import skips_lookup
from prefixlint.errors import PrefixlintError
from prefixlint.replay.driver import Fatal
from prefixlint.replay.prepare import needs_tokenizer, prepare
from prefixlint.replay.requestlog import LoggedRequest
from prefixlint.tokenize import Tokenizer, TokenTexts


class Renderer:
    """Renders logged requests (picklable: `--workers` sends it to each process).

    `now`: the clock a template sees for lines without a timestamp; `chat_template`: a path
    that overrides the tokenizer's template; `lora_of(model)`: a request's adapter key."""

    def __init__(self, tokenizer_name: str, offline: bool, chat_template: str | None, now: datetime,
                 lora_of: Callable[[Any], Hashable | None], engine: str) -> None:
        self.args = (tokenizer_name, offline, chat_template, now)
        self.tokenizer: Tokenizer | None = None
        self.settings: Any = None
        self.template_error: PrefixlintError | None = None
        #: Whether a request line reached this renderer (the report then shows the tokenizer).
        self.used = False
        self.lora_of, self.engine = lora_of, engine

    def load(self) -> None:
        from prefixlint.tokenize import load_tokenizer

        name, offline, chat_template, now = self.args
        self.tokenizer = load_tokenizer(name, offline=offline)
        self.settings, self.template_error = _chat_settings(self.tokenizer, chat_template, now)

    def texts(self) -> TokenTexts:
        """What shows token ids as text: the tokenizer when it is loaded, else its vocabulary
        alone (`load_token_texts`: for a tiktoken encoding, a fraction of the encoder's cost)."""
        if self.tokenizer is not None:
            return self.tokenizer
        from prefixlint.tokenize import load_token_texts

        return load_token_texts(self.args[0], offline=self.args[1])

    def __call__(self, item: LoggedRequest) -> Request:
        self.used = True
        if self.tokenizer is None and needs_tokenizer(item):
            self.load()
        if item.is_chat and self.template_error is not None:
            raise Fatal(self.template_error)
        request = prepare(item, self.tokenizer, self.settings)
        lora, skip = self.lora_of(item.body.get("model")), skips_lookup(item.body, self.engine)
        return request if lora is None and not skip else replace(request, lora=lora, skip_lookup=skip)


def _chat_settings(tokenizer: Tokenizer, chat_template_path: str | None, now: datetime):
    """The chat template resolved once: (settings, the error to raise at the first chat line)."""
    from prefixlint.render.templates import read_chat_template, resolve_chat_template
    from prefixlint.replay.prepare import ChatSettings

    explicit = read_chat_template(chat_template_path) if chat_template_path else None
    try:
        return ChatSettings(resolve_chat_template(tokenizer, explicit), now), None
    except PrefixlintError as exc:
        return ChatSettings(now=now), exc
