"""What the checks look at: the measurements the check pipeline (`prefixlint.check.measure`) makes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prefixlint.engines.profiles import EngineProfile
from prefixlint.load.classify import Catalog, Volatility
from prefixlint.render.spans import Placeholder


@dataclass(frozen=True)
class Measurement:
    """Two requests that differ only in some volatile values, and their fixed variants."""

    tokens: int  # of the first request (the base render)
    shared_prefix_tokens: int
    reusable_tokens: int
    fixed_tokens: int
    fixed_shared_prefix_tokens: int
    fixed_reusable_tokens: int


@dataclass(frozen=True)
class VolatileMeasurement:
    volatility: Volatility
    placeholder: Placeholder  # where the two renders first differ
    moved: frozenset[int]  # placeholders whose lines the fix moves
    now: Measurement
    #: Tokens of stable text after the value, in the whole request.
    stable_tokens_after: int
    #: The stable text just before the placeholder that the value's first token swallowed
    #: ("" when the token boundary holds), that token, and the shared prefix without the merge.
    merged_text: str
    merged_token: str
    unmerged_shared_prefix_tokens: int
    #: Tokens of the conversation history after the value, when the value changes more often than
    #: once per conversation (per request, per day): the reuse it breaks on every turn; else 0.
    history_tokens: int = 0
    #: Whether the value is in a system message (the system prompt).
    in_system_prompt: bool = False
    #: Whether the value is in the last user message of a conversation: where a per-request value
    #: belongs, so only a long text after it (`Measured.min_tail_tokens`) makes it worth a finding.
    in_last_user_message: bool = False
    #: With no history after the value (or in the last user message): tokens of the longest run
    #: of stable text after it, which later values do not cut (a message's end does not): the
    #: labels between its later values move with them, so only a whole run is worth moving past.
    stable_block_after: int = 0


@dataclass
class Measured:
    """Everything the checks look at for one file."""

    path: str
    is_chat: bool
    profile: EngineProfile
    catalog: Catalog
    min_stable_tokens: int
    volatiles: list[VolatileMeasurement]
    #: All volatile values differing at once, and with every flagged value moved.
    overall: Measurement | None = None
    flagged: set[str] = field(default_factory=set)
    #: All volatile values differing, with every one of them moved after the stable content.
    best: Measurement | None = None
    #: For rules that need more: the loaded template, the tokenizer, and the Measurer
    #: (cached renders and encodings; `measurer.framing` says how messages were framed).
    template: Any = None
    tokenizer: Any = None
    measurer: Any = None
    #: For a chat template checked on its own: what PFX101/PFX102's probes found
    #: (`prefixlint.rules.chat_template_check.ChatTemplateDetections`).
    chat_template: Any = None
    #: `min-tail-tokens`: the run of stable tokens after a value that no conversation follows
    #: (in the last user message, or in a request program source sends alone) that makes it a
    #: finding: a short closing instruction after the question or the context is not worth it.
    min_tail_tokens: int = 80

    def worth_reporting(self, item: VolatileMeasurement) -> bool:
        """Enough stable text after the value to be worth a finding (issue 19 item 8), and a move
        of it that serves more of the request from the cache than now (after blocks)."""
        if item.now.fixed_reusable_tokens <= item.now.reusable_tokens:
            return False
        if item.in_last_user_message or not item.history_tokens and self.sent_alone():
            return item.stable_block_after >= max(self.min_tail_tokens, self.min_stable_tokens)
        if not item.history_tokens:  # the labels between later values move with them
            return item.stable_block_after >= self.min_stable_tokens
        return item.stable_tokens_after >= self.min_stable_tokens

    def sent_alone(self) -> bool:
        """Whether the code shows that no conversation follows the request: program source, whose
        calls the loader read, with no history written or assumed after its messages, or a prompt
        file the code that reads it sends alone (`Template.sent_as`); a prompt file checked alone
        may be the system prompt of a conversation it cannot show, so there the absence of a
        history is no evidence."""
        from prefixlint.load.registry import loader_for

        measurer = self.measurer
        if self.template is None or measurer is None or measurer.writes_history:
            return False
        if self.template.sent_as:  # a prompt file the code sends alone (`prefixlint.load.file_sends`)
            return True
        return loader_for(self.template.format).program_source and not measurer.assumed_history
