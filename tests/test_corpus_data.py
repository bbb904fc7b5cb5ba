"""The real-world corpus of issue 11 is consistent data (tests/corpus/README.md).

These tests do not run `check` on the fixtures (most would fail today: the score is printed by
benchmarks/score_corpus.py); they keep the list, the fixtures and the expected verdicts in step.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

CORPUS = Path(__file__).parent / "corpus"
REAL = yaml.safe_load((CORPUS / "real_corpus.yaml").read_text(encoding="utf-8"))["files"]
EXPECTED = yaml.safe_load((CORPUS / "expected.yaml").read_text(encoding="utf-8"))["files"]
CODES = {"PFX001", "PFX002", "PFX003", "PFX004", "PFX005", "PFX101", "PFX102"}


def test_at_least_45_real_files_with_both_verdicts_and_a_before_after_pair():
    assert len(REAL) >= 45
    assert len({e["id"] for e in REAL}) == len(REAL)
    verdicts = {e["verdict"] for e in REAL}
    assert verdicts == {"FIRE", "CLEAN"}
    pairs = {e["id"]: e["pair"] for e in REAL if "pair" in e}
    assert pairs and all(pairs.get(other) == ident for ident, other in pairs.items())


@pytest.mark.parametrize("entry", REAL, ids=[e["id"] for e in REAL])
def test_real_entry_is_complete(entry):
    assert re.fullmatch(r"[0-9a-f]{40}", entry["commit"])
    assert re.fullmatch(r"[\w.-]+/[\w.-]+", entry["repo"])
    assert entry["reason"].strip()
    if entry["verdict"] == "FIRE":
        assert entry["codes"] and set(entry["codes"]) <= CODES and entry["variable"]
    else:
        assert "codes" not in entry and "variable" not in entry


def test_one_fixture_per_real_file_with_the_same_verdict():
    """Issue 11's files each have their own fixture; issue 19's files name one only where
    they brought a structure no fixture had (`fixture:`), or the fixture whose structure they
    share (`structure:`)."""
    by_id = {e["id"]: e for e in REAL}
    with_fixture = sorted(ident for ident, e in by_id.items() if "fixture" in e)
    assert sorted(e["real"] for e in EXPECTED) == with_fixture
    fixtures = {e["path"] for e in EXPECTED}
    assert all(e["structure"] in fixtures for e in REAL if "structure" in e)
    for entry in EXPECTED:
        real = by_id[entry["real"]]
        assert entry["path"] == real["fixture"] and entry["kind"] == real["kind"]
        assert entry["verdict"] == real["verdict"]
        assert entry.get("codes") == real.get("codes")
        assert entry.get("variable") == real.get("variable")


@pytest.mark.parametrize("entry", EXPECTED, ids=[e["real"] for e in EXPECTED])
def test_fixture_exists_and_its_line_holds_the_placeholder(entry):
    fixture = CORPUS / "fixtures" / entry["path"]
    assert fixture.is_file()
    if entry["verdict"] == "FIRE":
        holder = CORPUS / "fixtures" / entry.get("line_file", entry["path"])
        line = holder.read_text(encoding="utf-8").splitlines()[entry["line"] - 1]
        assert entry["variable"] in line


ISSUE_11_FILES = 52
REPOS = yaml.safe_load((CORPUS / "real_repos.yaml").read_text(encoding="utf-8"))["repos"]


def test_issue_19_grew_the_corpus_to_150_files_from_80_new_repositories():
    assert len(REAL) >= 150
    old = {e["repo"] for e in REAL[:ISSUE_11_FILES]}
    new = {e["repo"] for e in REAL[ISSUE_11_FILES:]} - old
    assert len(new) >= 80
    assert {e["verdict"] for e in REAL[ISSUE_11_FILES:]} == {"FIRE", "CLEAN"}
    assert all(e.get("prompt", True) in (True, False) for e in REAL)
    assert all(e["verdict"] == "CLEAN" for e in REAL if e.get("prompt") is False)


def test_at_least_10_whole_repositories_with_judged_places_of_both_kinds():
    assert len(REPOS) >= 10
    assert len({r["repo"] for r in REPOS}) == len(REPOS)
    verdicts = {p["verdict"] for r in REPOS for p in r["places"]}
    assert verdicts == {"FIRE", "CLEAN"}


@pytest.mark.parametrize("repo", REPOS, ids=[r["repo"] for r in REPOS])
def test_repo_entry_is_complete(repo):
    assert re.fullmatch(r"[0-9a-f]{40}", repo["commit"])
    assert repo["places"]
    for place in repo["places"]:
        assert place["path"] and place["reason"].strip() and place["verdict"] in {"FIRE", "CLEAN"}
        if "lines" in place:
            first, last = place["lines"]
            assert 1 <= first <= last
        if "line" in place:
            assert place["line"] >= 1
