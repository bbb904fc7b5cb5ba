"""str.format fields are found only where a brace is (`simple_styles._finditer`): the same matches,
in the same order, as the regular expression scanning every character."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from prefixlint.render.simple_styles import _PATTERNS, _finditer


@given(st.text(alphabet="{}ab_:!.[0]$ \n", max_size=40))
def test_the_fields_found_at_braces_are_those_of_a_full_scan(text):
    pattern = _PATTERNS["format"]
    expected = [(m.span(), m.groupdict()) for m in pattern.finditer(text)]
    assert [(m.span(), m.groupdict()) for m in _finditer(pattern, text, True)] == expected


def test_escapes_fields_and_a_lone_brace():
    found = [m.group(0) for m in _finditer(_PATTERNS["format"], "{{x}} {name} } {a.b!r:>4} {", True)]
    assert found == ["{{", "}}", "{name}", "{a.b!r:>4}"] == [m.group(0) for m in _PATTERNS["format"].finditer(
        "{{x}} {name} } {a.b!r:>4} {")]
