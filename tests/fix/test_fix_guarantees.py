"""What a fix guarantees, on every sample and fixture that has a fixable finding: after it,
the fixed finding is gone, every placeholder is still there, the file loads and renders, and
the value's measured reuse in the fixed file is what the finding promised (issue 15, and
issue 11 item 8: one placement of each value, the same in both renders and in the file)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from prefixlint.fix.edits import Edit, apply_edits
from prefixlint.load.template import line_starts
from tests.fix.helpers import check, measure_value, placeholder_names

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted(
    [p for p in (ROOT / "samples").rglob("*") if p.is_file() and p.suffix != ".md" or p.name == "greeting_policy.md"]
    + [p for p in (ROOT / "tests" / "fixtures" / "sources").iterdir() if p.is_file()]
    + [p for p in (ROOT / "tests" / "fixtures" / "fix").iterdir() if p.is_file()]
    + [p for p in (ROOT / "tests" / "fixtures" / "formats").rglob("*") if p.is_file()]
)


def fixable(path):
    return [(result, f) for result in check(path) if result.error is None
            for f in result.findings if f.extra.get("fix") and Path(f.path) == path]


def offset(text: str, where: dict) -> int:
    return line_starts(text)[where["line"] - 1] + where["column"] - 1


def apply_json_fix(text: str, fix: dict) -> str:
    return apply_edits(text, [Edit(offset(text, e["start"]), offset(text, e["end"]), e["content"]) for e in fix["edits"]])


CASES = [(path, f) for path in FILES for _, f in fixable(path)]


def test_the_main_formats_have_fixes():
    formats = {path.suffix for path, _ in CASES}
    assert {".yaml", ".txt", ".json", ".prompt", ".ts", ".py"} <= formats


@pytest.mark.parametrize("path,finding", CASES, ids=[f"{p.name}:{f.code}:{f.variable}" for p, f in CASES])
def test_a_fix_keeps_its_promise(tmp_path, path, finding):
    text = path.read_text(encoding="utf-8").removeprefix("\ufeff")
    shutil.copytree(path.parent, tmp_path / "d")  # with the files it references (partials)
    fixed = tmp_path / "d" / path.name
    fixed.write_text(apply_json_fix(text, finding.extra["fix"]), encoding="utf-8")
    after = check(fixed)
    assert [r.error for r in after] == [None] * len(after)  # it loads, renders and measures
    remaining = [(f.code, f.variable) for r in after for f in r.findings]
    assert (finding.code, finding.variable) not in remaining
    assert placeholder_names(fixed) == placeholder_names(path)
    (before,) = [r for r in check(path) if r.path == str(path)] or [None]
    single = before is not None and sum(1 for f in before.findings if f.extra.get("fix")
                                        and f.extra["fix"]["edits"] != finding.extra["fix"]["edits"]) == 0
    if len(after) == 1 and after[0].prompts is None and single:
        # one number (issue 24 item 4): the promise is the fixed file's reuse as `check` measures it now
        # (two requests, every volatile value different), and the file's "after the suggested fixes"
        (now,) = after
        assert (now.tokens, now.shared_prefix_tokens, now.reusable_tokens) == (
            finding.extra["fixed_tokens"], finding.extra["fixed_shared_prefix_tokens"], finding.fixed_reusable_tokens)
        assert (before.fixed_tokens, before.fixed_reusable_tokens) == (now.tokens, now.reusable_tokens)
        item = measure_value(fixed, finding.variable)  # and the value's own reuse grew
        assert item is None or item.now.reusable_tokens > finding.reusable_tokens


MOVING = ("PFX001", "PFX002", "PFX003", "PFX004", "PFX005")


def whole_fix(path):
    """The file's result and its planned text, when every moving finding of the file has a fix
    (unsafe ones too) and no undeclared history varies; else None."""
    from prefixlint.fix.write import fixed_text

    results = [r for r in check(path) if r.error is None and r.fix_sources and r.path == str(path)]
    if len(results) != 1:
        return None
    (result,) = results
    moving = [f for f in result.findings if f.code in MOVING]
    planned = fixed_text(result, unsafe=True)
    if planned is None or planned[2] < len(moving) or result.volatile.keys() & {"chat_history", "history"}:
        return None
    return result, planned


WHOLE = [(p, fix) for p in FILES if (fix := whole_fix(p)) is not None]


def test_the_samples_with_fixes_are_all_fixed_whole():
    """The whole-file guarantee below runs on files of every main format (a file drops out only when one of its
    moving findings has no fix, or an undeclared history varies)."""
    names = {p.name for p, _ in WHOLE}
    assert {"agent_tools.yaml", "support_bot.yaml", "code_review.prompt", "daily_briefing.txt",
            "support_langchain_hub.json", "agent_prompts.py", "research_agent.ts"} <= names


@pytest.mark.parametrize("path,whole", WHOLE, ids=[p.name for p, _ in WHOLE])
def test_after_fixing_a_file_its_reuse_is_the_figure_it_promised(tmp_path, path, whole):
    """Item 8: a file's "after the suggested fixes" is its findings' combined fixed variant: when
    every moving finding is fixed, checking the fixed file measures that figure as its reuse."""
    result, planned = whole
    shutil.copytree(path.parent, tmp_path / "d")
    fixed = tmp_path / "d" / path.name
    fixed.write_text(planned[1], encoding="utf-8")
    (after,) = [r for r in check(fixed) if r.path == str(fixed)]
    assert (after.tokens, after.reusable_tokens) == (result.fixed_tokens, result.fixed_reusable_tokens)
