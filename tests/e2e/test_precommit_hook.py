"""The pre-commit hook end to end: the real `pre-commit` installs this checkout and runs it.

pre-commit builds its own virtualenv and pip-installs the checkout into it (from the index
pip is configured with); the hook itself then runs offline with the default tokenizer.
"""

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from prefixlint.load.discover import NOT_TEMPLATES, SKIPPED_DIRECTORIES
from prefixlint.load.registry import template_extensions
from tests.gitrepo import ENV, git, init_repo, write

CHECKOUT = Path(__file__).resolve().parents[2]
PRE_COMMIT = [sys.executable, "-m", "pre_commit"]

POLICY = "\n".join(
    f"{n}. Answer questions about orders, refunds and shipping; cite the policy section you used"
    f" and never promise a delivery date the carrier has not confirmed (rule {n})."
    for n in range(1, 13)
)
BAD = "Current time: {{ now }}\n\nYou are the support assistant of Acme Outdoor.\n" + POLICY + "\n"
CLEAN = "You are the support assistant of Acme Outdoor.\n" + POLICY + "\n\nCurrent time: {{ now }}\n"


def test_hook_definition_matches_the_loaders_and_the_directory_walk():
    hook, fix = yaml.safe_load((CHECKOUT / ".pre-commit-hooks.yaml").read_text())
    # prefixlint-fix is the same hook with --fix, as ruff ships both
    assert fix["id"] == "prefixlint-fix" and fix["args"] == ["--fix", *hook["args"]]
    assert {k: v for k, v in fix.items() if k not in ("id", "name", "description", "args")} == {
        k: v for k, v in hook.items() if k not in ("id", "name", "description", "args")}
    assert hook["id"] == "prefixlint" and hook["entry"] == "prefixlint check"
    assert hook["language"] == "python" and hook["require_serial"] is True
    assert hook["minimum_pre_commit_version"] == "3.0.0"
    assert hook["args"] == ["--force-exclude", "--skip-non-templates"]
    files, exclude = re.compile(hook["files"]), re.compile(hook["exclude"])

    def selected(path: str) -> bool:  # pre-commit's rule: files matches and exclude does not
        return bool(files.search(path)) and not exclude.search(path)

    for extension in template_extensions():
        assert selected(f"prompts/assistant{extension}"), extension
    assert selected("support.yaml") and selected("prompts/agent/system.md")
    # what `prefixlint check`'s directory walk skips, the hook skips too
    for glob in NOT_TEMPLATES:
        name = glob.replace("*", "")
        assert fnmatch.fnmatchcase(name, glob)
        name = name if files.search(name) else name + ".md"
        for path in (name, f"docs/{name}", f"prompts/{name}"):
            assert not selected(path), path
    assert not selected("README.md") and not selected("docs/LICENSE.txt") and not selected("Chart.yaml")
    for folder in SKIPPED_DIRECTORIES | {".github", ".venv"}:
        assert not selected(f"{folder}/prompt.md") and not selected(f"a/{folder}/b/prompt.yaml")
    assert not selected(".pre-commit-config.yaml") and not selected("prompts/.prefixlint.yaml")
    assert not selected("notes.yaml.bak") and not selected("src/app.pyc") and not selected("types.json5")
    # program source: prompts in Python and TypeScript/JavaScript (modules without one are skipped)
    for name in ("src/app.py", "app/prompts.ts", "ui/chat.tsx", "lib/agent.js", "lib/agent.mjs", "lib/a.cjs"):
        assert selected(name), name


@pytest.mark.slow
@pytest.mark.skipif(not (CHECKOUT / ".git").exists(), reason="needs a git checkout of prefixlint")
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_commit_with_a_timestamp_ahead_of_stable_text_fails_and_a_clean_one_passes(tmp_path):
    repo = init_repo(tmp_path / "templates", {"README.txt": "Prompt templates.\n"})
    # HOME is the temporary folder (no user git config), but pip keeps the user's wheel cache.
    pip_cache = os.environ.get("PIP_CACHE_DIR") or str(Path.home() / ".cache" / "pip")
    env = {**os.environ, **ENV, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "HOME": str(tmp_path),
           "PIP_CACHE_DIR": pip_cache, "HF_HUB_OFFLINE": "1", "NO_COLOR": "1"}
    for name in ("GITHUB_ACTIONS", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):  # the hook's own venv decides
        env.pop(name, None)

    def try_repo() -> subprocess.CompletedProcess:
        return subprocess.run(PRE_COMMIT + ["try-repo", str(CHECKOUT), "prefixlint", "--verbose"],
                              cwd=repo, env=env, capture_output=True, text=True, timeout=600)

    write(repo, {"prompts/helpdesk.md": BAD})
    git(repo, "add", "prompts/helpdesk.md")
    failed = try_repo()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    # `{{ now }}` starts at column 15 of line 1 ("Current time: " is 14 characters)
    assert "prompts/helpdesk.md:1:15: PFX001" in failed.stdout
    assert "prefixlint" in failed.stdout and "Failed" in failed.stdout

    write(repo, {"prompts/helpdesk.md": CLEAN})
    git(repo, "add", "prompts/helpdesk.md")
    passed = try_repo()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout and "PFX001" not in passed.stdout
