"""A value inside a sentence moves as its own short sentence (issue 15): an unsafe fix that
takes the value out with its connecting words, leaving the sentence meaningful, and appends
`<lead-in> <value>.` after the stable content. Expected texts are written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from prefixlint.fix.write import fixed_text
from prefixlint.match.clause import clause, lead_in
from tests.fix.helpers import check

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "fix"


def fix(name: str, unsafe: bool):
    (result,) = check(FIXTURES / name)
    return result, fixed_text(result, unsafe=unsafe)


def test_a_comma_clause_leaves_its_sentence_and_the_date_follows_as_its_own():
    result, (before, after, fixed) = fix("date_in_sentence.yaml", unsafe=True)
    (finding,) = result.findings
    assert finding.extra["fix"]["applicability"] == "unsafe"
    assert finding.extra["fix"]["message"] == "Move the value as its own sentence to the last user message"
    assert fixed == 1
    assert after == before.replace(
        "Acme Cloud, and today's date is {{ current_date }}. You answer", "Acme Cloud. You answer").replace(
        'content: "{{ question }}"', 'content: "{{ question }}\\nToday\'s date is {{ current_date }}."')


def test_it_is_not_applied_without_unsafe_fixes():
    result, planned = fix("date_in_sentence.yaml", unsafe=False)
    assert planned is None


def test_a_preposition_goes_with_its_time():
    _, (before, after, _) = fix("time_after_preposition.yaml", unsafe=True)
    assert after == before.replace("services as of {{ now }}. Check", "services. Check").replace(
        'content: "{{ question }}"', 'content: "{{ question }}\\nThe current time is {{ now }}."')


@pytest.mark.parametrize("text,expected", [
    ("I am a bot, and today's date is {d}. More.", "I am a bot. More."),
    ("Answer questions asked on {d}, briefly.", "Answer questions asked, briefly."),
    ("Hello there, today is {d}, and welcome.", "Hello there, and welcome."),
])
def test_the_connecting_words_go_with_the_value(text, expected):
    start = text.index("{d}")
    sentence_end = text.index(".", start) + 1
    cut = clause(text, start, start + 3, 0, sentence_end)
    assert text[: cut[0]] + text[cut[1] :] == expected


@pytest.mark.parametrize("text", ["Greet {d} warmly and answer questions.", "{d} is the date today, remember it."])
def test_no_clause_when_the_value_is_part_of_the_prose(text):
    start = text.index("{d}")
    assert clause(text, start, start + 3, 0, len(text)) is None


@pytest.mark.parametrize("name,cls,frequency,lead", [
    ("current_date", "timestamp", "per_day", "Today is"),
    ("now", "timestamp", "per_request", "The current time is"),
    ("user_name", "user-data", "per_user", "The user's name is"),
    ("self.user.email", "user-data", "per_user", "The user's email is"),
    ("session_id", "identifier", "per_request", "Session id:"),
    ("iteration", "counter-or-random", "per_request", "Iteration:"),
    ("documents", "request-content", "per_request", None),
])
def test_the_lead_in_follows_the_value_class(name, cls, frequency, lead):
    assert lead_in(name, cls, frequency) == lead
