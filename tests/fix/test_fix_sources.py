"""Fixes of prompts in Python and TypeScript source (issue 15): a volatile line of a
triple-quoted or template-literal system prompt moves to the end of the same literal, as a
safe reorder of whole lines; the literal stays valid (its braces, `${}` and quotes as written).
The expected texts are written by hand."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.fix.write import fixed_text
from tests.fix.helpers import check

SOURCES = Path(__file__).resolve().parents[1] / "fixtures" / "sources"


def fix(name: str, unsafe: bool = False):
    (result,) = [r for r in check(SOURCES / name) if r.path == str(SOURCES / name)]
    return result, fixed_text(result, unsafe=unsafe)


def test_with_only_the_conversation_after_it_the_value_gets_a_system_message_of_its_own():
    """No user message: a short system message after the conversation item (unsafe: a new
    literal), the date's clause cut from the system prompt."""
    result, (before, after, fixed) = fix("agent_prompts.py", unsafe=True)
    (finding,) = result.findings
    assert finding.extra["fix"]["applicability"] == "unsafe"
    assert finding.extra["fix"]["message"] == "Move the value as its own sentence to a new system message"
    assert fixed == 1
    assert after == before.replace(
        "a research assistant, and today's date is {date}. \\\n", "a research assistant. \\\n").replace(
        '("placeholder", "{messages}")]', "(\"placeholder\", \"{messages}\"), (\"system\", \"Today's date is {date}.\")]")
    compile(after, "agent_prompts.py", "exec")
    assert fix("agent_prompts.py", unsafe=False)[1] is None


def test_no_fix_where_the_list_cannot_take_another_message():
    """react_agent.py: `[{"role": "system", ...}, *state.messages]` whose values a `.format`
    call fills elsewhere: no message can be added that would receive them."""
    result, planned = fix("react_agent.py", unsafe=True)
    (finding,) = result.findings
    assert finding.extra["fix"] is None
    assert finding.extra["fix_unavailable"] == (
        "no user message to move it into, and the conversation is not a LangChain message list item")
    assert planned is None


def test_a_typescript_template_literal_keeps_its_substitutions_and_quotes():
    """The persona sentence stays first: `Today is ${today}.` is cut from its line (unsafe), the
    iteration line moves whole (safe)."""
    result, (before, after, fixed) = fix("research_agent.ts", unsafe=True)
    assert {f.variable: f.extra["fix"]["applicability"] for f in result.findings} == {
        "today": "unsafe", "iteration": "safe"}
    assert fixed == 2
    head = ("  return `You are a meticulous research agent. Today is ${today}.\n"
            "This is iteration ${iteration} of ${maxIterations}.\n\n"
            "Follow the examples")
    assert head in before
    expected = before.replace(head, "  return `You are a meticulous research agent.\n\nFollow the examples").replace(
        "Always cite your sources with their titles and years.`;",
        "Always cite your sources with their titles and years.\n"
        "Today is ${today}.\n"
        "This is iteration ${iteration} of ${maxIterations}.`;")
    assert after == expected
    _, (_, safe_only, fixed) = fix("research_agent.ts")
    assert fixed == 1 and safe_only == before.replace(
        "Today is ${today}.\nThis is iteration ${iteration} of ${maxIterations}.\n\n", "Today is ${today}.\n\n").replace(
        "with their titles and years.`;", "with their titles and years.\nThis is iteration ${iteration} of ${maxIterations}.`;")
    assert '<example id="1">' in after  # quotes inside the literal are not its end


def test_the_message_says_where_a_source_prompt_moves():
    result, _ = fix("research_agent.ts")
    message = result.findings[0].message
    assert "Moved after the stable text, with the file's other fix: " in message
    # the evidence after the promise is kept when the promise is restated
    assert message.endswith(' Evidence: filled by new Date().toISOString().split("T")[0] (research_agent.ts:5).')


def test_a_format_template_and_an_f_string_keep_their_braces_and_escapes():
    result, (before, after, fixed) = fix("planner_prompts.py")
    assert fixed == 2
    assert all(f.extra["fix"]["applicability"] == "safe" for f in result.findings)
    expected = before.replace("team.\nCurrent time: {current_time}\n", "team.\n").replace(
        '"deadline": "..."}}]}}"""', '"deadline": "..."}}]}}\nCurrent time: {current_time}"""').replace(
        "service.\nReview id: {datetime.now():%Y%m%d%H%M%S}\n\n", "service.\n\n").replace(
        '\\tfile\\tline\\tseverity"""', '\\tfile\\tline\\tseverity\nReview id: {datetime.now():%Y%m%d%H%M%S}"""')
    assert after == expected
    compile(after, "planner_prompts.py", "exec")


def test_two_prompts_over_one_literal_are_fixed_once(tmp_path):
    """Both calls name a local `system`: the loader reads the review literal for both prompts
    (two templates, one literal); their identical fixes are written once, not twice."""
    text = (SOURCES / "planner_prompts.py").read_text(encoding="utf-8").replace("planner_system", "system")
    path = tmp_path / "planner_prompts.py"
    path.write_text(text, encoding="utf-8")
    results = [r for r in check(path) if r.path == str(path)]
    (result,) = results
    before, after, _ = fixed_text(result)
    assert after.count("Review id: {datetime.now():%Y%m%d%H%M%S}") == 1
    assert after.index("Review id:") > after.index("Tab-separated summary")
    compile(after, "planner_prompts.py", "exec")


def test_a_later_values_promise_says_the_files_reuse_now_with_every_value_different(tmp_path):
    """Two values: the later one alone leaves most of the prompt reusable, but with the earlier
    one also differing the file reuses far less; its promise with the other fix states that
    figure, the file's own "reusable now", so the promise never reads as a loss."""
    rules = "".join(f"Rule {i}: answer from the notes only, and say plainly when they do not hold the answer.\n"
                    for i in range(8))
    module = tmp_path / "builder.py"
    module.write_text(f'def build_prompt(memory, query):\n    return f"""You are the assistant.\n\nMemory:\n{{memory}}\n\n'
                      f'{rules}\nQuestion:\n{{query}}\n\n'
                      'Answer in two short paragraphs, citing the note you used for every claim. Keep to the'
                      ' notes: when they do not hold the answer, say so and name the note that comes closest, and'
                      ' never guess a date, a figure or a name that the notes do not give. Write plainly, with no'
                      ' headings and no lists, in the language of the question. When two notes disagree, give'
                      ' the newer one first.\n"""\n')
    result = CliRunner().invoke(cli, ["check", "--isolated", str(module)])
    lines = result.output.splitlines()
    query = next(line for line in lines if "{query}" in line)
    whole = next(line for line in lines if line.startswith(f"{module}: "))
    now = re.search(r"reusable now ([\d.]+%)", whole).group(1)
    assert "now with every value different)" in query and f"from {now} now with every value different" in query
    memory = next(line for line in lines if "{memory}" in line)
    assert "every value different" not in memory  # its own figure is the file's: nothing to add
