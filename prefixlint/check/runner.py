"""Check one template file: load -> render -> tokenize -> measure -> rules -> a FileResult.

`check_file` never raises for a problem with the file: a PrefixlintError becomes the
result's `error`, so the command reports it and goes on with the other files.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any, Callable, Generator, Iterable

from prefixlint.check.settings import Settings
from prefixlint.errors import ChatTemplateFailure, PrefixlintError
from prefixlint.results import FileResult, Finding


def check_path(path: str, settings: Settings, *, skip_non_templates: bool = False,
               chat_templates=None, text: str | None = None) -> list[FileResult]:
    """The results for one file: one per file a template comes from (a promptfoo config's prompts
    may live in the config and in the files it references); a file's prompts are summed. With
    `skip_non_templates` (a file found by a directory walk), a file no loader reads gives none.
    `chat_templates` (a `ChatTemplateRuns`) collects the findings of the chat templates the
    file's messages are rendered with; without it, they come after the file's own results."""
    from prefixlint.check.chat_template_runs import ChatTemplateRuns
    from prefixlint.check.collector import fewer_collections
    from prefixlint.load.registry import NotATemplate, load_templates

    if chat_templates is None:
        runs = ChatTemplateRuns()
        with fewer_collections():  # the collector tuned for one file's check, here only (check/collector.py)
            return check_path(path, settings, skip_non_templates=skip_non_templates, chat_templates=runs,
                              text=text) + runs.results()

    from prefixlint.check.skips import documentation_skip, skipped, walked_result
    from prefixlint.load.files import EmptyFile

    named = not (skip_non_templates or settings.configured_prompt)
    page = documentation_skip(path, text) if named else None  # named: a docs page is no template
    if page is not None:
        return [page]
    try:
        templates = load_templates(path, text)
    except EmptyFile as exc:  # an empty template (a `.j2` placeholder file) has nothing to measure
        return [FileResult(path, skipped=exc.reason)]
    except NotATemplate as exc:
        return [skipped(path, exc)] if skip_non_templates else [FileResult(path, error=exc.located(path))]
    except PrefixlintError as exc:
        return [walked_result(FileResult(path, error=exc.located(path)), path, text, None, skip_non_templates)]
    except RecursionError:
        return [walked_result(FileResult(path, error=PrefixlintError("template nests too deeply to render", path=path)),
                        path, text, None, skip_non_templates)]
    if len(templates) == 1 and templates[0].path == path:
        result = measured_file(path, settings, templates[0], chat_templates)
        return [walked_result(result, path, text, templates[0], skip_non_templates)]
    results = merge_by_path([walked_result(result, t.path, None, t, skip_non_templates)
                             for t, result in zip(templates, _checked_together(path, settings, templates, chat_templates))])
    # Measured through this config: `check_files` measures such a file once, this way.
    return [replace(result, config=path) if result.error is None and result.skipped is None else result
            for result in results]


def merge_by_path(results: list[FileResult]) -> list[FileResult]:
    merged: dict[str, list[FileResult]] = {}
    for result in results:
        merged.setdefault(result.path, []).append(result)
    out = []
    for group in merged.values():
        out += [r for r in group if r.error is not None]
        good = [r for r in group if r.error is None and r.skipped is None]
        if not good and not any(r.error is not None for r in group):
            out.append(group[0])  # every prompt of the file skipped: the file is, once
            continue
        if good:
            findings = tuple(sorted(dict.fromkeys(f for r in good for f in r.findings), key=Finding.sort_key))
            out.append(replace(good[0], tokens=sum(r.tokens for r in good),
                               reusable_tokens=sum(r.reusable_tokens for r in good),
                               fixed_reusable_tokens=sum(r.fixed_reusable_tokens for r in good), findings=findings,
                               prompts=len(good), fix_sources=tuple(x for r in good for x in r.fix_sources),
                               unknown={k: v for r in good for k, v in (r.unknown or {}).items()} or None,
                               sent_alone=good[0].sent_alone if len({r.sent_alone for r in good}) == 1 else None,
                               **_summed(good)))
    return out


def _summed(results: list[FileResult]) -> dict[str, Any]:  # FileResult keywords
    keys = ("shared_prefix_tokens", "fixed_tokens", "fixed_shared_prefix_tokens")
    return {key: sum(getattr(r, key) or 0 for r in results) for key in keys
            if getattr(results[0], key) is not None}


def measured_file(path: str, settings: Settings, template, chat_templates=None) -> FileResult:
    """`check_file` of a loaded template: a result always (None is only for skipped non-templates)."""
    result = check_file(path, settings, template, chat_templates=chat_templates)
    assert result is not None
    return result


def check_file(path: str, settings: Settings, template=None, *, skip_non_templates: bool = False,
               chat_templates=None, text: str | None = None) -> FileResult | None:
    """The file's result (`template`: already loaded); None when `skip_non_templates` and no
    loader reads the file (a YAML file found by a directory walk that is not a prompt template).
    The findings of the chat template its messages are rendered with go to `chat_templates`
    (a `ChatTemplateRuns`), reported once per run against the template; without one, nowhere.
    `text`, when given, is checked as the content of `path` (a file as it is at a git revision)."""
    from prefixlint.check.boundary import Steps

    steps = Steps(path, skip_non_templates, _check(path, settings, template, chat_templates, text))
    done, value = steps.advance(None)
    return value if done else steps.advance(None)[1]  # None: its fixes verified alone (fix/attach.py)


def _checked_together(path: str, settings: Settings, templates, chat_templates) -> list[FileResult]:
    """The results of the prompts of one file, checked together: each measured and its fixes
    planned, then verified on one load of the file per round of fixes (`fix/file_reload.py`);
    their measurers share one set of memos (`check/memos.py`)."""
    from prefixlint.check.boundary import Steps
    from prefixlint.check.memos import Memos
    from prefixlint.fix.file_reload import FileReload
    from prefixlint.load.registry import load_templates

    if any(t.path != path or t.source is not templates[0].source for t in templates):  # a config's prompt files
        return [measured_file(t.path, settings, t, chat_templates) for t in templates]
    memos = Memos()
    steps = [Steps(path, False, _check(path, settings, t, chat_templates, plan=True, memos=memos)) for t in templates]
    firsts = [step.advance(None) for step in steps]
    together = FileReload(path, templates[0].source, templates, load_templates)
    for index, (done, planned) in enumerate(firsts):
        together.plan(index, None if done else planned)
    return [value if done else step.advance(together.reloader)[1]
            for index, (step, (done, value)) in enumerate(zip(steps, firsts))]


def _check(path: str, settings: Settings, template=None, chat_templates=None, text: str | None = None,
           plan: bool = False, memos=None) -> Generator[Any, Any, FileResult]:
    """The check of one template; it yields once, before its fixes are verified: the fixes it
    plans (`plan`, a `Planned`) or None, and is sent what makes the `reload` to verify them with
    from the template (None: `fix.attach.reloader`). `memos`: those of the file's other prompts."""
    from prefixlint.check.caps import refuse_too_many_names, refuse_too_much_work
    from prefixlint.check.chat_template_runs import let_through
    from prefixlint.check.measure import Measurer
    from prefixlint.engines.profiles import get_profile
    from prefixlint.fix.attach import after_fixes, attach, planned_fixes
    from prefixlint.fix.build import Builder
    from prefixlint.load.classify import builtin_catalog, load_catalog_extension
    from prefixlint.load.registry import load_template, loader_for
    from prefixlint.load.system_prompt import as_system_prompt
    from prefixlint.load.template import SLOT_NAMES, finding_tags
    from prefixlint.render.compile import compile_template
    from prefixlint.render.framing import framing_for
    from prefixlint.render.history import History
    from prefixlint.rules.checks import at_origin
    from prefixlint.rules.measured import Measured
    from prefixlint.rules.registry import CHAT_TEMPLATE_CODES, run_checks
    from prefixlint.rules.suppress import literal_ranges
    from prefixlint.tokenize import load_tokenizer

    template = template if template is not None else load_template(path, text)
    listed = settings.is_system_prompt is not None and settings.is_system_prompt(path)
    template = as_system_prompt(template, listed)  # a system prompt is served followed by the history
    suppressions = _suppressions(template.source, path).spanning(literal_ranges(template))
    profile = get_profile(template.engine or settings.engine, settings.block_size)
    if loader_for(template.format).chat_template:
        from prefixlint.check.chat_template_runs import check_chat_template

        return check_chat_template(path, template, settings, profile, suppressions)
    compiled = compile_template(template)
    if template.declares_variables:
        from prefixlint.check.declared import check_declared

        check_declared(template, compiled)
    tokenizer_spec = template.tokenizer or settings.tokenizer
    tokenizer = load_tokenizer(tokenizer_spec, offline=offline_for(template, settings))
    catalog = builtin_catalog().extended(load_catalog_extension(settings.extend_volatile))
    history = History.of(settings.history_turns)
    framing = framing_for(tokenizer, template.is_chat, _served_template(settings, template.is_chat, path), history)
    refuse_too_many_names(compiled)
    measurer = Measurer(template, compiled, tokenizer, profile, catalog, settings.min_stable_tokens, framing,
                        history, memos=memos)
    try:
        refuse_too_much_work(measurer)  # the caps on values and tokens, before the work
        measured = [m for m in (measurer.measure(v) for v in measurer.volatiles) if m is not None]
        tail = Measured("", False, profile, catalog, settings.min_stable_tokens, [], min_tail_tokens=settings.min_tail_tokens)
        flagged = [m for m in measured if tail.worth_reporting(m) and m.moved]
        moved = set().union(*(m.moved for m in flagged)) if flagged else set()
        # After the fixes, an undeclared conversation loop (`chat_history`) is the earlier turns,
        # the same in both requests, not per-request content (issue 11 item 8).
        slot_names = {n for n in SLOT_NAMES if n not in template.variables}
        overall = measurer.measure_all(moved, frozenset(v.name for v in measurer.volatiles if v.name not in slot_names))
        # Only when the suggested fixes leave nothing reusable: would any order help at all?
        best = measurer.measure_all() if measured and overall.fixed_reusable_tokens == 0 else overall
    except ChatTemplateFailure as exc:  # at the file's first message
        exc.located(path, template.position(template.messages[0].file_offset(0))[0])
        raise
    data = Measured(path, template.is_chat, profile, catalog, settings.min_stable_tokens, measured, overall,
                    {m.volatility.name for m in flagged}, best, template, tokenizer, measurer,
                    min_tail_tokens=settings.min_tail_tokens)
    findings = list(run_checks(data, settings.enabled))  # PFX000 comes from the suppressions
    enabled = settings.enabled or (lambda code: True)
    shown: list[Finding] = []
    if (framing.chat_template is not None and chat_templates is not None
            and any(enabled(code) for code in CHAT_TEMPLATE_CODES)):
        shown = let_through(chat_templates.findings(framing.chat_template, tokenizer_spec, tokenizer, settings,
                                                    profile), settings.enabled)
    kept, unused = suppressions.apply(findings, path, enabled=settings.enabled, elsewhere=shown)
    if shown:  # what this file lets through of its chat template's findings, reported once
        chat_templates.show(framing.chat_template, tokenizer, [f for f in kept if f.path != path])
    tags = finding_tags(template)  # "source" (python, typescript, a format name) and "prompt"
    findings = [replace(f, extra={**tags, **f.extra}) for f in kept if f.path == path] + unused
    findings.sort(key=Finding.sort_key)
    remeasure = lambda t: Measurer(t, compile_template(t), tokenizer, profile, catalog,  # noqa: E731 (a fixed text)
                                   settings.min_stable_tokens, framing, measurer.history, like=measurer)
    vary = frozenset(v.name for v in measurer.volatiles if v.name not in slot_names)
    build = Builder(template, compiled.placeholders)  # each fix built once: planned, offered, combined
    reload = yield (planned_fixes(findings, build, measurer, measured) if plan else None)
    findings, fix_source, after = attach(findings, build, measurer, measured, remeasure, vary,
                                         reload=reload(template) if reload is not None else None)
    findings = [at_origin(f) for f in findings]  # a value written in a base template: at its line there
    overall = after_fixes(overall, after)  # one number: the measurement of the fixed text
    view = None
    if settings.token_view:  # check --format html
        from prefixlint.check.token_view import token_view

        view = token_view(measurer, measured, moved, overall, fix_source.fixed_ids)
    return FileResult(
        path, overall.tokens, overall.reusable_tokens, overall.fixed_reusable_tokens, tuple(findings),
        format=template.format, model=template.model or None, tokenizer=tokenizer.name, engine=profile.name,
        **_chat_format(framing), block_size=profile.unit, shared_prefix_tokens=overall.shared_prefix_tokens,
        fixed_tokens=overall.fixed_tokens, fixed_shared_prefix_tokens=overall.fixed_shared_prefix_tokens,
        history_tokens=measurer.history_tokens() or None, sent_alone=template.sent_alone,
        unknown={name: v.evidence or name for name, v in template.variables.items() if v.unknown} or None,
        volatile={m.volatility.name: {"class": m.volatility.cls, "frequency": m.volatility.frequency,
                                      "stable_tokens_after": m.stable_tokens_after}
                  for m in measured}, token_view=view,
        fix_sources=(fix_source,),
    )


@lru_cache(maxsize=4)
def _suppressions(source: str, path: str):
    """The file's suppression comments, read once for all the prompts of a module."""
    from prefixlint.rules.suppress import Suppressions

    return Suppressions.parse(source, path)


def offline_for(template, settings: Settings) -> bool:
    """A tokenizer named by the template file itself comes from the local cache only in CI (and
    must lie inside the repository when it is a path): a pull request must not choose what CI
    downloads or reads. The repository's configuration and the workflow's flags are trusted."""
    from prefixlint.limits import template_tokenizer_offline

    return settings.offline or template_tokenizer_offline(template.tokenizer, template.path)


def _served_template(settings: Settings, is_chat: bool, path: str):
    """The chat template given by flag or configuration, for a chat file; else None."""
    from prefixlint.render.templates import load_chat_template

    if not (settings.chat_template and is_chat):
        return None
    try:
        return load_chat_template(settings.chat_template)
    except PrefixlintError as exc:  # --chat-template was read up front: this is the key's
        exc.hint = exc.hint or f"the `chat-template` key of the configuration of {path} names it"
        raise


def _chat_format(framing) -> dict[str, Any]:  # FileResult keywords
    """How a chat file's messages were framed: the model's chat format and template, or the
    ChatML approximation (no public chat format for the tokenizer); nothing for a prompt."""
    if framing.chat_template is None:
        return {"chat_format": framing.chat_format} if framing.is_chat else {}
    return {"chat_format": framing.chat_format, "chat_template": framing.chat_template.origin}


def check_files(paths: Iterable[str], settings_for: Callable[[str], Settings],
                walked: frozenset[str] = frozenset(), **options) -> list[FileResult]:
    """`prefixlint.check.files.check_files`: every file in a worker process with its budgets."""
    from prefixlint.check.files import check_files as check_all

    return check_all(paths, settings_for, walked, **options)
