"""A value is not taken from the line that introduces it (issue 24 item 2, found by the judge on
real repositories): a delimited section (`=== REPORT A ===`) moves with its header and its
closing marker, and a value that a longer `…:` sentence introduces is not moved alone. The
verifier rejects a fix that separates them, whatever the planner proposes."""

from __future__ import annotations

import pytest

from prefixlint.fix.source import SourceMessage
from prefixlint.fix.verify import Rejected, introductions, verify
from prefixlint.fix.write import fixed_text
from prefixlint.match.units import BLOCK, NoUnit, block_region, choose
from prefixlint.render.spans import Span
from tests.fix.helpers import check
from tests.fix.test_fix_value_sentence import FIXTURES


def unit(text: str, value: str):
    start = text.index(value)
    spans = [Span(0, start, start + len(value))]
    mode = choose(text, spans, start, start + len(value), None)
    region = block_region(text, spans, start, start + len(value)) if mode == BLOCK else None
    return mode, (text[region[0] : region[1]] if region else None)


def test_a_delimited_section_moves_with_its_header_and_its_closing():
    text = "Rules.\n\n=== REPORT ===\n{{ r }}\n=== END REPORT ===\n\nReply with JSON only.\n"
    assert unit(text, "{{ r }}") == (BLOCK, "=== REPORT ===\n{{ r }}\n=== END REPORT ===\n")
    text = "Rules.\n\n=== REPORT A ===\n{{ a }}\n\n=== REPORT B ===\n{{ b }}\n\n=== END ===\n\nReply.\n"
    assert unit(text, "{{ a }}") == (BLOCK, "=== REPORT A ===\n{{ a }}\n")
    assert unit(text, "{{ b }}") == (BLOCK, "=== REPORT B ===\n{{ b }}\n\n=== END ===\n")


@pytest.mark.parametrize("text,value", [
    ("These are the messages that have been exchanged so far with the user asking for it:\n"
     "<Messages>\n{{ m }}\n</Messages>\n\nAssess it.\n", "{{ m }}"),
    ("Judge the two reports below on exactly one dimension:\n\n{{ q }}\n\nTopic: {{ t }}\n", "{{ q }}"),
    ("I executed that code. This was the output: \n\n{{ o }}\n\nWhat does this output mean?\n", "{{ o }}"),
])
def test_a_value_a_sentence_introduces_is_not_moved_alone(text, value):
    with pytest.raises(NoUnit, match="introduces"):
        unit(text, value)


def test_the_fixed_file_keeps_every_section_with_its_header():
    (result,) = check(FIXTURES / "delimited_sections.txt")
    before, after, fixed = fixed_text(result, unsafe=True)
    tail = after[after.index("never explain the letter.\n") + len("never explain the letter.\n"):]
    # both sections after the instructions, in their order, the closing marker after the last
    assert tail == "=== REPORT A ===\n{{ report_a }}\n=== REPORT B ===\n{{ report_b }}\n\n=== END OF REPORTS ===\n"
    assert fixed == 2
    assert "=== REPORT" not in after[: after.index("Judge the reports")]
    assert after.startswith("You grade research reports for a newsroom.")


def test_no_fix_for_a_container_its_sentence_introduces_and_the_reason_is_shown():
    (result,) = check(FIXTURES / "introduced_container.txt")
    (finding,) = [f for f in result.findings if f.variable == "messages"]
    assert finding.extra["fix"] is None
    assert "introduces" in finding.extra["fix_unavailable"]
    assert "No automatic fix: the value is what the sentence above it introduces" in finding.message


def _message(text: str, *values: str) -> SourceMessage:
    spans = tuple(Span(k, text.index(v), text.index(v) + len(v)) for k, v in enumerate(values))
    return SourceMessage("system", text, spans, tuple(range(len(text))), len(text))


def test_the_verifier_rejects_a_value_taken_from_its_introduction():
    before = _message("Rules.\n=== REPORT ===\n{{ r }}\n\nReply.\n", "{{ r }}")
    assert introductions([before]) == {("=== REPORT ===", "{{ r }}"): 1}
    pulled = _message("Rules.\n=== REPORT ===\n\nReply.\n{{ r }}\n", "{{ r }}")
    with pytest.raises(Rejected, match="from the line introducing it"):
        verify([before], {"r": 1}, [pulled], {"r": 1})
    together = _message("Rules.\n\nReply.\n=== REPORT ===\n{{ r }}\n", "{{ r }}")
    verify([before], {"r": 1}, [together], {"r": 1})


def test_a_value_between_triple_quotes_moves_with_them_or_not_at_all():
    text = 'Run it.\n"""\n{{ out }}\n"""\n\nWhat does this output mean? Explain it in two sentences.\n'
    assert unit(text, "{{ out }}") == (BLOCK, '"""\n{{ out }}\n"""\n')
    text = 'Run it. This was the output: """\n{{ out }}\n"""\n\nWhat does this output mean? Explain it.\n'
    with pytest.raises(NoUnit, match="container"):
        unit(text, "{{ out }}")


def test_the_verifier_rejects_quotes_left_quoting_nothing():
    before = _message('Rules.\nThe output: """\n{{ o }}\n"""\nReply.\n', "{{ o }}")
    emptied = _message('Rules.\nThe output: """\n"""\nReply.\n{{ o }}\n', "{{ o }}")
    with pytest.raises(Rejected, match="without its content"):
        verify([before], {"o": 1}, [emptied], {"o": 1})
