"""`prefixlint --version` and `--help` start without importing any heavy library (the hook runs them)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = {"tiktoken", "tiktoken_ext", "tokenizers", "transformers", "jinja2", "huggingface_hub",
         "mistral_common", "openai_harmony", "yaml", "sentencepiece", "torch", "numpy", "tree_sitter",
         "tree_sitter_typescript", "tree_sitter_javascript"}


def imported_modules(*args: str) -> set[str]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "prefixlint", *args],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    modules = set()
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            if name != "imported package":
                modules.add(name)
    assert "prefixlint.cli" in modules  # the measurement itself works
    return modules


@pytest.mark.parametrize("args", [["--version"], ["--help"], ["compare", "--help"]])
def test_startup_imports_nothing_heavy(args):
    heavy = {name for name in imported_modules(*args) if name.split(".")[0] in HEAVY}
    assert heavy == set()
