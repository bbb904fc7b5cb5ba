"""Suppression comments: where they are, what they cover, and the report of unused ones."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.config import Config
from prefixlint.errors import PrefixlintError
from prefixlint.results import Finding
from prefixlint.rules.catalog import load_catalog
from prefixlint.rules.suppress import Directive, Suppressions

RULE_FILE = Path(__file__).resolve().parents[2] / "rules" / "PFX000.yaml"
NAMES = {"PFX001": "timestamp-before-stable", "PFX002": "identifier-before-stable",
         "PFX003": "user-data-before-stable", "PFX004": "counter-or-random-before-stable"}


def finding(code: str, line: int, column: int = 1, path: str = "p.yaml") -> Finding:
    return Finding(path=path, line=line, column=column, code=code, name=NAMES.get(code, code),
                   severity="error", message=f"{code} at {line}")


def column_of(line_text: str, needle: str) -> int:
    return line_text.index(needle) + 1


# --- parsing ------------------------------------------------------------------------------------

SOURCE = """\
messages:
  - role: system
    content: "Now: {{ now }}"  # prefixlint: disable-line PFX001
  - role: user
    content: |
      Hi {{ user_name }} {# prefixlint: disable PFX003, PFX002 -- greeting on purpose #}
      {#- prefixlint: disable-file PFX004 -#}
      {# prefixlint:disable #}
# prefixlint: disable-file: PFX002 PFX005
"""


def test_parse_records_each_directive_with_line_column_scope_and_codes():
    lines = SOURCE.splitlines()
    directives = Suppressions.parse(SOURCE).directives
    assert [(d.line, d.column, d.scope, d.codes, d.alone) for d in directives] == [
        (3, column_of(lines[2], "#"), "line", ("PFX001",), False),
        (6, column_of(lines[5], "{#"), "line", ("PFX003", "PFX002"), False),
        (7, column_of(lines[6], "{#-"), "file", ("PFX004",), True),
        (8, column_of(lines[7], "{#"), "line", (), True),
        (9, 1, "file", ("PFX002", "PFX005"), True),
    ]
    assert directives[1].text == "{# prefixlint: disable PFX003, PFX002 -- greeting on purpose #}"
    assert directives[0].text == "# prefixlint: disable-line PFX001"


def test_parse_counts_lines_the_same_with_crlf_endings():
    crlf = SOURCE.replace("\n", "\r\n")
    assert [(d.line, d.column, d.codes) for d in Suppressions.parse(crlf).directives] == [
        (d.line, d.column, d.codes) for d in Suppressions.parse(SOURCE).directives
    ]


@pytest.mark.parametrize("text", [
    "# prefixlint: enable PFX001\n",
    "# prefixlint: disable-lines PFX001\n",
    "# prefixlint disable-line PFX001\n",
    "Issue #42 is about prefixlint.\n",
    "{# a comment about prefixlint: it disables nothing #}\n",
])
def test_text_that_is_not_a_directive_is_ignored(text):
    assert Suppressions.parse(text).directives == ()


@pytest.mark.parametrize("text, bad, column", [
    ("prompt: x  # prefixlint: disable-line PFX001 because it is last\n", "because", 46),
    ("{# prefixlint: disable PFX1 #}\n", "PFX1", 24),
    ("line one\n  # prefixlint: disable-file pfx001\n", "pfx001", 30),
    ("x # prefixlint: disable-line PFX001 # and a second comment\n", "#", 37),
])
def test_a_malformed_code_list_is_an_error_at_the_code(text, bad, column):
    with pytest.raises(PrefixlintError) as caught:
        Suppressions.parse(text, "prompts/x.yaml")
    line = text.count("\n", 0, text.index(bad)) + 1
    line_start = text.rfind("\n", 0, text.index(bad, text.index("prefixlint"))) + 1
    assert column == text.index(bad, text.index("prefixlint")) - line_start + 1
    assert (caught.value.path, caught.value.line, caught.value.column) == ("prompts/x.yaml", line, column)
    guess = " (did you mean 'PFX001'?)" if bad == "pfx001" else ""  # a code one slip away
    assert caught.value.message == f"malformed suppression comment: {bad!r} is not a rule code{guess}"


# --- applying -------------------------------------------------------------------------------------


def test_a_line_directive_covers_its_codes_on_its_line_only():
    text = "a\nb {{ now }} # prefixlint: disable-line PFX001\nc {{ now }}\n"
    on_line, other_code, other_line = finding("PFX001", 2), finding("PFX002", 2), finding("PFX001", 3)
    kept, unused = Suppressions.parse(text).apply([on_line, other_code, other_line], "p.yaml")
    assert kept == [other_code, other_line]
    assert unused == []


def test_a_directive_without_codes_covers_every_code_on_its_line():
    text = "x\n{{ user }} {{ session }} {# prefixlint: disable #}\n"
    covered = [finding("PFX003", 2, 1), finding("PFX002", 2, 12)]
    kept, unused = Suppressions.parse(text).apply([*covered, finding("PFX001", 1)], "p.yaml")
    assert (kept, unused) == ([finding("PFX001", 1)], [])


def test_a_file_directive_covers_its_codes_on_every_line():
    text = "{# prefixlint: disable-file PFX001 #}\n{{ now }}\n\n{{ today }}\n{{ user }}\n"
    kept, unused = Suppressions.parse(text).apply(
        [finding("PFX001", 2), finding("PFX001", 4), finding("PFX003", 5)], "p.yaml")
    assert (kept, unused) == ([finding("PFX003", 5)], [])


def test_kept_findings_keep_their_order_and_identity():
    findings = [finding("PFX002", 9), finding("PFX001", 1), finding("PFX004", 3)]
    kept, unused = Suppressions.parse("no directives here\n").apply(findings, "p.yaml")
    assert kept == findings and all(a is b for a, b in zip(kept, findings))
    assert unused == []


def test_unused_directives_are_reported_at_their_line_and_column():
    text = (
        'prompt: "{{ now }}"  # prefixlint: disable-line PFX001, PFX002\n'
        "{# prefixlint: disable-file PFX004 #}\n"
        "plain line {# prefixlint: disable #}\n"
    )
    lines = text.splitlines()
    kept, unused = Suppressions.parse(text).apply([finding("PFX001", 1)], "prompts/a.yaml")
    assert kept == []
    assert [(f.path, f.line, f.column, f.code, f.name, f.severity, f.message) for f in unused] == [
        ("prompts/a.yaml", 1, column_of(lines[0], "#"), "PFX000", "unused-suppression", "warning",
         "unused suppression: no PFX002 finding on this line"),
        ("prompts/a.yaml", 2, 1, "PFX000", "unused-suppression", "warning",
         "unused suppression: no PFX004 finding in this file"),
        ("prompts/a.yaml", 3, column_of(lines[2], "{#"), "PFX000", "unused-suppression", "warning",
         "unused suppression: no finding on this line to suppress"),
    ]
    assert unused[0].extra == {"directive": "# prefixlint: disable-line PFX001, PFX002"}


def test_a_directive_alone_before_the_content_covers_only_its_own_line():
    text = "{# prefixlint: disable PFX001 #}\nNow: {{ now }}\n"
    kept, unused = Suppressions.parse(text).apply([finding("PFX001", 2)], "p.md")
    assert kept == [finding("PFX001", 2)]
    assert [(f.line, f.column, f.message) for f in unused] == [(1, 1, (
        "unused suppression: no PFX001 finding on this line (a directive on a line of its own"
        " covers only that line; use disable-file for the file)"))]


def test_a_finding_covered_twice_uses_both_directives():
    text = "{# prefixlint: disable-file PFX001 #}\n{{ now }} {# prefixlint: disable PFX001 #}\n"
    assert Suppressions.parse(text).apply([finding("PFX001", 2)], "p.md") == ([], [])


def test_codes_of_rules_that_did_not_run_are_not_reported_unused():
    text = "{{ now }} {# prefixlint: disable PFX001, PFX006 #}\n"
    config = Config(ignore=("PFX006",))
    kept, unused = Suppressions.parse(text).apply([finding("PFX001", 1)], "p.md", enabled=config.is_enabled)
    assert (kept, unused) == ([], [])
    _, reported = Suppressions.parse(text).apply([finding("PFX001", 1)], "p.md")
    assert [f.message for f in reported] == ["unused suppression: no PFX006 finding on this line"]


def test_pfx000_can_be_turned_off_in_the_configuration_or_in_the_file():
    text = "{# prefixlint: disable PFX001 #}\n{{ now }}\n"
    assert Suppressions.parse(text).apply([], "p.md", enabled=Config(ignore=("PFX000",)).is_enabled) == ([], [])
    assert Suppressions.parse(text).apply([], "p.md", enabled=Config(select=("PFX00",)).is_enabled)[1] != []
    in_file = "{# prefixlint: disable-file PFX000 #}\n" + text
    assert Suppressions.parse(in_file).apply([], "p.md") == ([], [])
    same_line = "x {# prefixlint: disable PFX001, PFX000 #}\n"
    assert Suppressions.parse(same_line).apply([], "p.md") == ([], [])


def test_a_bare_file_directive_does_not_hide_its_own_report():
    kept, unused = Suppressions.parse("# prefixlint: disable-file\nhello\n").apply([], "p.yaml")
    assert [(f.line, f.column, f.message) for f in unused] == [
        (1, 1, "unused suppression: no finding in this file to suppress")]


# --- the rule's catalog entry and its cases ----------------------------------------------------------


def test_the_catalog_documents_pfx000_as_the_code_reports_it():
    rule = load_catalog()["PFX000"]
    _, unused = Suppressions.parse("x # prefixlint: disable-line\n").apply([], "p.yaml")
    assert (rule.code, rule.name, rule.severity) == (unused[0].code, unused[0].name, unused[0].severity)
    assert (rule.code, rule.name, rule.severity) == ("PFX000", "unused-suppression", "warning")
    assert all(rule.docs[part].strip() for part in ("what_it_does", "why_is_this_bad", "example", "use_instead"))


def rule_cases(kind: str) -> list:
    return yaml.safe_load(RULE_FILE.read_text(encoding="utf-8"))["cases"][kind]


def run_case(case: dict) -> list[tuple[int, int, str]]:
    findings = [finding(item["code"], item["line"]) for item in case["findings"]]
    kept, unused = Suppressions.parse(case["source"]).apply(findings, "case.yaml")
    return [(f.line, f.column, f.message) for f in unused]


@pytest.mark.parametrize("case", rule_cases("pass"))
def test_pass_cases(case):
    assert run_case(case) == []


@pytest.mark.parametrize("case", rule_cases("fail"))
def test_fail_cases(case):
    expected = [(item["line"], item["column"], item["message"]) for item in case["expect"]]
    assert run_case(case) == expected
    for line, column, _ in expected:
        assert case["source"].splitlines()[line - 1][column - 1] in "{#"


# --- a property ---------------------------------------------------------------------------------------

CODES = st.sampled_from(["PFX001", "PFX002", "PFX003"])


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(CODES, st.integers(1, 6)), max_size=8),
    st.lists(st.tuples(st.integers(1, 6), st.lists(CODES, max_size=2, unique=True)), max_size=4),
)
def test_apply_only_removes_findings_covered_on_their_line(found, directives):
    lines = [f"line {number}" for number in range(1, 7)]
    for line, codes in directives:
        lines[line - 1] += f" {{# prefixlint: disable {', '.join(codes)} #}}"
    findings = [finding(code, line) for code, line in found]
    kept, unused = Suppressions.parse("\n".join(lines) + "\n").apply(findings, "p.md")
    covered = {
        (code, line) for code, line in found
        for d_line, d_codes in directives if d_line == line and (not d_codes or code in d_codes)
    }
    assert kept == [f for f in findings if (f.code, f.line) not in covered]
    assert all(f.code == "PFX000" and any(line == f.line for line, _ in directives) for f in unused)
    if not directives:
        assert unused == []


def test_directive_is_frozen_data():
    d = Directive(line=1, column=1, scope="line", codes=("PFX001",), text="# prefixlint: disable")
    assert d.covers(finding("PFX001", 1)) and not d.covers(finding("PFX001", 2))
