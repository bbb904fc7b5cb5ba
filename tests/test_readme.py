"""The README is an interface too: its rule table and its commands must match the code."""

from __future__ import annotations

import re
from pathlib import Path

from prefixlint.cli import COMMANDS
from prefixlint.rules.catalog import load_catalog

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_rule_table_lists_every_catalog_rule_with_its_name_and_nothing_else():
    rows = dict(re.findall(r"^\| (PFX\d{3}) \| `([a-z-]+)` \|", README, flags=re.M))
    assert rows == {code: rule.name for code, rule in load_catalog().items()}


def test_ci_runs_exactly_the_readme_test_command():
    blocks = re.findall(r"```sh\n(.*?)```", README, flags=re.S)
    commands = [line for block in blocks for line in block.splitlines() if "pytest" in line]
    assert len(commands) == 1
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert commands[0].strip() in ci.splitlines()


def test_every_command_is_in_the_readme_table():
    documented = set(re.findall(r"^\| `prefixlint (\w+)", README, flags=re.M))
    documented |= set(re.findall(r"`prefixlint (\w+) CODE`", README))
    assert set(COMMANDS) <= documented | {"rule"}
