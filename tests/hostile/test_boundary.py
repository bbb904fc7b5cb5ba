"""The file boundary (prefixlint/check/boundary.py): whatever checking one file raises is that
file's one diagnostic, named for what it is; only KeyboardInterrupt and SystemExit end the run."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from prefixlint.check import runner
from prefixlint.check.boundary import guarded
from prefixlint.cli import cli
from prefixlint.errors import PrefixlintError
from tests.check.test_check_bad_input import GOOD, write


class PanicException(BaseException):
    """What pyo3 raises when Rust code panics (tiktoken: `PyObject pointer is null`)."""


def surrogate_error() -> UnicodeEncodeError:
    try:
        "ok \ud800".encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc
    raise AssertionError("a lone surrogate encoded")


def jinja_nesting_error() -> SyntaxError:
    from jinja2 import Environment

    try:
        Environment().from_string("".join("{%% for i%d in [1] %%}" % i for i in range(45)) + "{% endfor %}" * 45)
    except SyntaxError as exc:
        return exc
    raise AssertionError("Python compiled 45 nested blocks")


def raising(exc: BaseException):
    def check():
        raise exc
    return check


@pytest.mark.parametrize(("exc", "message"), [
    (PanicException("PyObject pointer is null"),
     "a native library failed on this file (PanicException: PyObject pointer is null)"),
    (RecursionError("maximum recursion depth exceeded"), "nested too deeply to check (past Python's recursion limit)"),
    (jinja_nesting_error(), "cannot compile the template: too many statically nested blocks"),
    (surrogate_error(), "the text holds a lone surrogate (U+D800), which is not Unicode text and cannot be tokenized"),
    (KeyError("boom"), "internal error: KeyError: 'boom'"),
    (PrefixlintError("bad input", line=3), "bad input"),
], ids=["PanicException", "RecursionError", "Jinja SyntaxError", "UnicodeEncodeError", "a bug", "PrefixlintError"])
def test_every_exception_is_one_diagnostic_of_the_file(exc, message, monkeypatch):
    monkeypatch.delenv("PREFIXLINT_DEBUG", raising=False)
    (result,) = guarded("p.md", raising(exc))
    assert result.path == "p.md" and result.error.path == "p.md" and result.error.message == message
    assert result.findings == ()


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), SystemExit(3), MemoryError()])
def test_what_ends_the_run_or_is_the_pools_passes_the_boundary(exc):
    with pytest.raises(type(exc)):
        guarded("p.md", raising(exc))


def test_a_panic_in_one_file_leaves_the_others_checked(tmp_path, good, monkeypatch):
    """Through the real command and its worker (forked after the patch, so it inherits it)."""
    bad = write(tmp_path, "bad.md", GOOD)
    real = runner.check_file

    def check_file(path, *args, **kwargs):
        if path.endswith("bad.md"):
            raise PanicException("PyObject pointer is null")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(runner, "check_file", check_file)
    monkeypatch.delenv("PREFIXLINT_DEBUG", raising=False)
    result = CliRunner().invoke(cli, ["check", "--isolated", str(bad), str(good)])
    assert result.exit_code == 2, result.output
    assert f"prefixlint: error: {bad}: a native library failed on this file (PanicException: PyObject pointer" \
           " is null)" in result.stderr
    assert f"{good}:1:7: PFX003" in result.stdout and "Traceback" not in result.output
