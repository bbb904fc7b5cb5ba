"""`prefixlint --version` and `--help` start without importing any heavy library (the hook runs them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
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


#: What a plain `check` of a template never needs: other tokenizers' and formats' libraries, the
#: packages of the other commands, and what only `--diff`, `--format html` or a fix of program
#: source use. (A chat template renders in `prefixlint.render.chat_env`, without transformers.)
NOT_FOR_A_TEMPLATE = (HEAVY - {"jinja2", "yaml", "tiktoken", "tiktoken_ext"}) | {
    "libcst", "pygls", "lsprotocol", "matplotlib", "ray", "difflib", "dotpromptz_handlebars",
    "prefixlint.replay", "prefixlint.server", "prefixlint.prreport", "prefixlint.transcript", "prefixlint.kv",
    "prefixlint.explain", "prefixlint.engines.curve", "prefixlint.engines.radix_curve", "prefixlint.load.python_source",
    "prefixlint.load.ts_source", "prefixlint.load.source_prompts", "prefixlint.fix.python_cst", "prefixlint.check.token_view",
}


@pytest.mark.parametrize("template", ["samples/ticket_classifier.j2", "samples/chat_template_dated.jinja"])
def test_a_check_of_a_template_imports_only_what_it_needs(template):
    # in one process (PREFIXLINT_WORKERS=0): a worker's own imports would not be printed
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "prefixlint", "check", "--no-cache", template],
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PREFIXLINT_WORKERS": "0"})
    assert done.returncode == 1, done.stderr  # the sample has findings: it was checked
    modules = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:") and "|" in line}
    assert {"prefixlint.check.runner", "prefixlint.rules.registry", "jinja2"} <= modules  # the check ran
    unneeded = {m for m in modules if m in NOT_FOR_A_TEMPLATE or m.split(".")[0] in NOT_FOR_A_TEMPLATE
                or ".".join(m.split(".")[:2]) in NOT_FOR_A_TEMPLATE}
    assert unneeded == set()
