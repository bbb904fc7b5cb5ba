"""`python -m prefixlint` in a folder whose own modules shadow the standard library's."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AGENT = '''from datetime import datetime
from openai import OpenAI


def ask(history, question):
    system = f"Today is {datetime.now()}. " + "You are a careful assistant for our customers. " * 30
    return OpenAI().chat.completions.create(model="gpt-4o", messages=[
        {"role": "system", "content": system}, *history, {"role": "user", "content": question}])
'''


def test_modules_of_the_checked_folder_never_replace_the_standard_library(tmp_path):
    for name in ("logging", "queue", "json", "typing_extensions"):
        (tmp_path / f"{name}.py").write_text('raise SystemExit("the checked folder was imported")\n')
    (tmp_path / "agent.py").write_text(AGENT)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PREFIXLINT_NO_CACHE": "1"}
    done = subprocess.run([sys.executable, "-m", "prefixlint", "check", "--isolated", "agent.py"],
                          cwd=tmp_path, capture_output=True, text=True, env=env)
    assert "the checked folder was imported" not in done.stdout + done.stderr
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("agent.py:6:25: PFX001 {datetime.now()}")


def test_the_rule_catalog_of_a_source_tree_that_is_not_installed_is_its_rules_folder(monkeypatch):
    import importlib.util

    from prefixlint import package_data

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "prefixlint.catalog" else real(name, *a))
    package_data.package_dir.cache_clear()
    try:
        assert package_data.package_dir("prefixlint.catalog") == ROOT / "rules"
        assert (package_data.package_dir("prefixlint.catalog") / "PFX001.yaml").is_file()
    finally:
        package_data.package_dir.cache_clear()
