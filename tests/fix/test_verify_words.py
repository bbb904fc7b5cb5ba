"""The word check of a fix (`fix/verify.py`) compares only the lines the two texts do not share:
a word never spans a line, so what it finds lost or added is what comparing every word finds."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from prefixlint.fix.verify import CONNECTORS, Rejected, _lines, _words, text_words, verify
from prefixlint.match.units import masked
from prefixlint.render.spans import RenderedMessage, Span

LINES = ["Rule one: answer.", "Today is {d}.", "", "it's the user's-id", "Rule one: answer.", "Ünïcode wörds", "x_y and z"]


@st.composite
def messages(draw):
    out = []
    for _ in range(draw(st.integers(1, 3))):
        text = "\n".join(draw(st.lists(st.sampled_from(LINES), max_size=6)))
        spans = []
        for start in sorted(draw(st.sets(st.integers(0, max(len(text) - 1, 0)), max_size=2))):
            spans.append(Span(len(spans), start, min(len(text), start + draw(st.integers(0, 6)))))
        out.append(RenderedMessage("user", text, tuple(spans)))
    return out


@given(messages(), messages())
def test_the_words_of_the_lines_not_shared_differ_as_all_words_do(before, after):
    words_before, words_after = text_words(before), text_words(after)
    lines_before, lines_after = _lines(before), _lines(after)
    assert _words(lines_before - lines_after) - _words(lines_after - lines_before) == words_before - words_after
    assert _words(lines_after - lines_before) - _words(lines_before - lines_after) == words_after - words_before


@given(messages(), messages())
def test_verify_rejects_a_lost_word_as_counting_every_word_does(before, after):
    lost = sorted(w for w in text_words(before) - text_words(after) if w not in CONNECTORS)
    try:
        verify(before, Counter(), after, Counter())
        reason = ""
    except Rejected as exc:
        reason = str(exc)
    assert ("would lose the word" in reason) == bool(lost)
    if lost:
        assert reason.endswith(", ".join(repr(w) for w in lost[:3]))


def test_masked_blanks_values_and_keeps_line_breaks():
    text = "Today is {d}.\nRule one."
    assert masked(text, (Span(0, 9, 20),)) == "Today is" + " " * 5 + "\n" + " " * 6 + "ne."
    assert masked(text, (Span(0, 9, 12), Span(1, 10, 11))) == "Today is" + " " * 4 + ".\nRule one."


def _containers_scanned(texts) -> int:
    """`empty_containers` as every pattern scanning the whole text counts them."""
    from prefixlint.fix.verify import _EMPTY_ELEMENT, _EMPTY_FENCE, _EMPTY_QUOTES, _HEADER

    count = 0
    for text in texts:
        count += len(_EMPTY_ELEMENT.findall(text)) + len(_EMPTY_FENCE.findall(text)) + len(_EMPTY_QUOTES.findall(text))
        for header in _HEADER.finditer(text):
            if header.group(2) and "END" in header.group(0).upper().split():
                continue
            following = next((line for line in text[header.end():].split("\n") if line.strip()), None)
            count += following is None or bool(_HEADER.fullmatch(following))
    return count


MARKS = ["#", "## ", " ", "\n", "A", "END", "x", ":", "===", "***", "~~~", "```", "---", '"""', "'''", "``", "<a>", "</a>"]


@given(st.lists(st.sampled_from(MARKS), max_size=14).map("".join))
def test_empty_containers_are_counted_as_a_whole_scan_counts_them(text):
    from prefixlint.fix.verify import empty_containers

    assert empty_containers([text]) == _containers_scanned([text])
