"""Check an open document's unsaved text, as `check` checks that file, and keep the result.

Each check runs `check_files` (the entry point `check` itself calls, so the per-file budgets
of rendering apply; in the server's own process, never a forked worker) on the editor's text
of that one document: nothing is read from disk for it, and no other open document is
measured again. The tokenizer and the configuration are
cached by the stages that load them, so a re-check costs only this text's renders and
encodings. A document that no loader reads (a CI workflow in YAML) gets no diagnostics; one
that a loader reads but cannot load (malformed YAML, a template that does not compile) gets
its error as a diagnostic, and a bug becomes an internal-error diagnostic, never a crash.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prefixlint.server.text import LineIndex


@dataclass
class Checked:
    """One check of one version of a document."""

    path: str
    version: int | None
    index: LineIndex
    #: This document's results (several when it holds prompts measured apart), errors included.
    results: list[Any]
    seconds: float
    #: Errors of other files this check read (a promptfoo config's referenced prompts).
    elsewhere: list[Any] = field(default_factory=list)
    #: Memoized answers for this version (code actions' suppression edits).
    memo: dict = field(default_factory=dict)

    @property
    def findings(self) -> list[Any]:
        return [f for r in self.results for f in r.findings]

    @property
    def result(self) -> Any | None:
        """The first measured result (no error), or None."""
        return next((r for r in self.results if r.error is None), None)


def check_text(path: str, text: str, settings_for, version: int | None = None, encoding: str = "utf-16") -> Checked:
    """Check `text` as the content of `path` with `settings_for(path)` (a SettingsBuilder)."""
    from prefixlint.check.runner import check_files
    from prefixlint.errors import PrefixlintError
    from prefixlint.load.registry import NotATemplate
    from prefixlint.results import FileResult

    started = time.perf_counter()
    index = LineIndex(text, encoding)
    try:
        if _excluded(settings_for, path):
            results = []
        elif len(index.loaded_text.encode("utf-8", "surrogatepass")) > _max_bytes():
            from prefixlint.limits import too_large

            size = len(index.loaded_text.encode("utf-8", "surrogatepass"))
            results = [FileResult(path, error=too_large(path, size, _max_bytes()))]
        else:
            # Checked as a named file (an open document's errors are its diagnostics, where a
            # walk would skip them), less a file that no loader reads.
            # In this process: pygls runs threads, and a forked copy of a threaded process may
            # hang on a lock another thread held (the sandbox's own bounds still apply).
            results = [r for r in check_files([path], settings_for, texts={path: index.loaded_text}, in_process=True)
                       if not isinstance(r.error, NotATemplate)]
    except PrefixlintError as exc:  # a configuration that cannot be read
        results = [FileResult(path, error=exc.located(path))]
    except Exception as exc:  # a bug: this document's diagnostic, the server goes on
        if os.environ.get("PREFIXLINT_DEBUG"):
            raise
        results = [FileResult(path, error=PrefixlintError(
            f"internal error: {type(exc).__name__}: {exc}", path=path,
            hint="run `prefixlint check` on the file with PREFIXLINT_DEBUG=1 for the traceback, and report it"))]
    mine = [r for r in results if _same(r.path, path)]
    others = [r for r in results if not _same(r.path, path) and r.error is not None]
    return Checked(path, version, index, mine, time.perf_counter() - started, others)


def _max_bytes() -> int:
    """The size limit of a file `check` reads (`prefixlint.limits`): an open document has the same."""
    from prefixlint.limits import MAX_FILE_BYTES

    return MAX_FILE_BYTES


def _excluded(settings_for, path: str) -> bool:
    """Whether the configuration's `exclude` covers the file (as a directory walk skips it)."""
    config = getattr(settings_for, "config", None)
    return bool(config is not None and config(path).is_excluded(Path(path)))


def _same(a: str, b: str) -> bool:
    return os.path.normcase(os.path.abspath(a)) == os.path.normcase(os.path.abspath(b))
