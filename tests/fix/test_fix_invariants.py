"""What a maintainer checks in review, over every sample and fixture and over generated
templates (issue 24, "How it is judged"): after `--fix --unsafe-fixes` the file loads, keeps
its placeholders and its words, gains no empty tag or orphan header, and carries fewer
volatile findings; the persona stays first; a finding and its file give one after-fix figure."""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prefixlint.fix.source import source_messages
from prefixlint.fix.verify import ADDED_WORDS, CONNECTORS, empty_containers, text_words
from prefixlint.fix.write import fixed_text
from prefixlint.load.registry import load_templates
from prefixlint.render.compile import compile_template
from tests.fix.helpers import check, placeholder_names
from tests.fix.test_fix_guarantees import FILES, ROOT

MOVING = ("PFX001", "PFX002", "PFX003", "PFX004", "PFX005")


def shape(path) -> tuple[Counter, list[str]]:
    """(the words of every prompt of the file, the texts of its messages)."""
    found, texts = Counter(), []
    for template in load_templates(str(path)):
        messages = source_messages(template, compile_template(template).placeholders)
        found += text_words(messages)
        texts += [m.text for m in messages]
    return found, texts


def volatile_findings(path) -> int:
    return sum(f.code in MOVING for r in check(path) for f in r.findings)


def assert_merged_review(original: Path, fixed: Path, fixes: int) -> None:
    assert [r.error for r in check(fixed)] == [None] * len(check(fixed))  # it loads, renders, measures
    assert placeholder_names(fixed) == placeholder_names(original)
    (before, before_texts), (after, after_texts) = shape(original), shape(fixed)
    lost = {w for w in before - after if w not in CONNECTORS}
    assert not lost
    assert sum((after - before).values()) <= ADDED_WORDS * fixes
    assert empty_containers(after_texts) <= empty_containers(before_texts)
    assert volatile_findings(fixed) < volatile_findings(original)


def fixed_files():
    out = []
    for path in FILES:
        for result in check(path):
            planned = fixed_text(result, unsafe=True) if result.error is None and result.path == str(path) else None
            if planned is not None and planned[0] != planned[1]:
                out.append((path, planned))
    return out


FIXED = fixed_files()


def test_fixes_are_offered_in_every_main_format():
    assert {p.suffix for p, _ in FIXED} >= {".yaml", ".txt", ".json", ".prompt", ".ts", ".py", ".md"}


@pytest.mark.parametrize("path,planned", FIXED, ids=[p.name for p, _ in FIXED])
def test_a_fixed_file_passes_review(tmp_path, path, planned):
    shutil.copytree(path.parent, tmp_path / "d")
    fixed = tmp_path / "d" / path.name
    fixed.write_text(planned[1], encoding="utf-8")
    assert_merged_review(path, fixed, planned[2])


def test_the_persona_line_of_agent_tools_stays_first():
    path = ROOT / "samples" / "agent_tools.yaml"
    (result,) = check(path)
    before, after, fixed = fixed_text(result, unsafe=True)
    assert fixed == 1
    prompt = after.split("prompt: |\n", 1)[1]
    assert prompt.startswith("  You are Wayfinder, a travel-booking agent.\n\n  You help the traveller")
    assert after.rstrip().endswith("Traveller's request: {{ task }}\n  Session: {{ session_id }}")
    assert fixed_text(result, unsafe=False) is None  # cutting the persona's line is unsafe: not for the hook


SAMPLES = sorted(p for p in (ROOT / "samples").rglob("*") if p.is_file())


@pytest.mark.parametrize("path", SAMPLES, ids=[p.name for p in SAMPLES])
def test_a_sample_with_one_fixed_finding_and_its_file_give_one_figure(path):
    for result in check(path):
        fixed = [f for f in result.findings if f.extra.get("fix")]
        if len(fixed) != 1 or result.error is not None:
            continue
        (finding,) = fixed
        assert (finding.fixed_reusable_tokens, finding.extra["fixed_tokens"]) == (
            result.fixed_reusable_tokens, result.fixed_tokens)
        shown = f"{100 * result.fixed_reusable_tokens / result.fixed_tokens:.1f}% after blocks"
        assert shown.removesuffix(".0% after blocks") in finding.message or shown in finding.message


def test_a_promise_without_a_fix_says_so_with_its_reason():
    (result,) = check(ROOT / "samples" / "concierge.prompty")
    (finding,) = result.findings
    assert finding.extra["fix"] is None
    assert f"No automatic fix: {finding.extra['fix_unavailable']}." in finding.message
    assert "Moved into the last user message by hand:" in finding.message
    assert (result.fixed_reusable_tokens, result.fixed_tokens) == (result.reusable_tokens, result.tokens)


# Generated templates: a labelled value in a line, a list item, a tag or a JSON example, ahead
# of instructions; the unit moves whole and the fix is safe, or there is no fix.
WORDS = ["answer", "the", "customer", "politely", "cite", "policy", "section", "never", "guess", "prices",
         "refunds", "orders", "shipping", "within", "days", "support", "team", "always", "short"]
sentence = st.lists(st.sampled_from(WORDS), min_size=5, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")
LABELS = {"{{ now }}": "Current time:", "{{ session_id }}": "Session:", "{{ request_id }}": "Request id:"}


@st.composite
def labelled(draw):
    value = draw(st.sampled_from(sorted(LABELS)))
    label = LABELS[value]
    kind = draw(st.sampled_from(["line", "item", "tag", "json"]))
    unit = {"line": [f"{label} {value}"],
            "item": ["Context:", f"- {label} {value}"],
            "tag": ["<context>", f"{label} {value}", "</context>"],
            "json": ["{", f'  "{label.rstrip(":").lower().replace(" ", "_")}": "{value}"', "}"]}[kind]
    persona = "You are Harbor, the support assistant of Northwind."
    body = draw(st.lists(sentence, min_size=8, max_size=12))
    lines = [persona, ""] + unit + [""] + body
    return kind, "\n".join(lines) + "\n\nQuestion: {{ question }}\n"


@settings(max_examples=16, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(labelled())
def test_a_labelled_unit_moves_whole_and_safely(tmp_path_factory, case):
    kind, text = case
    path = tmp_path_factory.mktemp("t") / "prompt.txt"
    path.write_text(text, encoding="utf-8")
    (result,) = check(path)
    (finding,) = [f for f in result.findings if f.code in MOVING]
    assert finding.extra["fix"]["applicability"] == "safe", finding.extra
    before, after, fixed = fixed_text(result, unsafe=False)
    assert after.startswith("You are Harbor, the support assistant of Northwind.\n")
    first = text.split("\n")[2]  # the unit's first line (its header for a list item) moves with it
    assert after.index(first) > after.index("Question: {{ question }}")
    out = path.with_name("fixed.txt")
    out.write_text(after, encoding="utf-8")
    assert_merged_review(path, out, fixed)


def test_the_html_page_shows_the_fixed_text_it_measured():
    """The HTML page's "after" side is the fixed file's request, with the file's one figure."""
    from prefixlint.check.runner import check_path
    from prefixlint.check.settings import Settings

    (result,) = check_path(str(ROOT / "samples" / "support_bot.yaml"), Settings(offline=True, token_view=True))
    (finding,) = result.findings
    fixed = result.token_view["fixed"]
    assert fixed["reusable_tokens"] == result.fixed_reusable_tokens == finding.fixed_reusable_tokens
    assert len(fixed["tokens"]) == result.fixed_tokens
    text = "".join(fixed["tokens"])
    assert text.index("Current time: ") > text.index("<|im_start|>user")  # the line as the fix moved it
