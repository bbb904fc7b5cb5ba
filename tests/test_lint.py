"""The code is clean by its own linters: `ruff check` and `mypy`, configured in pyproject.toml
([tool.ruff], [tool.mypy]) and pinned in the `test` extra, so CI's `python3 -m pytest` runs them.

Each is skipped, with the reason, only where the tool is not installed. mypy keeps its cache in
the checkout's `.mypy_cache` (git-ignored): the first run reads every module, later ones only
what changed."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _run(tool: str, *args: str) -> subprocess.CompletedProcess:
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is not installed (it is in the `test` extra: pip install -e \".[test]\")")
    return subprocess.run([sys.executable, "-m", tool, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


def test_ruff_check_is_clean():
    done = _run("ruff", "check", "--no-cache", "--output-format", "concise",
                "prefixlint", "tests", "benchmarks", "scripts")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warning" not in done.stderr  # an invalid noqa comment is only a warning, and still a fault


def test_mypy_is_clean():
    done = _run("mypy", "--cache-dir", str(ROOT / ".mypy_cache"))  # the package: [tool.mypy] packages
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("Success: no issues found"), done.stdout
