"""Checking many files: each in a worker process with its budgets, behind the file boundary.

`check_files` hands every path to `prefixlint.sandbox.workers.run_bounded` (one worker process
by default, reused; the memory and time budget of a file enforced from outside the work) and
puts the results together in the order of the paths, exactly as an in-process run does
(`PREFIXLINT_WORKERS=0`, or no `os.fork`): the same results, the same order.
"""

from __future__ import annotations

import os
from typing import Callable, Iterable

from prefixlint.check.boundary import PASSING, guarded, overrun
from prefixlint.check.settings import Settings
from prefixlint.errors import PrefixlintError
from prefixlint.results import FileResult


def check_files(paths: Iterable[str], settings_for: Callable[[str], Settings],
                walked: frozenset[str] = frozenset(), *, texts: dict[str, str] | None = None,
                progress: Callable[[], None] | None = None, fixes: tuple[bool, ...] = (),
                in_process: bool = False, reads: Callable[[str, list[str]], None] | None = None
                ) -> list[FileResult]:
    """Results in order; files in `walked` (found by a directory walk) that are not templates
    are left out. `texts` gives the content of paths not read from disk (standard input);
    `progress` is called once per path; `reads(path, files)` once per path checked, with the
    files read while checking it (where it was checked: the result cache keys on them).

    A result is plain data: its fixes are written out where the file was checked, for each
    variant in `fixes` (False: the safe ones, True: with the unsafe ones; `FileResult.fixed_texts`,
    what `prefixlint.fix.write.fixed_text` answers from), with or without workers alike.
    `in_process` (the language server, whose threads must not be forked) checks every file
    here, behind the same boundary, and keeps the results' fix sources (its hover reads them)."""
    from prefixlint.check.cache import tracked_reads
    from prefixlint.check.chat_template_runs import ChatTemplateRuns
    from prefixlint.fix.write import planned
    from prefixlint.sandbox.workers import Overrun, run_bounded

    paths = list(paths)
    texts = texts or {}
    worker_runs = ChatTemplateRuns()  # the worker's own (each worker process has its copy)

    def check_one(index: int):
        path = paths[index]

        def check() -> list[FileResult]:
            found = _check_one(path, settings_for, path in walked, worker_runs, texts.get(path))
            return found if in_process else [planned(r, fixes) for r in found]

        with tracked_reads() as read:
            found = guarded(path, check)
        return found, worker_runs.take_new(), read

    results: list[FileResult] = []
    chat_templates = ChatTemplateRuns()
    through_configs: set[str] = set()  # files whose prompts a config (promptfoo) references

    def keep(index: int) -> bool:
        if progress is not None:
            progress()
        return os.path.abspath(paths[index]) not in through_configs

    for index, outcome in run_bounded(check_one, range(len(paths)), keep=keep, in_process=in_process,
                                      warm=lambda: _warm(settings_for, paths[0])):
        path = paths[index]
        if os.path.abspath(path) in through_configs:
            continue  # one file, one measurement: through the config that references it
        if isinstance(outcome, Overrun):
            found = [overrun(path, outcome)]
        else:
            found, new_runs, read = outcome
            chat_templates.absorb(new_runs)
            if reads is not None:
                reads(path, read)
        referenced = {os.path.abspath(r.path) for r in found if r.config}
        if referenced:
            results = [r for r in results if os.path.abspath(r.path) not in referenced]
            through_configs |= referenced
        results += found
    # A chat template also checked on its own (named, or found by the walk) is reported once.
    checked = {os.path.abspath(result.path) for result in results}
    return results + [r for r in chat_templates.results() if os.path.abspath(r.path) not in checked]


def bounded_session(check: Callable, settings_for, first: str) -> Callable[[str, object], FileResult | None]:
    """(path, task) -> `check(task)` in one worker kept across calls, with the file's budgets and
    behind the boundary (`report`, which measures files one at a time); a file past its budget
    is its error result."""
    from prefixlint.sandbox.workers import Overrun, Session

    session = Session(lambda item: guarded(item[0], lambda: [check(item[1])])[0],
                      warm=lambda: _warm(settings_for, first))

    def call(path: str, task) -> FileResult | None:
        outcome = session.call((path, task))
        return overrun(path, outcome) if isinstance(outcome, Overrun) else outcome

    call.session = session  # type: ignore[attr-defined]
    return call


def _check_one(path: str, settings_for, walked: bool, chat_templates, text: str | None) -> list[FileResult]:
    from prefixlint.check.runner import check_path

    try:
        settings = settings_for(path)
    except PrefixlintError as exc:
        return [FileResult(path, error=exc.located(path))]
    return check_path(path, settings, skip_non_templates=walked, chat_templates=chat_templates, text=text)


#: A prompt prefixlint checks in the run's own process before the workers start (trusted text).
WARM_UP = ("You are the support assistant of Northwind Bank. Explain fees in plain language and never ask\n"
           "for a PIN. Today is {{ current_date }}; the customer is {{ user_name }}.\n")


def _warm(settings_for, first: str) -> None:
    """Before the workers start: what every file needs, made once and inherited by every worker
    (a replacement too), by checking WARM_UP here: the modules of the pipeline, the catalogs,
    the Jinja sandbox and a built-in tiktoken encoding. Nothing a file names is loaded here (a
    Hugging Face tokenizer or a chat template is loaded in the worker, on the file's budget)."""
    from dataclasses import replace

    from prefixlint.check.runner import check_file
    from prefixlint.tokenize import DEFAULT_TOKENIZER
    from prefixlint.tokenize.registry import encoding_for

    try:  # the configuration is read as it is for every file: bounded, and any failure is the file's
        settings = settings_for(first)
        tokenizer = settings.tokenizer if encoding_for(settings.tokenizer) is not None else DEFAULT_TOKENIZER
        check_file("prefixlint-warm-up.md", replace(settings, tokenizer=tokenizer, chat_template=None,
                                                    is_system_prompt=None, token_view=False), text=WARM_UP)
    except PASSING:
        raise
    except BaseException:  # noqa: BLE001 - reported when the file itself is checked
        pass
