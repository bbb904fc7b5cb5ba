"""The corpus scorer (benchmarks/score_corpus.py, benchmarks/corpus_repos.py) judges as documented:
files per (repo, commit, path), info findings not FIRE, non-prompt files, judged places by line
and named value."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


score = _load("score_corpus")
repos = _load("corpus_repos")


def finding(code, line, variable, severity="warning"):
    return {"code": code, "line": line, "variable": variable, "placeholder": "{%s}" % variable,
            "severity": severity}


def test_each_commit_of_a_pair_has_its_own_folder():
    before = {"repo": "o/r", "commit": "a" * 40, "path": "src/p.ts"}
    after = dict(before, commit="b" * 40)
    root = Path("/tmp/x")
    assert score.real_path(root, before) == root / "o/r" / ("a" * 40) / "src/p.ts"
    assert score.real_path(root, before) != score.real_path(root, after)


def test_info_findings_are_not_fire_and_other_rules_are_ignored():
    report = {"files": [{"findings": [finding("PFX001", 3, "now", "info"),
                                      finding("PFX007", 1, "x"),
                                      finding("PFX005", 9, "question", "error")]}]}
    codes, variables, info = score.volatile_findings(report)
    assert (codes, variables, info) == (["PFX005"], ["question"], ["PFX001 now"])


@pytest.mark.parametrize("prompt, error, right", [
    (False, "no prompt found in this Python module", True),
    (False, "internal error: AttributeError: boom", False),
    (True, "no prompt found in this Python module", False),
])
def test_a_refusal_is_right_only_for_a_file_that_is_not_a_prompt(prompt, error, right):
    case = score.Case("id", Path("f.py"), "python", "CLEAN", [], None, prompt=prompt)
    assert score.is_right(case, score.Outcome("REFUSED", error=error)) is right


def test_a_fire_place_needs_a_finding_on_its_lines_for_its_value():
    run = repos.RepoRun(1, findings={"p.py": [finding("PFX005", 10, "system_prompt_content")]})
    place = {"path": "p.py", "line": 12, "verdict": "FIRE", "variable": "time"}
    assert repos.judge_place(place, run)[0] is False  # a finding two lines up for another value
    run.findings["p.py"].append(finding("PFX001", 12, "time"))
    assert repos.judge_place(place, run)[0] is True
    camel = {"path": "p.py", "lines": [40, 44], "verdict": "FIRE", "variable": "userDate"}
    run.findings["p.py"].append(finding("PFX001", 42, "user_date"))
    assert repos.judge_place(camel, run)[0] is True
    assert repos.judge_place(dict(camel, lines=[50, 60]), run)[0] is False


def test_a_clean_place_fails_on_a_finding_there_or_on_a_file_error():
    run = repos.RepoRun(2, findings={"a.py": [finding("PFX001", 5, "now")]},
                        errors={"docs/page.md": "Jinja syntax error: unexpected '<'"})
    assert repos.judge_place({"path": "a.py", "line": 5, "verdict": "CLEAN"}, run)[0] is False
    assert repos.judge_place({"path": "a.py", "line": 20, "verdict": "CLEAN"}, run)[0] is True
    assert repos.judge_place({"path": "a.py", "verdict": "CLEAN"}, run)[0] is False
    assert repos.judge_place({"path": "docs/page.md", "verdict": "CLEAN"}, run)[0] is False
