"""ruff's `# noqa` in every comment form, and a comment on a multi-line string's closing line."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.results import Finding
from prefixlint.rules.suppress import Suppressions


def finding(code: str, line: int) -> Finding:
    return Finding(path="p", line=line, column=1, code=code, name=code, severity="error", message=code)


@pytest.mark.parametrize("comment, codes", [
    ("# noqa: PFX001", ("PFX001",)),
    ("# NOQA:PFX001,PFX002", ("PFX001", "PFX002")),
    ("{# noqa: PFX003 #}", ("PFX003",)),
    ("{#- noqa -#}", ()),
    ("<!-- noqa: PFX001 -->", ("PFX001",)),
    ("// noqa: PFX002", ("PFX002",)),
    ("{{! noqa: PFX001 }}", ("PFX001",)),
    ("{{!-- noqa --}}", ()),
    ("# noqa: E501, PFX001", ("PFX001",)),
    ("# noqa", ()),
])
def test_noqa_is_read_in_every_comment_form(comment, codes):
    text = f"first line\nToday {{{{ now }}}} {comment}\n"
    (directive,) = Suppressions.parse(text).directives
    assert (directive.line, directive.column, directive.scope, directive.codes) == (
        2, text.splitlines()[1].index(comment) + 1, "line", codes)


@pytest.mark.parametrize("text", ["x  # noqa: E501\n", "x  # noqanot\n", "x  # noqa-like\n", "an issue: noqa\n"])
def test_a_noqa_of_another_tool_or_no_comment_is_not_prefixlints(text):
    assert Suppressions.parse(text).directives == ()


def test_noqa_covers_its_line_and_reports_only_named_codes_as_unused():
    text = "a {{ now }}  # noqa: PFX001\nb {{ id }}  # noqa\nc  # noqa\nd  # noqa: PFX002\n"
    kept, unused = Suppressions.parse(text).apply(
        [finding("PFX001", 1), finding("PFX002", 1), finding("PFX002", 2), finding("PFX003", 3)], "p")
    assert [(f.code, f.line) for f in kept] == [("PFX002", 1)]
    # the bare noqa on line 3 hid PFX003; the one on line 4 names PFX002 and hides nothing
    assert [(f.code, f.line, f.column, f.message) for f in unused] == [
        ("PFX000", 4, 4, "unused suppression: no PFX002 finding on this line")]


def test_a_directive_on_the_closing_line_covers_the_whole_string():
    suppressions = Suppressions.parse('x = f"""{a}\nb\n"""  # noqa: PFX001\n').spanning([(1, 3)])
    kept, unused = suppressions.apply([finding("PFX001", 1), finding("PFX002", 2)], "p")
    assert [(f.code, f.line) for f in kept] == [("PFX002", 2)] and unused == []
    after = Suppressions.parse('x = f"""{a}\nb\n"""\ny = 1  # noqa: PFX001\n').spanning([(1, 3)])
    kept, unused = after.apply([finding("PFX001", 1)], "p")
    assert [f.line for f in kept] == [1] and [f.line for f in unused] == [4]


# the prompt is built per call, inside a function: a module-level f-string is evaluated once per process
PYTHON = '''from datetime import date
def system_prompt():
    return f"""Today is {date.today()}.
You are the support assistant of Northwind Bank. Answer questions about accounts, cards,
transfers and fees. Be brief and precise, and never give investment advice to anyone.
Always answer in the language of the customer and cite the relevant help-centre article.
If you do not know the answer, say so and offer to hand the conversation to a human agent.
"""  COMMENT
'''
STABLE = ("You are the support assistant of Northwind Bank. Answer questions about accounts, cards, "
          "transfers and fees. Be brief and precise, and never give investment advice to anyone. ") * 3


def check(path) -> list[tuple[str, int]]:
    result = CliRunner().invoke(cli, ["check", "--output-format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    return [(f["code"], f["line"]) for f in json.loads(result.stdout)["files"][0]["findings"]]


@pytest.mark.parametrize("comment", ["# noqa: PFX001", "# prefixlint: disable-line PFX001", "# noqa"])
def test_python_comment_on_the_closing_line_suppresses_without_pfx000(tmp_path, comment):
    path = tmp_path / "agent.py"
    path.write_text(PYTHON.replace("COMMENT", comment))
    assert check(path) == []
    other = comment.replace("PFX001", "PFX002") if "PFX" in comment else "# noqa: E501"
    path.write_text(PYTHON.replace("COMMENT", other))
    expected = [("PFX001", 3)] + ([("PFX000", 8)] if "PFX" in comment else [])
    assert check(path) == expected


@pytest.mark.parametrize("name, text", [
    ("prompt.md", "Today is {{ today }}. <!-- noqa: PFX001 -->\n" + STABLE + "\n"),
    ("prompt.j2", "Today is {{ today }}. {# noqa: PFX001 #}\n" + STABLE + "\n"),
    ("prompt.yaml", 'prompt: "Today is {{ today }}. ' + STABLE + '"  # noqa: PFX001\n'),
])
def test_noqa_suppresses_in_each_formats_comment(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    assert check(path) == []
    path.write_text(text.replace("noqa: PFX001", "noqa: PFX002"))
    assert ("PFX001", 1) in check(path)
