"""PFX101/PFX102 for the chat template that `check` renders chat files with: once per template per run.

When a chat file is rendered through the model's chat template (`prefixlint.render.framing`),
what the template itself does to reuse (it writes the date: PFX101; it rewrites earlier
turns: PFX102) is a property of the template, not of the file. It is measured once per
template and tokenizer (`prefixlint.rules.chat_template_check`, the checks a standalone
chat-template file gets), and reported against the template: its file (the model
directory's or hub snapshot's `chat_template.jinja` or `tokenizer_config.json`) and the line
of the Jinja source where the change originates. harmony (gpt-oss) has no Jinja source: its
findings are reported against `harmony format (openai-harmony)`, line 1.

Each chat file decides what it lets through: its `--select`/`--ignore` and configuration, and
its `disable-file` suppressions (`# prefixlint: disable-file PFX101`: the user cannot edit a
vendor's template in the hub cache). A finding is reported once if any file lets it through.
A chat-template file checked on its own gets the same checks (`check_chat_template`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

from prefixlint.errors import PrefixlintError, TemplateRenderError
from prefixlint.results import FileResult, Finding
from prefixlint.rules.registry import CHAT_TEMPLATE_CODES


class ChatTemplateRuns:
    """The template-level results of one `check` run, keyed by template and tokenizer."""

    def __init__(self) -> None:
        self._checked: dict[tuple[str, str], FileResult] = {}
        self._shown: dict[tuple[str, str], dict[Finding, None]] = {}
        self._sent_checked: set[tuple[str, str]] = set()  # what `take_new` handed out already
        self._sent_shown: dict[tuple[str, str], int] = {}

    def findings(self, chat_template, tokenizer_spec: str, tokenizer, settings, profile) -> list[Finding]:
        """Every PFX101/PFX102 finding of the template (before any file's filters); [] when its
        probes fail (that error is reported once, against the template)."""
        key = (chat_template.path or chat_template.origin, tokenizer.name)
        result = self._checked.get(key)
        if result is None:
            result = self._checked[key] = _check_template(chat_template, tokenizer_spec, tokenizer, settings, profile)
            self._shown[key] = {}
        return list(result.findings)

    def show(self, chat_template, tokenizer, findings: list[Finding]) -> None:
        """Report these (what one file let through) with the template's result."""
        self._shown[(chat_template.path or chat_template.origin, tokenizer.name)].update(dict.fromkeys(findings))

    def take_new(self) -> tuple[dict, dict]:
        """What was checked and shown since the last call: a worker process hands it to the run's
        own ChatTemplateRuns (`absorb`), so the run reports each template once, in order."""
        checked = {key: result for key, result in self._checked.items() if key not in self._sent_checked}
        self._sent_checked.update(checked)
        shown = {}
        for key, findings in self._shown.items():
            new = list(findings)[self._sent_shown.get(key, 0):]
            if new:
                shown[key] = new
            self._sent_shown[key] = len(findings)
        return checked, shown

    def absorb(self, new: tuple[dict, dict]) -> None:
        checked, shown = new
        for key, result in checked.items():
            self._checked.setdefault(key, result)
            self._shown.setdefault(key, {})
        for key, findings in shown.items():
            self._shown.setdefault(key, {}).update(dict.fromkeys(findings))

    def results(self) -> list[FileResult]:
        """One result per template with findings some file let through, or an error."""
        out = []
        for key, result in self._checked.items():
            shown = tuple(sorted(self._shown[key], key=Finding.sort_key))
            if result.error is not None:
                out.append(result)
            elif shown:
                out.append(replace(result, findings=shown))
        return out


def _check_template(chat_template, tokenizer_spec: str, tokenizer, settings, profile) -> FileResult:
    from prefixlint.check.runner import measured_file

    every_rule = replace(settings, tokenizer=tokenizer_spec, enabled=_chat_template_rules, engine=profile.name)
    if chat_template.path is not None:  # a file: checked as a standalone chat template is
        result = measured_file(chat_template.path, every_rule, _load(chat_template.path))
        error = result.error
        if error is not None:
            error.message = f"the chat template of {tokenizer.name} fails on prefixlint's probe messages: {error.message}"
            if error.line is None and isinstance(error, TemplateRenderError) and error.template_line:
                error.line = chat_template.file_location(error.template_line)[1]
        return result
    try:
        return _check_unfiled(chat_template, tokenizer, profile)
    except PrefixlintError as exc:
        return FileResult(chat_template.origin, error=exc.located(chat_template.origin))


def check_chat_template(path, template, settings, profile, suppressions) -> FileResult:
    """A chat template file on its own (`check/runner.py` hands it here): PFX101/PFX102 from probe
    renders with the run's tokenizer."""
    from prefixlint.check.runner import offline_for
    from prefixlint.load.classify import builtin_catalog
    from prefixlint.rules.chat_template_check import detect, prompt_tokens
    from prefixlint.rules.measured import Measured
    from prefixlint.rules.registry import run_checks
    from prefixlint.tokenize import load_tokenizer

    enabled = settings.enabled or (lambda code: True)
    tokenizer = load_tokenizer(template.tokenizer or settings.tokenizer, offline=offline_for(template, settings))
    detections = detect(template, tokenizer, enabled)
    data = Measured(path, True, profile, builtin_catalog(), settings.min_stable_tokens, [],
                    chat_template=detections)
    findings = list(run_checks(data, enabled))
    kept, unused = suppressions.apply(findings, path, enabled=settings.enabled)
    findings = sorted(kept + unused, key=Finding.sort_key)
    date = detections.date
    tokens = date.prompt_tokens if date is not None else prompt_tokens(tokenizer, template)
    stable = date.stable_prefix_tokens if date is not None else tokens
    return FileResult(path, tokens, profile.reusable_tokens(stable, tokens), profile.reusable_tokens(tokens, tokens),
                      tuple(findings), format=template.format, model=template.model or None,
                      tokenizer=tokenizer.name, engine=profile.name, block_size=profile.unit,
                      shared_prefix_tokens=stable)


def _chat_template_rules(code: str) -> bool:
    return code in CHAT_TEMPLATE_CODES


def _load(path: str):
    from prefixlint.load.chat_template import load
    from prefixlint.load.files import read_text

    try:
        return load(path, read_text(path))
    except PrefixlintError:
        return None  # check_file loads it again and reports the problem


def _check_unfiled(chat_template, tokenizer, profile) -> FileResult:
    """A template with no file (harmony): the detections, reported at line 1 of its origin."""
    from prefixlint.load.classify import builtin_catalog
    from prefixlint.rules.chat_template import detect_date_injection, detect_history_rewrite
    from prefixlint.rules.chat_template_check import ChatTemplateDetections
    from prefixlint.rules.measured import Measured
    from prefixlint.rules.registry import run_checks

    date = detect_date_injection(tokenizer, chat_template)
    history = detect_history_rewrite(tokenizer, chat_template)
    detections = ChatTemplateDetections(date, (date.line or 1, 1) if date else None,
                                        history, (history.line or 1, 1) if history else None)
    data = Measured(chat_template.origin, True, profile, builtin_catalog(), 0, [], chat_template=detections)
    findings = list(run_checks(data))
    tokens = date.prompt_tokens if date else 0
    return FileResult(chat_template.origin, tokens, profile.reusable_tokens(date.stable_prefix_tokens, tokens)
                      if date else 0, profile.reusable_tokens(tokens, tokens), tuple(findings),
                      format=chat_template.format, tokenizer=tokenizer.name, engine=profile.name,
                      block_size=profile.unit, shared_prefix_tokens=date.stable_prefix_tokens if date else 0)


def let_through(findings: list[Finding], enabled: Callable[[str], bool] | None) -> list[Finding]:
    """The template findings a file's select/ignore enables."""
    return [f for f in findings if enabled is None or enabled(f.code)]
