"""Check a Hugging Face chat template on its own: PFX101 and PFX102 on the template itself.

The detections (`prefixlint.rules.chat_template`) render probe conversations with the
template and the run's tokenizer: two clocks for PFX101 (does the template write the date?),
a reply turned into history for PFX102 (does the next request still start with the previous
one?). Their template lines are mapped to the line and column of the file, and the rules'
findings (`chat_template_injects_date`, `chat_template_rewrites_history` below, with the
name and severity of rules/PFX101.yaml and PFX102.yaml) are filtered and suppressed like any
others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterator

from prefixlint.load.template import Template, source_location
from prefixlint.results import Finding
from prefixlint.rules.catalog import Rule

if TYPE_CHECKING:
    from prefixlint.rules.chat_template import DateInjection, HistoryRewrite


@dataclass(frozen=True)
class ChatTemplateDetections:
    """What the probes found, each with its (line, column) in the file (None: nothing found)."""

    date: DateInjection | None = None
    date_at: tuple[int, int] | None = None
    history: HistoryRewrite | None = None
    history_at: tuple[int, int] | None = None
    prompt_tokens: int = 0
    #: PFX103: the same history text in other tokens (`chat_template_tokens.HistoryRetokenized`).
    retokenized: object | None = None
    retokenized_at: tuple[int, int] | None = None


def detect(template: Template, tokenizer, enabled) -> ChatTemplateDetections:
    from jinja2 import TemplateError

    from prefixlint.errors import PrefixlintError
    from prefixlint.rules.chat_template import detect_date_injection, detect_history_rewrite

    source = template.messages[0].content
    _parse(template)
    try:
        # The date is measured whatever is selected (it decides the file's reusable tokens);
        # the history probe only feeds PFX102's finding.
        date = detect_date_injection(tokenizer, source)
        history = detect_history_rewrite(tokenizer, source) if enabled("PFX102") else None
        retokenized = None
        if enabled("PFX103") and history is None:
            from prefixlint.rules.chat_template_tokens import detect_history_retokenize

            retokenized = detect_history_retokenize(tokenizer, source)
    except TemplateError as exc:
        line = getattr(exc, "lineno", None)
        where = source_location(template, template.messages[0], line) if line else (None, None)
        raise PrefixlintError(f"cannot render the chat template: {exc}", path=template.path, line=where[0]) from None
    return ChatTemplateDetections(
        date, _where(template, date.line if date else None, "strftime_now"),
        history, _where(template, history.line if history else None, None),
        retokenized=retokenized, retokenized_at=_where(template, retokenized.line if retokenized else None, None),
    )


def _parse(template: Template) -> None:
    """A syntax error is reported at its line in the file, before any probe renders."""
    from jinja2 import TemplateSyntaxError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from prefixlint.errors import PrefixlintError

    try:
        ImmutableSandboxedEnvironment(extensions=["jinja2.ext.loopcontrols"]).parse(template.messages[0].content)
    except TemplateSyntaxError as exc:
        from prefixlint.render.jinja_syntax import syntax_location

        message = template.messages[0]
        at, column, hint = syntax_location(message.content, exc,
                                           lambda line, col: source_location(template, message, line, col))
        line, file_column = source_location(template, message, at or 1, column or 1)
        raise PrefixlintError(f"Jinja syntax error in the chat template: {exc.message}", path=template.path,
                              line=line, column=file_column if column else None, hint=hint) from None


def prompt_tokens(tokenizer, template: Template) -> int:
    """Tokens of the first date probe the template renders (the file's summary line)."""
    from prefixlint.errors import PrefixlintError
    from prefixlint.render.chat import render_chat
    from prefixlint.rules.chat_template import DATE_PROBES

    for number, probe in enumerate(DATE_PROBES):
        try:
            return len(render_chat(probe, tokenizer=tokenizer, chat_template=template.messages[0].content)
                       .ids(tokenizer))
        except PrefixlintError:
            if number == len(DATE_PROBES) - 1:  # a template that refuses a system message tries the next
                raise
    return 0


def _where(template: Template, line: int | None, word: str | None) -> tuple[int, int] | None:
    """File (line, column) of template line `line`: at `word` on it, else its first non-blank."""
    if line is None:
        return None
    message = template.messages[0]
    lines = message.content.split("\n")
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    column = text.find(word) if word and word in text else len(text) - len(text.lstrip())
    return source_location(template, message, line, column + 1)


def chat_template_injects_date(rule: Rule, data) -> Iterator[Finding]:
    """PFX101: the chat template writes the current date (or time) into every prompt."""
    if (detected := _detected(data, "date")) is None:
        return
    date, at = detected
    total, shared = date.prompt_tokens, date.stable_prefix_tokens
    message = (
        f"the chat template writes the date into every prompt ({date.text!r}, {date.other_text!r} on a later day):"
        f" after a date change only the first {shared:,} of {total:,} tokens of a request are reused."
        f" Pass the date in a message where it is needed, or take it out of the template."
    )
    yield _finding(rule, data, at, message, date.line, total, shared, variable="strftime_now",
                   extra={"placeholder": "strftime_now" if date.line else "", "template_line": date.line,
                          "output_line": date.output_line, "text": date.text, "other_text": date.other_text})


def chat_template_rewrites_history(rule: Rule, data) -> Iterator[Finding]:
    """PFX102: the chat template renders an earlier turn differently once it is history."""
    if (detected := _detected(data, "history")) is None:
        return
    rewrite, at = detected
    cached, shared = rewrite.cached_tokens, rewrite.shared_prefix_tokens
    message = (
        f"{rewrite.reason}: the next request shares {shared:,} of the {cached:,} tokens cached for the previous"
        f" one (its prompt and the generated reply), so every turn recomputes the history from there."
    )
    yield _finding(rule, data, at, message, rewrite.line, cached, shared,
                   extra={"placeholder": "", "reason": rewrite.reason, "template_line": rewrite.line,
                          "cached_line": rewrite.cached_line, "cached_text": rewrite.cached_text,
                          "new_text": rewrite.new_text})


def _detected(data, name: str) -> tuple[Any, tuple[int, int]] | None:
    """The file's `name` detection (`date`, `history`, `retokenized`) and the (line, column) it is
    reported at; None when the template does not do it."""
    found = data.chat_template
    item = getattr(found, name, None) if found is not None else None
    if item is None:
        return None
    return item, getattr(found, f"{name}_at", None) or (1, 1)


def _finding(rule: Rule, data, at: tuple[int, int], message: str, template_line: int | None, tokens: int,
             shared: int, *, variable: str | None = None, extra: dict) -> Finding:
    """A template finding: `shared` of `tokens` reused now, all of them once the template is fixed;
    the message ends with the template's own line where the file's differs."""
    line, column = at
    return Finding(
        path=data.path, line=line, column=column, code=rule.code, name=rule.name, severity=rule.severity,
        message=_with_template_line(message, line, template_line), variable=variable, tokens=tokens,
        shared_prefix_tokens=shared, reusable_tokens=data.profile.reusable_tokens(shared, tokens),
        fixed_reusable_tokens=data.profile.reusable_tokens(tokens, tokens), extra=extra,
    )


def _with_template_line(message: str, file_line: int, template_line: int | None) -> str:
    """Where the file line is not the template's (a tokenizer_config.json holds the template
    on one line), the message ends with the template's own line."""
    if not template_line or template_line == file_line:
        return message
    return f"{message.rstrip('.')} (chat template line {template_line})."


def chat_template_retokenizes_history(rule: Rule, data) -> Iterator[Finding]:
    """PFX103: the next request tokenizes the previous reply's text otherwise than it was generated."""
    if (detected := _detected(data, "retokenized")) is None:
        return
    item, at = detected
    cached, shared = item.cached_len, item.shared_prefix_tokens
    message = (
        f"the next request re-tokenizes history where the generation prompt meets the reply ({item.cached_tokens!r}"
        f" as generated, {item.new_tokens!r} as history): it shares {shared:,} of the {cached:,} tokens cached"
        " for the previous request. End the generation prompt with a special token or a newline, not a space."
    )
    yield _finding(rule, data, at, message, item.line, cached, shared,
                   extra={"placeholder": "", "template_line": item.line, "cached_tokens": list(item.cached_tokens),
                          "new_tokens": list(item.new_tokens)})
