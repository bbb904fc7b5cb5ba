"""Check one template file: load -> render -> tokenize -> measure -> rules -> a FileResult.

`check_file` never raises for a problem with the file: a PrefixlintError becomes the
result's `error`, so the command reports it and goes on with the other files.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from prefixlint.errors import PrefixlintError
from prefixlint.report.results import FileResult
from prefixlint.rules.finding import Finding


@dataclass(frozen=True)
class Settings:
    """What `check` needs to know for one file (the merged configuration and flags)."""

    tokenizer: str = "o200k_base"
    engine: str = "vllm"
    block_size: int | None = None
    #: Whether a rule code is reported (`Config.is_enabled`: select/ignore); None: every rule.
    enabled: Callable[[str], bool] | None = None
    min_stable_tokens: int = 16
    extend_volatile: Any = None
    offline: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def check_file(path: str, settings: Settings, *, skip_non_templates: bool = False,
               text: str | None = None) -> FileResult | None:
    """The file's result; None when `skip_non_templates` and no loader reads the file (a YAML
    file found by a directory walk that is not a prompt template). `text`, when given, is
    checked as the content of `path` (a file as it is at a git revision)."""
    from prefixlint.load.registry import NotATemplate

    try:
        return _check(path, settings, text)
    except NotATemplate as exc:
        return None if skip_non_templates else FileResult(path, error=exc.located(path))
    except PrefixlintError as exc:
        return FileResult(path, error=exc.located(path))
    except RecursionError:
        return FileResult(path, error=PrefixlintError("template nests too deeply to render", path=path))


def _check(path: str, settings: Settings, text: str | None = None) -> FileResult:
    from prefixlint.load.registry import load_template
    from prefixlint.match.profiles import get_profile
    from prefixlint.render.compile import compile_template
    from prefixlint.rules.catalog import load_catalog
    from prefixlint.rules.checks import Measured, check_function
    from prefixlint.rules.classify import builtin_catalog, load_catalog_extension
    from prefixlint.rules.measure import Measurer
    from prefixlint.rules.suppress import Suppressions
    from prefixlint.tokenize import load_tokenizer

    template = load_template(path, text)
    suppressions = Suppressions.parse(template.source, path)
    profile = get_profile(template.engine or settings.engine, settings.block_size)
    compiled = compile_template(template)
    if template.declares_variables:
        _check_declared(template, compiled)
    tokenizer = load_tokenizer(template.tokenizer or settings.tokenizer, offline=settings.offline)
    catalog = builtin_catalog().extended(load_catalog_extension(settings.extend_volatile))
    measurer = Measurer(template, compiled, tokenizer, profile, catalog, settings.min_stable_tokens)
    measured = [m for m in (measurer.measure(v) for v in measurer.volatiles) if m is not None]
    flagged = [m for m in measured if m.stable_tokens_after >= settings.min_stable_tokens and m.moved]
    moved = set().union(*(m.moved for m in flagged)) if flagged else set()
    overall = measurer.measure_all(moved)
    # Only when the suggested fixes leave nothing reusable: would any order help at all?
    best = measurer.measure_all() if measured and overall.fixed_reusable_tokens == 0 else overall
    data = Measured(path, template.is_chat, profile, catalog, settings.min_stable_tokens, measured, overall,
                    {m.volatility.name for m in flagged}, best, template, tokenizer, measurer)
    findings: list[Finding] = []
    enabled = settings.enabled or (lambda code: True)
    for rule in load_catalog().values():
        if rule.check and enabled(rule.code):  # PFX000 comes from the suppressions, not a check
            findings += check_function(rule)(rule, data)
    kept, unused = suppressions.apply(findings, path, enabled=settings.enabled)
    findings = kept + unused
    findings.sort(key=Finding.sort_key)
    return FileResult(
        path, overall.tokens, overall.reusable_tokens, overall.fixed_reusable_tokens, tuple(findings),
        extra={"format": template.format, "tokenizer": tokenizer.name, "engine": profile.name,
               "block_size": profile.unit, "shared_prefix_tokens": overall.shared_prefix_tokens,
               "fixed_tokens": overall.fixed_tokens,
               "fixed_shared_prefix_tokens": overall.fixed_shared_prefix_tokens,
               "volatile": {m.volatility.name: {"class": m.volatility.cls, "frequency": m.volatility.frequency,
                                                "stable_tokens_after": m.stable_tokens_after}
                            for m in measured}},
    )


def _check_declared(template, compiled) -> None:
    """In a file that declares its variables, using an undeclared one is an error at its use."""
    for name in compiled.variables:
        if name in template.variables:
            continue
        uses = [p for p in compiled.placeholders if name in p.names]
        if uses:
            line, column = uses[0].line, uses[0].column
        else:
            line, column = _first_word(template.source, name)
        raise PrefixlintError(
            f"undefined variable {name!r}", path=template.path, line=line, column=column,
            hint=f"declare it under `variables:` (e.g. `{name}: {{kind: per_request, samples: [...]}}`)",
        )


def _first_word(source: str, name: str) -> tuple[int | None, int | None]:
    for number, text in enumerate(source.split("\n"), 1):
        found = re.search(rf"\b{re.escape(name)}\b", text)
        if found and ("{{" in text or "{%" in text):
            return number, found.start() + 1
    return None, None


def check_files(paths: Iterable[str], settings_for: Callable[[str], Settings],
                walked: frozenset[str] = frozenset()) -> list[FileResult]:
    """Results in order; files in `walked` (found by a directory walk) that are not templates
    are left out."""
    results = []
    for path in paths:
        try:
            settings = settings_for(path)
        except PrefixlintError as exc:
            results.append(FileResult(path, error=exc.located(path)))
            continue
        result = check_file(path, settings, skip_non_templates=path in walked)
        if result is not None:
            results.append(result)
    return results
