"""`--format github`: workflow commands with the actions toolkit's escaping."""

from hypothesis import given
from hypothesis import strategies as st

from prefixlint.report.github import annotation, escape_data, escape_property, to_github
from prefixlint.results import Finding


def finding(**changes) -> Finding:
    values = dict(
        path="prompts/support.yaml", line=3, column=14, code="PFX001", name="timestamp-before-stable",
        severity="error", message="{{ now }} ends the shared prefix at token 6",
    )
    values.update(changes)
    return Finding(**values)


def test_escaping_matches_the_toolkit():
    # command.ts: escapeData replaces % first, then CR and LF; escapeProperty adds : and ,
    assert escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"
    assert escape_property("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext%3A a%2Cb"
    assert escape_data("%0A") == "%250A"  # an already-escaped sequence is escaped again


def test_one_command_per_finding_with_title_code_and_name():
    assert annotation(finding()) == (
        "::error file=prompts/support.yaml,line=3,col=14,title=PFX001 timestamp-before-stable"
        "::{{ now }} ends the shared prefix at token 6"
    )


def test_severity_picks_the_command():
    assert annotation(finding(severity="warning")).startswith("::warning file=")
    assert annotation(finding(severity="info")).startswith("::notice file=")


def test_properties_and_message_are_escaped():
    line = annotation(finding(path="a,b:c.md", message="50% of it\nis lost"))
    assert line == (
        "::error file=a%2Cb%3Ac.md,line=3,col=14,title=PFX001 timestamp-before-stable::50%25 of it%0Ais lost"
    )


def test_findings_are_sorted_by_file_line_and_column():
    out = to_github([finding(path="b.md", line=1), finding(line=9), finding(line=2, column=5)])
    assert [line.split(",title")[0] for line in out.splitlines()] == [
        "::error file=b.md,line=1,col=14",
        "::error file=prompts/support.yaml,line=2,col=5",
        "::error file=prompts/support.yaml,line=9,col=14",
    ]


def test_absolute_paths_become_workspace_relative(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_WORKSPACE", str(tmp_path))
    line = annotation(finding(path=str(tmp_path / "prompts" / "a.md")))
    assert line.startswith("::error file=prompts/a.md,line=3,")


# --- the runner's side: ActionCommand.cs unescapes %0D %0A %3A %2C and then %25 ---------------

UNESCAPE = (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%"))


def runner_unescape(text: str, property_value: bool) -> str:
    for escaped, char in UNESCAPE if property_value else (UNESCAPE[0], UNESCAPE[1], UNESCAPE[4]):
        text = text.replace(escaped, char)
    return text


TRICKY = st.lists(st.sampled_from(list("%:,\r\n=aZ0 ") + ["%0A", "%25", "%3A", "é"]), max_size=20).map("".join)


@given(TRICKY)
def test_property_values_survive_the_runner_and_never_split_the_command(value):
    escaped = escape_property(value)
    assert not set(escaped) & set(":,\r\n")
    assert runner_unescape(escaped, property_value=True) == value


@given(TRICKY)
def test_messages_survive_the_runner_on_one_line(value):
    escaped = escape_data(value)
    assert "\n" not in escaped and "\r" not in escaped
    assert runner_unescape(escaped, property_value=False) == value
