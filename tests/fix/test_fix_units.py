"""The unit a value moves with, read from the text's structure (issue 24 items 1-2). Every
expected region is written by hand."""

from __future__ import annotations

import pytest

from prefixlint.match.units import BLOCK, LINE, SENTENCE, NoUnit, applicability, block_region, choose
from prefixlint.render.spans import Span
from tests.fix.helpers import check
from tests.fix.test_fix_value_sentence import FIXTURES, fix


def unit(text: str, value: str, lead: str | None = "Session id:"):
    start = text.index(value)
    spans = [Span(0, start, start + len(value))]
    mode = choose(text, spans, start, start + len(value), lead)
    region = block_region(text, spans, start, start + len(value)) if mode == BLOCK else None
    return mode, (text[region[0] : region[1]] if region else None)


@pytest.mark.parametrize("text,value,expected", [
    ("You are X.\nCurrent time: {{ now }}\nDo things.\n", "{{ now }}", (LINE, None)),
    ("You are X.\n<date>{{ d }}</date>\nDo things.\n", "{{ d }}", (BLOCK, "<date>{{ d }}</date>\n")),
    ("You are X.\n## Date\n\n{{ d }}\n\n## Rules\nDo things.\n", "{{ d }}", (BLOCK, "## Date\n\n{{ d }}\n")),
    ("You are X.\nREPORT:\n- Date: {{ d }}\n\nDo things.\n", "{{ d }}", (BLOCK, "REPORT:\n- Date: {{ d }}\n")),
    ("You are X.\nExample:\n{\n  \"date\": \"{{ d }}\"\n}\nDo things.\n", "{{ d }}",
     (BLOCK, "Example:\n{\n  \"date\": \"{{ d }}\"\n}\n")),
    ("You are X.\n```\n{{ d }}\n```\nDo things.\n", "{{ d }}", (BLOCK, "```\n{{ d }}\n```\n")),
    ("- a item\n- Session {{ d }}\n  more\n- b\n", "{{ d }}", (BLOCK, "- Session {{ d }}\n  more\n")),
    ("You are Wayfinder, a travel agent. Session: {{ s }}\nDo things.\n", "{{ s }}", (SENTENCE, None)),
    ("Hello {{ u }}, welcome back to Northwind Bank's digital assistant.\nDo things.\n", "{{ u }}", ("line!", None)),
])
def test_the_unit_of_a_value(text, value, expected):
    assert unit(text, value) == expected


@pytest.mark.parametrize("text,value,reason", [
    ("You are X.\n<ctx>\nDate: {{ d }}\nother stuff is here and more words\n</ctx>\nDo.\n", "{{ d }}", "container"),
    ("You are assisting {{ c }}.\nDo things.\n", "{{ c }}", "addressed to the model"),
    ("Intro.\n```\nprint({{ d }})\nmore code that runs here and there and everywhere\n```\n", "{{ d }}", "container"),
])
def test_no_unit_that_cannot_be_cut_cleanly(text, value, reason):
    with pytest.raises(NoUnit, match=reason):
        unit(text, value, lead=None)


def test_only_whole_label_units_are_safe():
    assert [applicability(m) for m in (LINE, BLOCK, "line!", "block!", SENTENCE, "value:Today is")] == [
        "safe", "safe", "unsafe", "unsafe", "unsafe", "unsafe"]


def test_a_parenthesised_label_moves_with_its_value():
    """`(request {{ request_id }})` leaves its sentence, parentheses and all; the words stay."""
    result, (before, after, fixed) = fix("request_in_parentheses.txt", unsafe=True)
    (finding,) = result.findings
    assert finding.extra["fix"]["applicability"] == "unsafe"
    assert after == before.replace("of Acme (request {{ request_id }}). You", "of Acme. You") + "Request {{ request_id }}.\n"
    assert fixed == 1 and finding.fixed_reusable_tokens == result.fixed_reusable_tokens > result.reusable_tokens


def test_the_reason_for_no_fix_is_in_the_text_output():
    (result,) = check(FIXTURES.parent.parent.parent / "samples" / "contoso_chat.jinja2")
    (finding,) = result.findings
    assert "No automatic fix: the value is part of a sentence addressed to the model" in finding.message


@pytest.mark.parametrize("text,value,reason", [
    ("Provided the main topic:\n\n{task}\n\nand research data:\n\n{data}\n", "{task}", "runs on"),
    ("Intro.\nAssume the date is {d}.\nMore rules here.\n", "{d}", "addressed to the model"),
    ("Intro.\nWrite 3 queries about \"{task}\"\nMore rules here.\n", "{task}", "addressed to the model"),
])
def test_instructions_and_running_sentences_stay(text, value, reason):
    with pytest.raises(NoUnit, match=reason):
        unit(text, value, lead=None)


def test_nothing_goes_after_a_closing_line_that_introduces_the_answer():
    """`Return … as a JSON array:` ends the prompt: what follows it is the model's; no fix."""
    (result,) = check(FIXTURES / "ends_with_colon.txt")
    (finding,) = result.findings
    assert finding.extra["fix"] is None
    assert finding.extra["fix_unavailable"] == (
        "the prompt ends with a line that introduces what follows it: nothing can go after it")
    assert (finding.line, finding.column) == (2, 17)
