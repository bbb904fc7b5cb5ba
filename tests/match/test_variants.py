"""The fixed variant: which placeholders changed between two renders, and moving their lines."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.match.variants import (
    LINE,
    MAX_CARRIED_CHARS,
    SENTENCE,
    changed_placeholders,
    decide,
    first_difference,
    move_to_end,
    placement,
    plan_moves,
)
from prefixlint.render.spans import RenderedMessage, Span


def message(role, pieces):
    """A rendered message from (text, placeholder or None) pieces."""
    text, spans = "", []
    for piece, placeholder in pieces:
        if placeholder is not None:
            spans.append(Span(placeholder, len(text), len(text) + len(piece)))
        text += piece
    return RenderedMessage(role, text, tuple(spans))


def test_changed_placeholders_pairs_spans_in_order():
    a = [message("system", [("Time: ", None), ("09:00", 0), ("\nName: ", None), ("Ana", 1), ("\n", None)])]
    b = [message("system", [("Time: ", None), ("10:00", 0), ("\nName: ", None), ("Ana", 1), ("\n", None)])]
    assert changed_placeholders(a, b) == {0}
    c = [message("system", [("Docs: ", None), ("x", 2), ("y", 2), ("\nEnd", None)])]
    d = [message("system", [("Docs: ", None), ("x", 2), ("\nEnd", None)])]
    assert changed_placeholders(c, d) == {2}


def test_lines_move_to_the_last_user_message():
    system = message("system", [("Current time: ", None), ("09:00", 0), ("\nRules.\nMore rules.\n", None)])
    user = message("user", [("Question?", 1)])
    texts = move_to_end([system, user, message("assistant", [("ok", None)])], {0})
    assert texts == ["Rules.\nMore rules.\n", "Question?\nCurrent time: 09:00", "ok"]


def test_a_value_inside_a_long_line_moves_with_its_sentence():
    tail = " Answer questions about the bank. " + "x" * MAX_CARRIED_CHARS + "."
    prompt = message(None, [("You help customers. Today is ", None), ("Monday", 0), (".", None), (tail, None)])
    assert decide([prompt], {0}) == {0: SENTENCE}
    # cut: "Today is Monday. " (the sentence and the spaces after it); appended as its own line
    assert move_to_end([prompt], {0}) == ["You help customers. Answer questions about the bank. "
                                          + "x" * MAX_CARRIED_CHARS + ".\nToday is Monday."]


def test_the_placement_is_decided_once_for_both_renders():
    # 40 characters after the value in one render, 60 in the other: one decision for both.
    short = message(None, [("Time: ", None), ("9", 0), (" " + "a" * 39 + "\nRules.\n", None)])
    assert placement(short.text, 6, 7) == LINE
    plan = plan_moves([short], {0: LINE})
    assert plan.cuts == (((0, 48),),) and plan.pieces == ("Time: 9 " + "a" * 39 + "\n",)


def test_the_last_line_takes_the_newline_before_it():
    prompt = message(None, [("Rules.\nTime: ", None), ("9", 0)])
    assert plan_moves([prompt], {0: LINE}).cuts == (((6, 14),),)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="ab \n", max_size=8), st.booleans()), min_size=1, max_size=10))
def test_moving_keeps_every_character(pieces):
    parts = [(text or "v", index if volatile else None) for index, (text, volatile) in enumerate(pieces)]
    rendered = message(None, parts)
    moved = {index for index, (_, volatile) in enumerate(pieces) if volatile}
    (fixed,) = move_to_end([rendered], moved)
    assert sorted(fixed.replace("\n", "").replace(" ", "")) == sorted(rendered.text.replace("\n", "").replace(" ", ""))
    if not moved:
        assert fixed == rendered.text


def test_first_difference():
    assert first_difference("abcdef", "abcxef") == 3
    assert first_difference("abc", "abcd") == 3
    assert first_difference("same", "same") == 4
