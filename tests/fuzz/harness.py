"""Run prefixlint on generated input and check the promise of issue 16 for every input:
exit status 0, 1 or 2, no internal error and no traceback, the good file beside it still
reported, and bounded time and memory.

`PREFIXLINT_FUZZ_EXAMPLES=N` runs N examples per fuzz test with fresh randomness (the long
campaign, see docs/reliability.md); without it every fuzz test draws a few dozen derandomized
examples, so the suite stays repeatable and brief.
"""

from __future__ import annotations

import os
import resource
import tempfile
import time
from pathlib import Path

from click.testing import CliRunner
from hypothesis import HealthCheck, settings

from prefixlint.cli import cli
from tests.check.test_check_bad_input import GOOD

LONG = int(os.environ.get("PREFIXLINT_FUZZ_EXAMPLES", "0") or 0)
#: Seconds one input may take, with the render limits lowered as `limits` below does.
INPUT_SECONDS = 30.0
#: The whole test process may not grow past this (kilobytes of maximum resident set).
MAX_RSS_KB = 3 * 1024 * 1024
GOOD_FINDING = "good.md:1:7: PFX003"


def fuzz_settings(brief: int):
    """`brief` derandomized examples in the suite; PREFIXLINT_FUZZ_EXAMPLES fresh ones when set."""
    return settings(max_examples=LONG or brief, derandomize=not LONG, deadline=None, database=None,
                    print_blob=True, suppress_health_check=list(HealthCheck))


#: A file's budget in its worker: a runaway input (a tokenizer busy on megabytes of one word)
#: ends there, and the run with it well within INPUT_SECONDS (a replacement worker, the good file).
FILE_SECONDS = 8.0


def lowered_limits(monkeypatch) -> None:
    """Render limits small enough that a runaway input costs a second, not ten; the file budget
    below INPUT_SECONDS; the pipeline warmed here once (one check in this process: its modules,
    catalogs, the Jinja sandbox and the built-in tokenizer), so that every run's worker inherits
    it instead of importing and loading it again: a run forks a fresh worker, and without this
    each of the thousands of runs of a long campaign paid about 0.3 s of CPU for it."""
    from prefixlint import limits, sandbox
    from prefixlint.sandbox import workers
    from prefixlint.tokenize import DEFAULT_TOKENIZER, load_tokenizer

    monkeypatch.setattr(sandbox, "RENDER_SECONDS", 1.0)
    monkeypatch.setattr(sandbox, "FILE_RENDER_SECONDS", 2.0)
    monkeypatch.setattr(limits, "REGEX_SECONDS", 0.2)
    monkeypatch.setattr(workers, "FILE_SECONDS", FILE_SECONDS)
    load_tokenizer(DEFAULT_TOKENIZER, offline=True)
    if not _warmed:
        with tempfile.TemporaryDirectory() as folder:
            (Path(folder) / ".git").mkdir()
            (Path(folder) / "good.md").write_text(GOOD)
            with monkeypatch.context() as in_process:
                in_process.setattr(workers, "WORKERS", 0)
                invoke(["check", "--format", "text", "good.md"], Path(folder))
        _warmed.append(True)


_warmed: list[bool] = []


def invoke(args: list[str], cwd: Path):
    """One in-process run in `cwd`; asserts the promise and returns the result."""
    started = time.monotonic()
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(cli, args)
    finally:
        os.chdir(previous)
    elapsed = time.monotonic() - started
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2), (result.exit_code, result.output[-2000:])
    assert "internal error" not in result.output, result.output[-2000:]
    assert "Traceback" not in result.output, result.output[-2000:]
    assert elapsed < INPUT_SECONDS, f"{elapsed:.1f} s"
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < MAX_RSS_KB
    return result


def check_files(files: dict[str, bytes | str], *extra: str, good_reported: bool = True):
    """`prefixlint check` on `files` (name -> content) beside a good file, which must be reported
    (unless `good_reported` is False: a broken configuration is an error of every file)."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / ".git").mkdir()
        (root / "good.md").write_text(GOOD)
        for name, content in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content)
        names = [name for name in files if not name.startswith(("_", ".")) and "/" not in name
                 and name != "pyproject.toml"]
        result = invoke(["check", "--format", "text", *extra, *names, "good.md"], root)
        assert GOOD_FINDING in result.stdout or not good_reported, result.output[-2000:]
        return result


def run_on_file(command: list[str], name: str, content: bytes | str):
    """`prefixlint COMMAND... FILE` on one generated file."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        path = root / name
        path.write_bytes(content.encode("utf-8", "surrogatepass") if isinstance(content, str) else content)
        return invoke([*command, name], root)
