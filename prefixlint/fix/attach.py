"""Give each finding of a moved value (PFX001-PFX005) its fix, as ruff's JSON has it.

A finding's fix moves the unit its value was measured in (`Measurer.modes`, decided once by
`prefixlint.match.units`). Every fix is built, loaded again and verified (`prefixlint.fix.verify`:
placeholders, words, containers; and the value's own reuse must grow in the fixed file) before
it is offered; otherwise `"fix": null` and the reason (`fix_unavailable`), also in the message.
The offered fixes are then combined into the file's one fixed text (`prefixlint.fix.plan`),
measured once as two requests with every volatile value different: that figure is the file's
"after the suggested fixes" and the promise of every finding it fixes (issue 24 item 4).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import PurePath

from prefixlint.fix.build import Builder, NoFix
from prefixlint.fix.edits import edits_json
from prefixlint.fix.file_reload import Planned
from prefixlint.fix.plan import FixSource, Offered, combine
from prefixlint.fix.source import source_messages
from prefixlint.fix.verify import Rejected, placeholder_names, verify
from prefixlint.numbers import percent
from prefixlint.rules.registry import MOVING_CODES  # derived from the catalog


def _loaded(path: str, text: str) -> tuple:
    """Every template of `path` as `text` holds it, loaded once per text: a module holding many
    prompts is read once for the fixes of all of them, not once per prompt."""
    return _LOADED(path, text)


def _load_uncached(path: str, text: str) -> tuple:
    from prefixlint.load.registry import load_templates

    return tuple(load_templates(path, text))


def _cache():
    from functools import lru_cache

    return lru_cache(maxsize=4)(_load_uncached)


_LOADED = _cache()


def reloader(template):
    """Load an edited text as the same template (the same prompt of a file holding several)."""
    from prefixlint.errors import PrefixlintError
    from prefixlint.load.registry import load_templates

    before_all: list = []  # the file as checked, loaded once for all its prompts' fixes (issue 19 item 9)
    seen: dict[str, object] = {}  # an edited text is loaded once: the fix, its check and the combined fix

    def reload(text: str):
        if text not in seen:
            if len(seen) >= 8:
                seen.pop(next(iter(seen)))
            seen[text] = _reload(text)
        return seen[text]

    def _reload(text: str):
        try:
            if not before_all:
                before_all.append(_loaded(template.path, template.source))
            before = [t for t in before_all[0] if t.path == template.path]
            after = [t for t in load_templates(template.path, text) if t.path == template.path]
        except (PrefixlintError, RecursionError, ValueError):
            return None
        index = next((i for i, t in enumerate(before) if t.messages == template.messages), None)
        return after[index] if index is not None and len(after) == len(before) else None

    return reload


class Checker:
    """Verify a fixed template against the original, and measure it (`remeasure(template)`:
    a Measurer of another template with this file's settings)."""

    def __init__(self, template, measurer, remeasure) -> None:
        self.remeasure, self.template = remeasure, template
        self.messages = source_messages(template, measurer.compiled.placeholders)
        self.names = placeholder_names(measurer.compiled)
        self.done: dict[int, tuple] = {}  # id of a fixed template -> (it, its measurer or Rejected)

    def __call__(self, fixed):
        """The fixed template's measurer (Rejected when it must not be offered), worked out once
        per fixed template: a fix, its combination and the file's fixed text are often the same."""
        if fixed is None:
            raise Rejected("the fixed file no longer loads")
        key = id(fixed)
        if key not in self.done:
            try:
                self.done[key] = (fixed, self._check(fixed))
            except Rejected as exc:
                self.done[key] = (fixed, exc)
        outcome = self.done[key][1]
        if isinstance(outcome, Rejected):
            raise outcome
        return outcome

    def _check(self, fixed):
        if self.template.format == "python":  # only the prompts' literals changed (libcst)
            from prefixlint.fix.python_cst import CodeChanged, same_code

            try:
                same_code(self.template.source, fixed.source)
            except CodeChanged as exc:
                raise Rejected(str(exc)) from None
        try:
            measurer = self.remeasure(fixed)
        except Exception as exc:  # noqa: BLE001 - a fixed text that does not render is not offered
            raise Rejected(f"the fixed file no longer renders ({type(exc).__name__})") from None
        verify(self.messages, self.names, source_messages(fixed, measurer.compiled.placeholders),
               placeholder_names(measurer.compiled))
        return measurer


def _moving(findings, template, measured):
    """(index, finding, its measured value) of every finding whose fix moves its value."""
    by_name = {m.volatility.name: m for m in measured}
    for k, finding in enumerate(findings):
        item = by_name.get(finding.variable) if finding.code in MOVING_CODES else None
        if item is not None and item.moved and finding.path == template.path and "origin" not in finding.extra:
            yield k, finding, item


def planned_fixes(findings, build: Builder, measurer, measured) -> Planned:
    """The edit sets `attach` will ask to be loaded, in its order, when every fix holds: each
    finding's fix, then each combination of them (`fix/file_reload.py` loads a file's prompts'
    plans together). Built without loading anything (`attach` takes them from `build`); nothing
    here is offered."""
    template, base, edits, offered = build.template, measurer.render(), [], []
    for _, _, item in _moving(findings, template, measured):
        modes = measurer.modes(set(item.moved), base)
        if any(i in measurer.no_unit for i in modes):
            continue
        try:
            edits.append(build(modes).edits)
        except NoFix:
            continue
        offered.append(modes)
    combined: dict[int, str] = {}
    for modes in offered:  # as `fix.plan.combine` tries them
        trial = {**combined, **modes}
        try:
            edits.append(build(trial).edits)
        except NoFix:
            continue
        combined = trial
    return Planned(tuple(dict.fromkeys(edits)))


def attach(findings, build: Builder, measurer, measured, remeasure=None, vary=None, reload=None):
    """(the findings with their `fix`, the file's FixSource, the measurement of its fixed text
    or None when no fix is offered), the fixes made by `build` (of the template checked).
    `reload(text)` loads an edited text as this template (default: `reloader(template)`)."""
    template, placeholders = build.template, build.placeholders
    checker = Checker(template, measurer, remeasure) if remeasure is not None else None
    reload = reload if reload is not None else reloader(template)
    source = FixSource(template, tuple(placeholders), check=checker, reload=reload, build=build)
    out, fixes = list(findings), {}
    for k, finding in enumerate(out):  # written in a base template: the fix belongs there, shared by all that extend it
        if "origin" in finding.extra and finding.code in MOVING_CODES:
            base_name, child = PurePath(finding.extra["origin"]["path"]).name, PurePath(finding.path).name
            out[k] = _unfixed(finding, f"the value is written in {base_name}, which {child} extends: move it there")
    base = measurer.render()
    before = flagged(measurer, measured)
    for k, finding, item in _moving(findings, template, measured):
        modes = measurer.modes(set(item.moved), base)
        try:
            reason = next((measurer.no_unit[i] for i in sorted(modes) if i in measurer.no_unit), None)
            if reason:
                raise NoFix(reason)
            fix = build(modes, reload)
            if checker is not None:
                _grows(checker(reload(build.text(modes))), item, before)
        except (NoFix, Rejected) as exc:
            out[k] = _unfixed(finding, str(exc))
            continue
        fixes[k] = fix
        source.offered.append(Offered(finding.sort_key(), modes, fix.applicability))
    after = now_all = None
    if fixes and checker is not None:
        _, count, fixed = combine(build, source.offered, reload, checker)
        if fixed is not None:
            fixed_measurer = checker(fixed)
            after = fixed_measurer.measure_all(set(), vary)
            source = replace(source, fixed_ids=tuple(fixed_measurer.render().ids))
            now_all = measurer.measure_all(set(), vary)
            if after.fixed_reusable_tokens <= now_all.reusable_tokens:
                # the one number says the fixed file reuses no more than now (the next value then
                # opens the shared prefix): not offered, as a fix that does not help
                reason = ("moving it leaves the file reusing no more than now with every value different"
                          " (the next value then ends the shared prefix)")
                out = [_unfixed(f, reason) if k in fixes else f for k, f in enumerate(out)]
                fixes, after = {}, None
                source = FixSource(template, tuple(placeholders), check=checker, reload=reload, build=build)
    for k, fix in fixes.items():
        data = {"applicability": fix.applicability, "message": fix.message,
                "edits": edits_json(template.source, fix.edits)}
        out[k] = _promised(replace(out[k], extra={**out[k].extra, "fix": data}), after, len(fixes), now_all)
    return out, source, after


def after_fixes(overall, after):
    """The file's measurement with its "after the suggested fixes" figures those of its fixed
    text (`after`); as it is now when no fix is offered."""
    if after is not None:
        return replace(overall, fixed_tokens=after.fixed_tokens, fixed_reusable_tokens=after.fixed_reusable_tokens,
                       fixed_shared_prefix_tokens=after.fixed_shared_prefix_tokens)
    # No fix offered: the text after the suggested fixes is the text as it is, whatever a move
    # by hand might give (that is each finding's own, labelled "by hand"), and whatever the
    # measurement of the prompt with its conversation held the same would say.
    return replace(overall, fixed_tokens=overall.tokens, fixed_reusable_tokens=overall.reusable_tokens,
                   fixed_shared_prefix_tokens=overall.shared_prefix_tokens)


def flagged(measurer, measured=None) -> int:
    """How many volatile values the moving rules flag (stable text after them, a line to move)."""
    if measured is None:
        measured = [m for m in (measurer.measure(v, merges=False) for v in measurer.volatiles) if m is not None]
    return sum(m.stable_tokens_after >= measurer.min_stable_tokens and bool(m.moved) for m in measured)


def _grows(fixed_measurer, item, before: int) -> None:
    """Rejected unless the value's own measured reuse is larger in the fixed file and the fixed
    file has fewer flagged values (a move that only hands the problem to the next value is none)."""
    volatility = fixed_measurer.volatility.get(item.volatility.name)
    again = fixed_measurer.measure(volatility, merges=False) if volatility is not None else None
    if again is not None and again.now.reusable_tokens <= item.now.reusable_tokens:
        raise Rejected("moving it does not increase the measured reuse")
    if flagged(fixed_measurer) >= before:
        raise Rejected("moving it leaves as many flagged values as before (the next value would be flagged)")


def _unfixed(finding, reason: str):
    """No fix: the reason in the JSON and in the message, and the promise labelled as by hand.
    A move by hand measured to reuse less than now (the text after the value holds it again, or
    the two values happen to share their first characters) is said to be no gain, and the
    finding's `fixed_reusable_tokens` is the reuse now: nothing suggested reuses less."""
    extra = {**finding.extra, "fix": None, "fix_unavailable": reason}
    promise = extra.get("promise")
    message = finding.message
    parts = _around(message, promise)
    worse = (finding.fixed_reusable_tokens is not None and finding.reusable_tokens is not None
             and finding.fixed_reusable_tokens < finding.reusable_tokens)
    if parts is not None:
        assert promise is not None  # parts are found only around a promise
        where = extra.get("promise_where", "Moved")
        head, tail = parts
        by_hand = promise.replace(f" {where}:", f" {where} by hand:", 1)
        if worse:
            by_hand = by_hand[:-1] + ", no gain over now." if by_hand.endswith(".") else by_hand
        message = head + f" No automatic fix: {reason}." + by_hand + tail
    if worse:
        extra["by_hand_reusable_tokens"] = finding.fixed_reusable_tokens
        return replace(finding, message=message, extra=extra, fixed_reusable_tokens=finding.reusable_tokens)
    return replace(finding, message=message, extra=extra)


def _around(message: str, promise) -> tuple[str, str] | None:
    """The message before and after its promise (the evidence follows it), or None without one."""
    at = message.rfind(promise) if promise else -1
    return None if at < 0 else (message[:at], message[at + len(promise):])


def _promised(finding, after, fixes: int, now_all=None):
    """The finding's promise restated as the measurement of the file's fixed text."""
    extra = finding.extra
    promise = extra.get("promise")
    parts = _around(finding.message, promise)
    if after is None or parts is None:
        return finding
    where = extra.get("promise_where", "Moved")
    together = f", with the file's other fix{'es' if fixes > 2 else ''}" if fixes > 1 else ""
    # the file's other values differ too: its reuse now is theirs as well (below this value's own)
    now = (f", from {percent(now_all.reusable_tokens, now_all.tokens, bare_ends=True)} now with every value different"
           if together and now_all is not None and finding.reusable_tokens is not None
           and now_all.reusable_tokens < finding.reusable_tokens else "")
    restated = (f" {where}{together}: {percent(after.fixed_shared_prefix_tokens, after.fixed_tokens, bare_ends=True)}"
                f" ({percent(after.fixed_reusable_tokens, after.fixed_tokens, bare_ends=True)}"
                f" after {extra.get('promise_unit', 'blocks')}{now}).")
    return replace(finding, message=parts[0] + restated + parts[1],
                   fixed_reusable_tokens=after.fixed_reusable_tokens,
                   extra={**extra, "promise": restated, "fixed_tokens": after.fixed_tokens,
                          "fixed_shared_prefix_tokens": after.fixed_shared_prefix_tokens})
