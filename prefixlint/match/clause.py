"""A value inside a sentence, moved as its own short sentence (issue 15): `Today is {{ date }}.`

When the sentence holding a volatile value is longer than the value's own statement, the value
is taken out together with the words that connect it to the sentence (a comma clause such as
", and today's date is {date}", or a preposition such as " on {{ date }}"), and a short
sentence of its own is appended after the stable content. Its lead-in comes from the value's
class (`lead_in`). A sentence this cannot shorten keeps the whole-sentence move (`SENTENCE`).
A mode "value:<lead-in>" carries the decision, so the renders and the file's fix agree.
"""

from __future__ import annotations

import re

VALUE = "value:"
#: `, [and|but|where] w1 .. w4 <value>` (the clause from its comma) or `<preposition> <value>`.
_COMMA_CLAUSE = re.compile(r",[ \t]*(?:(?:and|but|where|with)[ \t]+)?(?:[\w'’]+[ \t]+){0,4}(?:is|was|:)?[ \t]*$")
_PREPOSITION = re.compile(r"[ \t]+(?:on|at|as of|since|until|for)[ \t]+$")
_PAREN = re.compile(r"[ \t]*\((?:[\w'’-]+[ \t]+){0,4}(?:[\w'’-]+[ \t]*[:#]?[ \t]*)?$")
_AFTER = re.compile(r"[ \t]*(?:[,.;!?]|$)")
_WORDS = re.compile(r"[A-Za-z][a-z]*|[0-9]+")
_OWNER = {"user", "self", "customer", "current", "the", "state", "config", "request", "hints"}


def value_mode(lead: str) -> str:
    return VALUE + lead


def lead_of(mode: str) -> str | None:
    return mode[len(VALUE):] if mode.startswith(VALUE) else None


def clause(text: str, start: int, end: int, sentence_start: int, sentence_end: int) -> tuple[int, int] | None:
    """The [start, end) to cut so that the sentence still reads without the value at
    text[start:end]; None when no connecting words can be told apart from the prose."""
    opening = _PAREN.search(text, max(sentence_start, start - 48), start)
    if opening and text.startswith(")", end) and text[sentence_start : opening.start()].strip():
        return opening.start(), end + 1  # `(request {{ request_id }})`: the parenthesis goes whole
    after = _AFTER.match(text, end, sentence_end)
    if after is None or after.end() == end and end < sentence_end and text[end] not in " \t\n":
        return None
    before = text[sentence_start:start]
    for pattern in (_COMMA_CLAUSE, _PREPOSITION):
        found = pattern.search(before)
        if found and before[: found.start()].strip():
            return sentence_start + found.start(), end
    return None


def lead_in(name: str, cls: str | None, frequency: str) -> str | None:
    """The words that introduce a value of this class as a sentence of its own."""
    words = [w.lower() for w in _WORDS.findall(name.replace(".", "_"))]
    own = [w for w in words if w not in _OWNER] or words
    if cls == "timestamp":
        return "Today is" if frequency == "per_day" or "date" in words or "today" in words else "The current time is"
    if cls == "user-data":
        return "The user's name is" if "name" in own else f"The user's {' '.join(own)} is"
    if cls == "identifier":
        label = " ".join(w for w in words if w != "id") or "session"
        return f"{label.capitalize()} id:"
    if cls == "counter-or-random":
        return f"{' '.join(own).capitalize()}:"
    return None


def lead_ins(placeholders, volatility: dict) -> dict[int, str]:
    """The lead-in of each placeholder whose value would move as its own sentence (by the first of
    its calls and names that is volatile and has one; `volatility`: name -> `Volatility`)."""
    leads = {}
    for p in placeholders:
        for name in (*p.calls, *p.names):
            v = volatility.get(name)
            lead = lead_in(name, v.cls, v.frequency) if v is not None and v.volatile else None
            if lead:
                leads[p.index] = lead
                break
    return leads
