"""CrewAI tasks and agents written in Python: their `{fields}` are the crew's kickoff inputs, as
in the YAML form (issue 19 item 5: values by what fills them)."""

from __future__ import annotations

import json

import pytest

from prefixlint.load.python_modules import _calls
from prefixlint.load.registry import load_templates

STEPS = "".join(f"                {n}. Check the claim against a second source and keep its link.\n" for n in range(1, 9))
TASK = ('import textwrap\n\nfrom crewai import Task\n\n'
        'research = Task(\n'
        '    description=textwrap.dedent("""\n'
        '                Research the subject: {topic}\n\n'
        f'{STEPS}'
        '                """),\n'
        '    expected_output="A summary with sources",\n)\n')


def _project(tmp_path, inputs: str | None):
    _calls.cache_clear()
    (tmp_path / "tasks").mkdir()
    (tmp_path / "tasks" / "research.py").write_text(TASK)
    if inputs is not None:
        (tmp_path / "main.py").write_text("from crew import crew\n\n\ndef run(request):\n"
                                          f"    crew.kickoff(inputs={inputs})\n")
    return tmp_path / "tasks" / "research.py"


@pytest.mark.parametrize("inputs", [None, '{"topic": request.topic}'])
def test_a_task_field_is_filled_by_the_crews_kickoff_each_run(tmp_path, inputs):
    path = _project(tmp_path, inputs)
    (template,) = load_templates(str(path))
    topic = template.variables["topic"]
    assert topic.kind == "per_request"
    assert topic.evidence == "filled by CrewAI from kickoff(inputs=...) on each run"
    assert topic.line == 7  # the line of `{topic}` in the module
    message = template.messages[0]
    assert message.role == "user"
    at = message.content.index("{topic}")
    assert message.offsets[at] == TASK.index("{topic}")


def test_a_task_field_every_kickoff_passes_as_a_literal_is_a_program_constant(tmp_path):
    path = _project(tmp_path, '{"topic": "open-source databases"}')
    (template,) = load_templates(str(path))
    topic = template.variables["topic"]
    assert (topic.kind, topic.samples) == ("stable", ("open-source databases",))
    assert topic.evidence == "filled by the literal 'open-source databases' passed to kickoff (main.py:5)"


def test_the_field_ahead_of_the_tasks_steps_is_reported_with_its_evidence(tmp_path):
    from click.testing import CliRunner

    from prefixlint.cli import cli

    path = _project(tmp_path, None)
    result = CliRunner().invoke(cli, ["check", "--no-cache", "--output-format", "json", str(path)])
    (finding,) = json.loads(result.output)["files"][0]["findings"]
    assert (finding["code"], finding["variable"], finding["line"]) == ("PFX005", "topic", 7)
    assert finding["column"] == TASK.splitlines()[6].index("{topic}") + 1
    assert finding["evidence"] == "filled by CrewAI from kickoff(inputs=...) on each run (research.py:7)"
