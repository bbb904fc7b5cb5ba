"""Edits of a file's text: a fixed template's line starts are worked out from its original's
(`EditedLineStarts`) and are those of the edited text."""

from __future__ import annotations

from bisect import bisect_right

from hypothesis import given
from hypothesis import strategies as st

from prefixlint.fix.edits import Edit, EditedLineStarts, apply_edits
from prefixlint.load.template import line_starts


@st.composite
def texts_and_edits(draw):
    text = draw(st.text(alphabet="ab \n", max_size=40))
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=6)))
    edits = []
    for start, end in zip(cuts[::2], cuts[1::2]):
        end = end if draw(st.booleans()) else start  # a replacement or an insertion
        edits.append(Edit(start, end, draw(st.text(alphabet="x\n", max_size=4))))
    return text, draw(st.permutations(edits))


@given(texts_and_edits())
def test_the_line_starts_of_the_edited_text(case):
    text, edits = case
    expected = line_starts(apply_edits(text, edits))
    starts = EditedLineStarts(text, edits)
    assert len(starts) == len(expected) and list(starts) == expected
    assert starts[-1] == expected[-1] and starts[1:3] == expected[1:3]
    for offset in range(len(apply_edits(text, edits)) + 1):  # as Template.position reads them
        assert bisect_right(starts, offset) == bisect_right(expected, offset)


def test_an_insertion_of_lines_inside_the_text():
    starts = EditedLineStarts("one\ntwo\nthree\n", [Edit(4, 4, "new\nlines\n")])
    assert list(starts) == [0, 4, 8, 14, 18, 24] == line_starts("one\nnew\nlines\ntwo\nthree\n")
