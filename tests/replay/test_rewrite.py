"""`replay --rewrite`'s request rewrite: three moves, never a word or value added, dropped or changed."""

from __future__ import annotations

import json
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.explain.rewrite import Counts, rewrite_body, volatile_line

LINES = st.sampled_from([
    "Current time: 2025-03-01 10:00:07", "Request ID: 3f2a9c1e-5b7d-4c1a-9e2f-0a1b2c3d4e5f",
    "Customer e-mail: ann@example.com", "Iteration 12", "You are the support assistant.", "",
    "Answer in two short paragraphs.  ", "Policies:\r", "1. Refunds within 30 days.", "Today is 2025-03-01",
])


def words(body: dict) -> Counter:
    found = Counter(w for m in body["messages"] for w in m["content"].split())
    for tool in body.get("tools", ()):
        found.update(json.dumps(tool, sort_keys=True).split())
    return found


@settings(max_examples=200, deadline=None)
@given(st.lists(LINES, max_size=12), st.lists(LINES, max_size=4), st.booleans())
def test_the_same_words_and_values_before_and_after(system, user, reverse_tools):
    tools = [{"type": "function", "function": {"name": "b", "parameters": {"type": "object", "properties": {}}}},
             {"function": {"parameters": {"properties": {}, "type": "object"}, "name": "a"}, "type": "function"}]
    body = {"messages": [{"role": "system", "content": "\n".join(system)},
                         {"role": "user", "content": "\n".join(user) or "Hi?"}],
            "tools": tools[::-1] if reverse_tools else tools}
    after = rewrite_body(body, Counts())
    assert words(after) == words(body)
    assert [t["function"]["name"] for t in after["tools"]] == ["a", "b"]
    assert all(list(t) == sorted(t) for t in after["tools"])
    system_after = after["messages"][0]["content"]
    assert not any(volatile_line(line) for line in system_after.split("\n"))
    assert "\r" not in system_after and not any(line.endswith(" ") for line in system_after.split("\n"))
    # the stable lines keep their order
    stable = [line.rstrip(" \r") for line in system if line.strip() and not volatile_line(line)]
    assert [line for line in system_after.split("\n") if line.strip()] == stable


def test_volatile_lines_are_those_the_classifier_names():
    assert volatile_line("Current time: 2025-03-01 10:00:07")
    assert volatile_line("user: customer7@example.com")
    assert volatile_line("Turn 3")
    assert not volatile_line("You are the support assistant of ACME Rockets.")
    assert not volatile_line("Policies: refunds within 30 days")
    assert not volatile_line("Model: gpt-4o")
