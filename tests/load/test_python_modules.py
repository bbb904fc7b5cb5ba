"""Names followed across modules (issue 19 item 4): a prompt constant of prompts.py filled by a
`.format()` / `.render()` call in the module that imports it, with that file and line as the
evidence; a same-named call in a module that does not import it is not evidence."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.python_modules import _calls

RULES = " ".join(f"Rule {i}: answer from the handbook and cite the section you used." for i in range(20))
PROMPTS = f'SYSTEM_PROMPT = """You are the shop helper. Today is {{date}}. {RULES}"""\n'


def findings(path) -> list[dict]:
    _calls.cache_clear()
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)["files"][0]["findings"]


@pytest.mark.parametrize("imports,receiver", [
    ("from prompts import SYSTEM_PROMPT", "SYSTEM_PROMPT"),
    ("import prompts", "prompts.SYSTEM_PROMPT"),
    ("from app import prompts", "prompts.SYSTEM_PROMPT"),
])
def test_a_date_filled_in_the_importing_module_is_found_with_its_file_and_line(tmp_path, imports, receiver):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "prompts.py").write_text(PROMPTS)
    agent = ("from datetime import datetime\n" + imports + "\n\n\ndef reply(client, history):\n"
             f'    system = {receiver}.format(date=datetime.now().strftime("%Y-%m-%d"))\n'
             '    return client.messages.create(model="m", system=system, messages=history)\n')
    (tmp_path / "app" / "agent.py").write_text(agent)
    (finding,) = findings(tmp_path / "app" / "prompts.py")
    assert (finding["code"], finding["variable"], finding["line"]) == ("PFX001", "date", 1)
    assert finding["evidence"] == "filled by datetime.now() (app/agent.py:6)"


def test_a_call_in_a_module_that_does_not_import_the_name_is_no_evidence(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (tmp_path / "prompts.py").write_text(PROMPTS)
    (tmp_path / "other.py").write_text(  # its own SYSTEM_PROMPT, filled from settings
        'import settings\nSYSTEM_PROMPT = "Hi {date}"\n\n\ndef f():\n'
        "    return SYSTEM_PROMPT.format(date=settings.launch_date)\n")
    (finding,) = findings(tmp_path / "prompts.py")
    assert finding["evidence"] == "its name (date)"  # the name alone, not other.py's settings


def test_a_value_from_settings_in_the_importing_module_is_stable(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'shop'\n")
    (tmp_path / "prompts.py").write_text(PROMPTS)
    (tmp_path / "agent.py").write_text(
        "from config import settings\nfrom prompts import SYSTEM_PROMPT\n\n\ndef system():\n"
        "    return SYSTEM_PROMPT.format(date=settings.launch_date)\n")
    assert findings(tmp_path / "prompts.py") == []


AGENTS = ('researcher:\n  role: "{topic} researcher"\n  goal: "Find the latest news about {topic}"\n'
          '  backstory: "You have followed this field for years and know its sources well."\n')


@pytest.mark.parametrize("inputs,kind", [
    ('{"topic": "open-source databases"}', "stable"),
    ("{\"topic\": request.topic}", "per_request"),
    ("make_inputs()", "per_request"),
])
def test_a_crewai_input_every_kickoff_passes_as_a_literal_is_a_program_constant(tmp_path, inputs, kind):
    from prefixlint.load.registry import load_templates

    _calls.cache_clear()
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "agents.yaml").write_text(AGENTS)
    (tmp_path / "main.py").write_text(f"from crew import Crew\n\n\ndef run(request=None):\n"
                                      f"    Crew().kickoff(inputs={inputs})\n")
    (template,) = load_templates(str(tmp_path / "config" / "agents.yaml"))
    topic = template.variables["topic"]
    assert topic.kind == kind
    if kind == "stable":
        assert topic.evidence == "filled by the literal 'open-source databases' passed to kickoff (main.py:5)"
