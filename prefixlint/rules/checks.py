"""The rules' code: one small function per `check:` named in a rule file (rules/PFX*.yaml).

Each check receives its catalog `Rule` and the file's `Measured` data and yields Findings.
PFX001-PFX005 share `volatile_before_stable` (the rule's class decides which values it
reports). The chat-template rules PFX101/PFX102 are `prefixlint.rules.chat_template_check`'s
(they look at the model's chat template, not at the file's values). `prefixlint.rules.registry`
maps the names rule files give to these functions.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePath
from typing import Any, Iterator

from prefixlint.engines.profiles import EngineProfile
from prefixlint.load.registry import loader_for
from prefixlint.numbers import percent
from prefixlint.results import Finding
from prefixlint.rules.catalog import Rule
from prefixlint.rules.measured import Measured, VolatileMeasurement


def rounding(profile: EngineProfile) -> str:
    if profile.min_tokens:
        return f"the {profile.min_tokens:,}-token minimum"
    if profile.unit > 1:
        return f"{profile.unit}-token blocks"
    return f"{profile.name}'s rounding"


#: Why no conversation follows the text (`Template.sent_as`), said with the place that sends it.
_SENT = {"system": "Sent with one user message and no conversation", "user": "Sent as the user's message",
         "prompt": "Sent as the whole prompt of one turn"}


def _severity(rule: Rule, frequency: str) -> str:
    by_frequency = rule.options.get("severity_by_frequency") or {}
    return by_frequency.get(frequency, rule.severity)


def _finding(rule: Rule, data: Measured, item: VolatileMeasurement, message: str, severity: str,
             reusable: int, fixed_reusable: int, **extra) -> Finding:
    p = item.placeholder
    end = (p.line, p.column + len(p.text))  # exclusive, like ruff's end_location
    if "\n" in p.text and data.template is not None:  # a placeholder written over several lines
        end = data.template.position(p.offset + len(p.text))
    origin = data.template.origin(p.message, p.at) if data.template is not None else None
    if origin is not None:  # written in a base template this file extends: `at_origin` moves it there
        extra["origin"] = {"path": origin[0], "line": origin[1], "column": origin[2]}
    return Finding(
        path=data.path, line=p.line, column=p.column, code=rule.code, name=rule.name, severity=severity,
        message=message, variable=item.volatility.name, tokens=item.now.tokens,
        shared_prefix_tokens=item.now.shared_prefix_tokens, reusable_tokens=reusable,
        fixed_reusable_tokens=fixed_reusable, end_line=end[0], end_column=end[1],
        extra={"class": item.volatility.cls, "frequency": item.volatility.frequency,
               "signal": item.volatility.signal, "placeholder": p.text, **extra},
    )


def at_origin(finding: Finding) -> Finding:
    """A finding on a base template's own text (`extra["origin"]`, set by `_finding`) at the base's
    file, line and column, where the value is written, once the file's suppressions and fixes
    are done (`fix.attach` offers none: the fix belongs in the base, which every template
    extending it shares)."""
    origin = finding.extra.get("origin")
    if origin is None:
        return finding
    child, base = PurePath(finding.path).name, PurePath(origin["path"]).name
    length = (finding.end_column or finding.column) - finding.column if finding.end_line == finding.line else 0
    return replace(finding, path=origin["path"], line=origin["line"], column=origin["column"], end_line=origin["line"],
                   end_column=origin["column"] + length, message=f"{finding.message} Measured in {child}, which extends {base}.",
                   extra={**finding.extra, "extended_by": finding.path})


def volatile_before_stable(rule: Rule, data: Measured) -> Iterator[Finding]:
    """PFX001-PFX005: a volatile value of the rule's class with stable content after it. Ahead of a
    conversation history (a system prompt, as a chat server serves it), a value that changes per
    request or per day breaks the reuse of the history on every turn, wherever it sits: the
    message says how many tokens of history that is."""
    where = "Moved into the last user message" if data.is_chat else "Moved after the instructions"
    code = data.template is not None and loader_for(data.template.format).program_source
    if code:
        where = "Moved after the stable text"
    for item in data.volatiles:
        v = item.volatility
        if v.cls is None or data.catalog.rule_for(v.cls) != rule.code or not data.worth_reporting(item):
            continue
        if not item.moved:  # only a branch on the value changed the text: no line to move
            continue
        now = item.now
        fixed = (f" {where}: {percent(now.fixed_shared_prefix_tokens, now.fixed_tokens, bare_ends=True)}"
                 f" ({percent(now.fixed_reusable_tokens, now.fixed_tokens, bare_ends=True)}"
                 f" after {rounding(data.profile).split(' ')[-1]}).")
        value = f"{item.placeholder.text} ({data.catalog.describe(v.cls, v.frequency)})"
        # the promise, restated by `prefixlint.fix.attach` as the measurement of the fixed file
        extra: dict[str, Any] = {"promise": fixed, "promise_where": where, "promise_unit": rounding(data.profile).split(' ')[-1]}
        if item.history_tokens:  # ahead of the conversation: the history is lost on every turn
            place = "in the system prompt" if item.in_system_prompt else "ahead of the conversation"
            assumed = bool(getattr(data.measurer, "assumed_history", False))
            whose = " a chat server puts after it (assumed: nothing here shows the conversation)" if assumed else ""
            message = (
                f"{value} {place} breaks the reuse of the {item.history_tokens:,}-token history{whose} on every turn:"
                f" the shared prefix ends at token {now.shared_prefix_tokens:,} of {now.tokens:,},"
                f" {percent(now.shared_prefix_tokens, now.tokens, bare_ends=True)} reusable"
                f" ({percent(now.reusable_tokens, now.tokens, bare_ends=True)} after {rounding(data.profile)})." + fixed
            )
            extra["history_tokens"] = item.history_tokens
            if assumed:
                extra["history_assumed"] = True
        else:
            message = (
                f"{value} ends the shared prefix at token {now.shared_prefix_tokens:,} of {now.tokens:,}:"
                f" {percent(now.shared_prefix_tokens, now.tokens, bare_ends=True)} reusable,"
                f" {percent(now.reusable_tokens, now.tokens, bare_ends=True)} after {rounding(data.profile)}." + fixed
            )
        evidence, shown = _evidence(data, v.name)
        extra["evidence"] = evidence
        message += f" Evidence: {evidence}." if shown else ""
        alone = data.template.sent_alone if data.template is not None else None
        if alone:  # why no history follows this system prompt
            message += f" {_SENT.get(data.template.sent_as or 'system')} ({alone})."
            extra["sent_alone"] = alone
        severity = _severity(rule, v.frequency)
        if evidence.startswith("its name") and code:  # in program source the name alone is the weakest evidence
            severity = _LOWER.get(severity, severity)
        unread = _unread(data, item) if code and severity != "info" else None
        if unread:  # nothing calls the function (reads the constant) it is written in: nothing sends it
            message += f" Nothing in the repository reads `{unread}`, so nothing sends this text."
            extra["unread"] = unread
            severity = "info"
        unnamed = _unnamed(data) if not code and severity != "info" else None
        if unnamed:  # the code opens its folder's files by name, and this one's nowhere
            message += (f" Nothing in the repository names this file, while its folder's `{unnamed[0]}` is named"
                        f" ({unnamed[1]}), so nothing sends this text.")
            extra["unnamed"] = {"sibling": unnamed[0], "named_in": unnamed[1]}
            severity = "info"
        yield _finding(rule, data, item, message, severity, now.reusable_tokens,
                       now.fixed_reusable_tokens, stable_tokens_after=item.stable_tokens_after,
                       stable_block_after=item.stable_block_after, in_last_user_message=item.in_last_user_message,
                       fixed_tokens=now.fixed_tokens, fixed_shared_prefix_tokens=now.fixed_shared_prefix_tokens,
                       **extra)


def _unread(data: Measured, item: VolatileMeasurement) -> str | None:
    from prefixlint.load.reach import unread

    template = data.template
    return unread(template.path, template.source, item.placeholder.line) if template is not None else None


def _unnamed(data: Measured) -> tuple[str, str] | None:
    from prefixlint.load.file_reach import unnamed

    return unnamed(data.template.path) if data.template is not None else None


#: One severity lower, for a finding whose only evidence is the value's name.
_LOWER = {"error": "warning", "warning": "info"}


def _evidence(data: Measured, name: str) -> tuple[str, bool]:
    """Why the value is taken as volatile, and whether that is worth saying in the message: what
    the program fills it with (`filled by datetime.now() (graph.py:42)`), else the file's own
    declaration, else its name alone."""
    variable = data.template.variables.get(name) if data.template is not None else None
    if variable is not None and variable.evidence:
        where = f" ({PurePath(data.path).name}:{variable.line})" if variable.line else ""
        return variable.evidence + where, True
    if variable is not None and variable.kind is not None:
        return f"declared {variable.kind} in the file", False
    return f"its name ({name})", False


def boundary_merge(rule: Rule, data: Measured) -> Iterator[Finding]:
    """PFX006: the stable text's last token merges with the value's first characters."""
    include_whitespace = rule.options.get("include_whitespace", False)
    for item in data.volatiles:
        if not item.merged_text or item.volatility.name in data.flagged:
            continue
        if not include_whitespace and not item.merged_text.strip():
            continue
        now = item.now
        unmerged = data.profile.reusable_tokens(item.unmerged_shared_prefix_tokens, now.tokens)
        if unmerged <= now.reusable_tokens:  # the token it saves is in no more whole blocks: nothing gained
            continue
        shown = item.merged_text.encode("unicode_escape").decode("ascii")
        token = item.merged_token.encode("unicode_escape").decode("ascii")
        message = (
            f"the stable text before {item.placeholder.text} ends with {shown!r}, which merges with the value"
            f" into the token {token!r}: the shared prefix ends at token {now.shared_prefix_tokens:,} instead of"
            f" {item.unmerged_shared_prefix_tokens:,}, {now.reusable_tokens:,} tokens reused after {rounding(data.profile)}"
            f" instead of {unmerged:,}. End the stable text on a token boundary (e.g. a newline after {shown.strip()!r})."
        )
        yield _finding(rule, data, item, message, rule.severity, now.reusable_tokens, unmerged,
                       merged_text=item.merged_text, merged_token=item.merged_token)


def stable_prefix_below_minimum(rule: Rule, data: Measured) -> Iterator[Finding]:
    """PFX007: even with every fix, the stable prefix is too short for the engine to reuse any of it."""
    overall = data.best or data.overall
    if overall is None or not data.volatiles or overall.fixed_reusable_tokens > 0:
        return
    first = min(data.volatiles, key=lambda item: item.placeholder.offset)
    if first.in_last_user_message:  # the request's own turn, where its values belong: nothing to reorder
        return
    profile = data.profile
    minimum = max(profile.min_tokens, profile.unit if profile.whole_units_only else 1)
    limit = (f"{profile.name}'s minimum of {profile.min_tokens:,} tokens" if profile.min_tokens
             else f"one {profile.unit}-token block")
    message = (
        f"the stable prefix is {overall.fixed_shared_prefix_tokens:,} tokens of {overall.fixed_tokens:,},"
        f" below {limit}: nothing is reused however the template is ordered"
        f" (add stable content ahead of {first.placeholder.text}, or accept no caching)."
    )
    yield Finding(
        path=data.path, line=first.placeholder.line, column=first.placeholder.column, code=rule.code,
        name=rule.name, severity=rule.severity, message=message, variable=first.volatility.name,
        tokens=overall.tokens, shared_prefix_tokens=overall.shared_prefix_tokens,
        reusable_tokens=overall.reusable_tokens, fixed_reusable_tokens=overall.fixed_reusable_tokens,
        extra={"placeholder": first.placeholder.text, "minimum_tokens": minimum,
               "fixed_shared_prefix_tokens": overall.fixed_shared_prefix_tokens},
    )
