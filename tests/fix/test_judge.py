"""The judge of `check --fix --unsafe-fixes .` on whole repositories (benchmarks/judge_fixes.py,
its reading of a file in benchmarks/judge_invariants.py):
each invariant and review defect fails on a fix written to break it, and the smoke run on the
fixture repositories of tests/fixtures/judge finds every fix clean (issue 24 items 1 and 5)."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "judge_fixes.py"
FIXTURES = ROOT / "tests" / "fixtures" / "judge"

def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, SCRIPT.with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_load("judge_invariants")  # what judge_fixes imports, as it does when run as a script
judge = _load("judge_fixes")


def prompt(text: str, *names: str, role: str = "system", fmt: str = "native-yaml"):
    """A one-message prompt whose placeholders are written `{{ name }}`."""
    spans = []
    for name in names:
        at = -1
        while True:
            at = text.find("{{ " + name + " }}", at + 1)
            if at < 0:
                break
            spans.append((at, at + len(name) + 6))
    return judge.Prompt(fmt, [(role, text, sorted(spans))], Counter(n for n in names for _ in
                                                                    range(text.count("{{ " + n + " }}"))))


RULES = "Answer in English.\nCheck every claim.\nKeep notes short.\n"


def failures(before, after, volatile=(1, 0), fixes=1) -> list[str]:
    judged = judge.judge_file("x.yaml", [before], [after], volatile[0], volatile[1], None, fixes)
    return [f.split(":")[0] for f in judged.failures]


def test_a_clean_move_passes():
    before = prompt("You are a careful reviewer of reports.\nSession: {{ sid }}\n" + RULES, "sid")
    after = prompt("You are a careful reviewer of reports.\n" + RULES + "Session: {{ sid }}\n", "sid")
    assert failures(before, after) == []


def test_each_broken_fix_fails_its_invariant():
    base = "You are a careful reviewer of reports.\n<context>\nSession {{ sid }}\nUse the sources.\n</context>\n"
    before = prompt(base + RULES, "sid")
    # the placeholder pulled out of its tag pair: the pair is left holding only other text, the
    # container is not found whole, and the words are the same
    split = prompt(base.replace("Session {{ sid }}\n", "") + RULES + "Session {{ sid }}\n", "sid")
    assert failures(before, split) == ["split"]
    emptied = prompt("You are a careful reviewer of reports.\n<context>\n</context>\n" + RULES
                     + "Session {{ sid }}\nUse the sources.\n", "sid")
    assert failures(before, emptied) == ["empty", "split"]
    doubled = prompt(base + RULES + "{{ sid }}\n", "sid")
    assert failures(before, doubled) == ["places"]
    lost_word = prompt(base + RULES.replace("every claim", "claims"), "sid")
    assert failures(before, lost_word) == ["words"]
    assert failures(before, prompt(base + RULES, "sid"), volatile=(2, 2)) == ["fewer"]


def test_the_persona_and_the_label_stay():
    before = prompt("You are Wayfinder, a travel-booking agent. Session: {{ sid }}\n" + RULES, "sid")
    persona_moved = prompt(RULES + "You are Wayfinder, a travel-booking agent. Session: {{ sid }}\n", "sid")
    assert failures(before, persona_moved) == ["persona"]
    label_left = prompt("You are Wayfinder, a travel-booking agent. Session:\n" + RULES + "{{ sid }}\n", "sid")
    assert failures(before, label_left) == ["label"]


def test_a_header_left_without_its_body_and_an_empty_json_container():
    before = prompt("Rules first.\n" + RULES + "REPORT DATE:\n{{ day }}\n\nSUMMARY:\nShort.\n", "day")
    after = prompt("Rules first.\n" + RULES + "REPORT DATE:\n\nSUMMARY:\nShort.\n{{ day }}\n", "day")
    assert "empty" in failures(before, after)
    before = prompt('Return:\n{\n  "ids": [\n    "{{ rid }}"\n  ]\n}\n' + RULES, "rid")
    after = prompt('Return:\n{\n  "ids": [\n  ]\n}\n' + RULES + '    "{{ rid }}"\n', "rid")
    assert failures(before, after) == ["empty", "split", "split"]  # the object and its list


def test_a_file_that_no_longer_loads_fails_loads_only():
    before = prompt("Rules.\nSession: {{ sid }}\n" + RULES, "sid")
    judged = judge.judge_file("x.yaml", [before], None, 1, 0, None, 1)
    assert [f.split(":")[0] for f in judged.failures] == ["loads"]


def test_figures_disagreeing_are_named():
    no_fix = {"reusable_tokens": 80, "fixed_reusable_tokens": 112, "error": None,
              "findings": [{"code": "PFX002", "line": 3, "fix": None, "fixed_reusable_tokens": 900}]}
    assert judge.figure_disagreements(no_fix) == ["no fix offered, yet 80 -> 112 after the fixes"]
    one = {"reusable_tokens": 80, "fixed_reusable_tokens": 848, "error": None,
           "findings": [{"code": "PFX002", "line": 3, "fix": {"edits": []}, "fixed_reusable_tokens": 896}]}
    assert judge.figure_disagreements(one) == ["PFX002 line 3 promises 896, the file 848"]
    assert judge.figure_disagreements({**one, "fixed_reusable_tokens": 896}) == []


def test_the_smoke_run_on_the_fixture_repositories(tmp_path):
    """Five prompt files; the two values inside containers with other content (report.yaml's
    `<context>` and JSON example) and the TS system prompt served on its own keep their findings."""
    repo = tmp_path / "judge"
    shutil.copytree(FIXTURES, repo)
    done = subprocess.run([sys.executable, str(SCRIPT), str(repo), "--details", "--faults"], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    row = next(line.split() for line in done.stdout.splitlines() if line.startswith("judge "))
    head = done.stdout.splitlines()[0].split()
    values = dict(zip(head, row))
    assert (values["files"], values["volatile"], values["changed"]) == ("5", "8->3", "4")
    assert [values[k] for k in (*judge.INVARIANTS, *judge.REVIEW, "figure", "torn")] == ["0"] * 11, done.stdout
    # the judge fixed its copy, never the repository it was given
    assert (repo / "traps" / "report.yaml").read_text().splitlines()[3].endswith("Session: {{ session_id }}")


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.iterdir()))
def test_every_fixture_repository_has_a_volatile_prompt(name):
    texts = [p.read_text() for p in (FIXTURES / name).rglob("*") if p.is_file()]
    assert any(marker in t for t in texts for marker in ("{{ ", "${", "datetime.now"))


def test_a_value_taken_from_the_line_introducing_it_fails_label():
    before = prompt("Rules first.\n" + RULES + "=== REPORT A ===\n{{ a }}\n\n=== END ===\nReply A or B.\n", "a")
    after = prompt("Rules first.\n" + RULES + "=== REPORT A ===\n\n=== END ===\nReply A or B.\n{{ a }}\n", "a")
    assert failures(before, after) == ["empty", "label"]
    before = prompt("Rules first.\nThese are the messages so far:\n<Messages>\n{{ m }}\n</Messages>\n" + RULES, "m")
    after = prompt("Rules first.\nThese are the messages so far:\n" + RULES + "<Messages>\n{{ m }}\n</Messages>\n", "m")
    assert failures(before, after) == ["label"]
    moved_together = prompt("Rules first.\n" + RULES + "These are the messages so far:\n<Messages>\n{{ m }}\n</Messages>\n",
                            "m")
    assert failures(before, moved_together) == []


def test_quotes_left_quoting_nothing_fail_empty():
    before = prompt('Rules first.\nThe output: """\n{{ o }}\n"""\n' + RULES, "o")
    after = prompt('Rules first.\nThe output: """\n"""\n' + RULES + "{{ o }}\n", "o")
    assert "empty" in failures(before, after)


def test_a_closing_marker_is_no_header_left_without_a_body():
    before = prompt("Rules first.\n=== REPORT ===\n{{ r }}\n=== END REPORT ===\n\n" + RULES, "r")
    after = prompt("Rules first.\n\n" + RULES + "=== REPORT ===\n{{ r }}\n=== END REPORT ===\n", "r")
    assert failures(before, after) == []
