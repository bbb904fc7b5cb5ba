"""`same_code` compares only the top-level statements that hold a change (issue 19 item 9): the
answer is the one a comparison of the whole modules gives, for changes inside and outside
string literals, in the first, a middle and the last statement."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from prefixlint.fix.python_cst import CodeChanged, _changed_statements, same_code

MODULE = ('"""Prompts."""\nimport os\n\nFIRST_PROMPT = "Say hello to the user."\n\n\n'
          '@decorator\ndef second(name):\n    return f"""Hi {name}.\nRules follow."""\n\n'
          'THIRD_PROMPT = ("one "\n    "two")  # a comment\n')


def changed(old: str, new: str) -> str:
    return MODULE.replace(old, new, 1)


@pytest.mark.parametrize("old,new,ok", [
    ("Say hello to the user.", "Say hello to the user, please.", True),
    ("Rules follow.", "Rules follow.\nMore rules.", True),
    ('"two"', '"two and three"', True),
    ("return f", "return  f", False),            # code outside a literal
    ('"two")', '"two"', False),                  # the statement no longer parses
    ("(name)", "(name, other)", False),
    ("import os", "import sys", False),
])
def test_a_change_is_judged_as_the_whole_modules_would_be(old, new, ok):
    after = changed(old, new)
    if ok:
        same_code(MODULE, after)
    else:
        with pytest.raises(CodeChanged):
            same_code(MODULE, after)


def test_only_the_statement_holding_the_change_is_compared():
    before, after, _ = _changed_statements(MODULE, changed("Rules follow.", "Rules follow!"))
    assert before.startswith("@decorator\ndef second") and before.endswith('Rules follow."""\n')
    assert after == before.replace("Rules follow.", "Rules follow!")


@given(st.text(alphabet="abc {}\n", max_size=12), st.sampled_from(["Say hello", "Rules", "one "]))
def test_text_added_inside_a_literal_is_never_code(extra, anchor):
    safe = extra.replace("{", "{{").replace("}", "}}") if anchor == "Rules" else extra.replace("\n", " ")
    same_code(MODULE, changed(anchor, anchor + safe))
