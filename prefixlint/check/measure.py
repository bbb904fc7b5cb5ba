"""Measure what each volatile value of a template costs, with the real tokenizer.

For each volatile variable or call: render the template twice with everything equal except that value,
tokenize both, and measure the exact shared prefix, the tokens the engine reuses after its rounding, the
stable tokens after the value, and the same numbers for the fixed variant (the value's lines moved after
the stable content). A system prompt on its own is served followed by the conversation history
(`prefixlint.check.served`): a value there that changes per request or per day costs the history on every
turn, a per-user value only the stable text up to the history. Messages become the request through their
framing (`prefixlint.render.framing`). Each distinct text is rendered and tokenized once.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from prefixlint.check.caps import refuse_long_words, refuse_too_many_values
from prefixlint.check.locate import first_use, merged_at, span_at, stable_runs, unknown_placeholders
from prefixlint.check.memos import Memos
from prefixlint.check.served import history_region, own_target, serve, tokens_before
from prefixlint.engines.profiles import EngineProfile
from prefixlint.fix.source import placements
from prefixlint.load.classify import Catalog, Volatility, classify_call, classify_variable
from prefixlint.load.registry import loader_for
from prefixlint.load.template import SLOT_ROLE, Template
from prefixlint.match import variants
from prefixlint.match.clause import lead_ins
from prefixlint.match.prefix import shared_prefix
from prefixlint.render.conversation import split_json, split_roles
from prefixlint.render.framing import ApproximateFraming
from prefixlint.render.history import History, history_value
from prefixlint.render.spans import CompiledTemplate, Placeholder, RenderedMessage, last_user_turn
from prefixlint.render.values import call_function, stable_function, variable_value
from prefixlint.rules.measured import Measurement, VolatileMeasurement


@dataclass(frozen=True)
class Request:
    """One render of the template as the server sees it."""

    messages: tuple[RenderedMessage, ...]
    text: str
    starts: tuple[int, ...]  # where each message's text starts in `text`
    ids: list[int]
    #: The message a fix moves values into, as `check --fix` plans it on the template's own
    #: messages (`own_target`); None: as planned on these messages.
    target: int | None = None


class Measurer:
    def __init__(self, template: Template, compiled: CompiledTemplate, tokenizer, profile: EngineProfile,
                 catalog: Catalog, min_stable_tokens: int, framing=None, history: History | None = None,
                 like: Measurer | None = None, memos: Memos | None = None) -> None:
        self.template, self.compiled, self.tokenizer, self.profile = template, compiled, tokenizer, profile
        #: The earlier turns of the conversation (the same object the framing expands slots with).
        self.history = History() if history is None else history
        #: How messages become the request (`prefixlint.render.framing`): the model's chat
        #: template where the tokenizer has one, else the ChatML approximation.
        self.framing = framing or ApproximateFraming(template.is_chat)
        self.min_stable_tokens = min_stable_tokens
        self.volatility: dict[str, Volatility] = {}
        declared = template.variables
        for name in compiled.variables:
            variable = declared.get(name)
            self.volatility[name] = classify_variable(
                catalog, name, variable.kind if variable else None, variable.samples if variable else ())
        for name in compiled.functions:
            args = [a for p in compiled.placeholders if name in p.calls for a in p.call_args]
            self.volatility[name] = classify_call(catalog, name, args)
        #: The conversation so far written as text (`generate: conversation`, a name the file does not
        #: declare, not the slot the framing serves as messages): the earlier turns in the first
        #: request, one more turn appended in the later one.
        self.appended = frozenset(name for name, v in self.volatility.items() if v.volatile and v.generate == "conversation"
                                  and name != template.slot and not any(m.role == SLOT_ROLE and name in m.content
                                                                        for m in template.messages)
                                  and not (declared.get(name) and (declared[name].kind not in (None, "appended")
                                                                   or declared[name].samples)))
        self.writes_history = bool(self.appended) or any(v.kind == "conversation" for v in declared.values())
        self.assumed_history = False
        self._renders: dict[frozenset[str], Request] = {}
        self.memos: Memos = like.memos if like is not None else memos or Memos()  # `like`: a measurer of the file
        self._encoded, self._lines = self.memos.encodings(tokenizer)  # texts, line runs (`encode_lines`) -> ids
        self._reuse = self.memos.reuse
        #: Measurements made, by their arguments: a fix's check asks for the fixed text's values
        #: more than once (the value's own reuse, then how many values are flagged).
        self._measured: dict[Volatility, VolatileMeasurement | None] = {}
        self._unmerged: dict[Volatility, VolatileMeasurement | None] = {}  # `measure(merges=False)`
        self._measured_all: dict[tuple, Measurement] = {}
        self._fixed_ids: dict[tuple, tuple[Request, list[int]]] = {}  # a value and the file measure a render alike
        self._compared: dict[tuple, tuple[Request, Request, Request, Measurement]] = {}
        refuse_too_many_values(len(self.volatiles))  # before the work that grows with the values

    @cached_property
    def _placed(self) -> tuple[dict[int, str], dict[int, str]]:
        """How each value moves in the fixed variant, decided once (when a move is first measured:
        a fixed text's values seldom move again): both renders and the fix agree."""
        return placements(self.template, self.compiled.placeholders, lead_ins(self.compiled.placeholders, self.volatility))

    @property
    def placements(self) -> dict[int, str]:
        return self._placed[0]

    @property
    def no_unit(self) -> dict[int, str]:
        """Why a placeholder cannot be cut out cleanly (`fix.source.placements`)."""
        return self._placed[1]

    @property
    def volatiles(self) -> list[Volatility]:
        return [v for v in self.volatility.values() if v.volatile]

    def encode(self, text: str) -> list[int]:
        ids = self._encoded.get(text)
        if ids is None:  # (a run of 100,000 letters without a space is refused: no word is that long)
            # tiktoken encodings reuse the ids of lines already tokenized (exact: see
            # `prefixlint.tokenize.tiktoken_family.LINE_START`); other tokenizers take the text whole.
            ids = self.tokenizer.encode_lines(refuse_long_words(text), self._lines)
            self._encoded[text] = ids
        return ids

    def render(self, vary: frozenset[str] = frozenset()) -> Request:
        request = self._renders.get(vary)
        if request is None:
            values: dict[str, Any] = {}
            functions: dict[str, Any] = {}
            for name, v in self.volatility.items():
                variant = 1 if name in vary else 0
                if name in self.appended:  # the same turns, and the next one in the later request
                    values[name] = self.history.appended() if variant else self.history
                elif v.is_call:
                    functions[name] = call_function(v.generate, variant) if v.volatile else stable_function
                else:
                    declared = self.template.variables.get(name)
                    samples = declared.samples if declared else ()
                    if declared is not None and declared.kind == "conversation":
                        values[name] = history_value(name, self.history, self.template.source)  # the same in every request
                        continue
                    values[name] = variable_value(name, samples, v.generate, variant, v.volatile)
            messages = self.compiled.render(values, functions)
            if self.template.role_markers:
                messages = split_roles(messages[0], self.template.role_line)
            elif self.template.json_messages:
                messages = split_json(messages[0], self.template.path)
            target = None
            if self.template.is_chat:
                own = tuple(messages)
                alone = self.template.sent_alone or loader_for(self.template.format).whole_request
                history = History(()) if alone else self.history
                # a system prompt on its own: the history a chat server puts after it, which nothing here shows
                self.assumed_history = bool(history) and not self.writes_history and all(m.role == "system" for m in own)
                messages = serve(own, history, has_history=self.writes_history)
                target = own_target(own, messages)
            framed = self.framing.frame(messages, self.encode)
            request = self._renders[vary] = Request(framed.messages, framed.text, framed.starts, framed.ids, target)
        return request

    def compare(self, a: Request, b: Request, moved: set[int], fixed_b: Request | None = None) -> Measurement:
        """`a` against `b` now, and their fixed variants (`fixed_b`: the request the fixed
        variant is compared with, when not `b`); once per such renders (a value's measurement is
        often the file's with every value different: a single value, or none moved)."""
        key = (id(a), id(b), id(fixed_b or b), frozenset(moved))  # renders, kept below: their ids stay theirs
        known = self._compared.get(key)
        if known is None or known[0] is not a or known[1] is not b or known[2] is not (fixed_b or b):
            known = self._compared[key] = (a, b, fixed_b or b, self._compare(a, b, moved, fixed_b or b))
        return known[3]

    def _compare(self, a: Request, b: Request, moved: set[int], fixed_b: Request) -> Measurement:
        shared = shared_prefix(a.ids, b.ids)
        modes = self.modes(moved, a)
        fixed_a, fixed_b_ids = self._fixed(a, modes), self._fixed(fixed_b, modes)
        fixed_shared = shared_prefix(fixed_a, fixed_b_ids)
        # Sizes are those of the first request (the same base render for every value and for
        # the file's summary); what the engine reuses is computed for the second, as it is the
        # one served from the cache, by the engine's simulator (`prefixlint.engines.serve`).
        return Measurement(len(a.ids), shared, self._reuse(a.ids, b.ids, self.profile),
                           len(fixed_a), fixed_shared, self._reuse(fixed_a, fixed_b_ids, self.profile))

    def fixed_ids(self, request: Request, moved: set[int]) -> list[int]:
        """The ids of `request` with the `moved` placeholders moved after the stable content."""
        return self._fixed(request, self.modes(moved, request))

    def modes(self, moved: set[int], base: Request) -> dict[int, str]:
        """LINE/SENTENCE for each moved placeholder: as decided from the template, else from
        the base render (a placeholder the template's content does not hold verbatim)."""
        if not moved:
            return {}
        placed = self.placements
        modes = {i: placed[i] for i in moved if i in placed}
        missing = set(moved) - set(modes)
        if missing:
            modes.update(variants.decide(base.messages, missing))
        return modes

    def _fixed(self, request: Request, modes: dict[int, str]) -> list[int]:
        if not modes:
            return request.ids
        key = (id(request), tuple(sorted(modes.items())))  # a render (kept below: its id stays its own)
        if key not in self._fixed_ids or self._fixed_ids[key][0] is not request:
            self._fixed_ids[key] = (request, self._fixed_variant(request, modes))
        return self._fixed_ids[key][1]

    def _fixed_variant(self, request: Request, modes: dict[int, str]) -> list[int]:
        in_place = loader_for(self.template.format).program_source
        plan = variants.plan_moves(request.messages, modes, in_place)
        if request.target is not None and not (in_place and variants.in_place_target(request.messages, plan.cuts, plan.origins)
                                               is not None):
            plan = replace(plan, target=request.target)  # as the fix: not into the user's message the server adds
        texts = variants.apply_plan([m.text for m in request.messages], plan)
        roles = [m.role for m in request.messages] + [variants.NEW_ROLE]  # a message added after the conversation
        renamed = tuple(RenderedMessage(role, t, ()) for role, t in zip(roles, texts))
        return self.framing.frame(renamed, self.encode).ids

    def measure(self, volatility: Volatility, merges: bool = True) -> VolatileMeasurement | None:
        """The value's measurement; without `merges`, not where its tokens merge with the text before
        it (`merged_text`, `merged_token`, `unmerged`: a fix's check reads only reuse and stable text)."""
        if volatility not in self._measured and (merges or volatility not in self._unmerged):
            (self._measured if merges else self._unmerged)[volatility] = self._measure(volatility, merges)
        return self._measured[volatility] if volatility in self._measured else self._unmerged[volatility]

    def _measure(self, volatility: Volatility, merges: bool = True) -> VolatileMeasurement | None:
        base, varied = self.render(), self.render(frozenset({volatility.name}))
        if base.text == varied.text:
            return None  # the value never reaches the output
        moved = variants.changed_placeholders(base.messages, varied.messages)
        at = variants.first_difference(base.text, varied.text)
        message, span = span_at(base, at, moved)
        if span is not None:
            placeholder = self.compiled.placeholders[span.placeholder]
        elif moved:
            placeholder = self._first(moved)
        else:  # only template text changed (a branch taken on the value): point at its first use
            placeholder = first_use(self.template, volatility.name)
        span_end = base.starts[message] + span.end if span else at
        history_tokens, history_start = self._history_after(base, span_end)
        stop = None
        if history_tokens and volatility.frequency != "per_request":
            # constant within a conversation: it costs the stable text up to the history, not the history
            history_tokens, stop = 0, history_start
        runs = self._stable_runs(base, span_end, stop)
        stable_after = self._tokens("".join(runs))
        last_user = last_user_turn(base.messages, message, self.template)
        # with no history after it, only a whole run of stable text is worth moving it past (the
        # labels between later values move with them)
        block_after = max(map(self._tokens, runs), default=0) if last_user or not history_tokens else stable_after
        measured = self.compare(base, varied, moved if stable_after >= self.min_stable_tokens else set())
        merged_text, merged_token, unmerged = "", "", measured.shared_prefix_tokens
        if span is not None and merges:
            merged_text, merged_token = merged_at(self.tokenizer, base, varied, message, measured.shared_prefix_tokens)
            if merged_text:
                unmerged = len(self.encode(base.text[: base.starts[message] + span.start]))
        return VolatileMeasurement(volatility, placeholder, frozenset(moved), measured, stable_after, merged_text, merged_token,
                                   unmerged, history_tokens, base.messages[message].role == "system", last_user, block_after)

    def history_tokens(self) -> int:
        """Tokens of the conversation history in the base render (0: none)."""
        return self._history_after(self.render(), 0)[0]

    def _history_after(self, base: Request, end: int) -> tuple[int, int | None]:
        """(tokens of the conversation history, where it starts) when it comes after text offset
        `end` of the base render; (0, None) when there is none after it."""
        region = history_region(base.messages, base.starts, base.text, self.history)
        if region is None or region[0] < end:
            return 0, None
        start, stop = region
        return tokens_before(self.tokenizer, base.text, base.ids, stop) - tokens_before(
            self.tokenizer, base.text, base.ids, start), start

    def _first(self, placeholders: set[int]) -> Placeholder:
        return min((self.compiled.placeholders[i] for i in placeholders), key=lambda p: p.offset)

    def _stable_runs(self, base: Request, end: int, stop: int | None) -> list[str]:
        """The runs of text after `end` (up to `stop`) that no volatile or unknown value cuts."""
        everything = self.render(frozenset(v.name for v in self.volatiles) - self.appended)  # earlier turns: stable
        cuts = variants.changed_placeholders(base.messages, everything.messages) | unknown_placeholders(
            self.compiled.placeholders, self.volatility, self.template, self.appended)  # nor an unknown value
        return stable_runs(base.messages, base.starts, cuts, end, stop)

    def _tokens(self, text: str) -> int:
        return len(self.encode(text)) if text.strip() else 0

    def measure_all(self, moved: set[int] | None = None, fixed_vary: frozenset[str] | None = None) -> Measurement:
        """All volatile values differ at once (two unrelated requests); the fix moves `moved`
        (None: every value that changes, the best order there is). With `fixed_vary`, the fixed
        variant is that of two requests differing in those values only (the flagged ones): the
        file's "after the suggested fixes" is then what its findings predict together."""
        key = (None if moved is None else frozenset(moved), fixed_vary)
        if key not in self._measured_all:
            self._measured_all[key] = self._measure_all(moved, fixed_vary)
        return self._measured_all[key]

    def _measure_all(self, moved: set[int] | None, fixed_vary: frozenset[str] | None) -> Measurement:
        base = self.render()
        everything = self.render(frozenset(v.name for v in self.volatiles))
        if moved is None:
            moved = variants.changed_placeholders(base.messages, everything.messages)
        fixed_b = self.render(fixed_vary) if fixed_vary else None
        return self.compare(base, everything, moved, fixed_b)

