"""A prompt function's parameters filled by its callers in other modules (`python_callers`,
issue 19 item 5): `from prompts import system_prompt` then `system_prompt(date.today())`, or
`import prompts` then `prompts.system_prompt(...)`; a call that passes nothing takes the default;
a method, a `_private` function and a call through `*args` / `**kwargs` say nothing."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.python_callers import repository_calls
from prefixlint.load.python_index import repository_modules

RULES = "\n".join(f"- Rule {i}: plan the work in small steps and write each step down before you act." for i in range(12))
PROMPTS = f'''def system_prompt(today, tone="plain"):
    return f"""Today is {{today}}. Speak in a {{tone}} tone.
{RULES}
"""
'''
AGENT = '''from datetime import date, datetime

from openai import OpenAI

{imports}

client = OpenAI()


def answer(question):
    system = {call}
    messages = [{{"role": "system", "content": system}}, {{"role": "user", "content": question}}]
    return client.chat.completions.create(model="gpt-4o", messages=messages)
'''


def findings(tmp_path, imports: str, call: str, prompts: str = PROMPTS, other: str | None = None) -> dict[str, dict]:
    for cached in (repository_calls, repository_modules):
        cached.cache_clear()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'bot'\n")
    (tmp_path / "prompts.py").write_text(prompts)
    (tmp_path / "agent.py").write_text(AGENT.format(imports=imports, call=call))
    if other is not None:
        (tmp_path / "batch.py").write_text(other)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(tmp_path / "prompts.py")])
    assert result.exit_code in (0, 1), result.output
    return {f["variable"]: f for f in json.loads(result.output)["files"][0]["findings"]}


@pytest.mark.parametrize(("imports", "call"), [
    ("from prompts import system_prompt", "system_prompt(date.today())"),
    ("from prompts import system_prompt as build", "build(today=date.today())"),
    ("import prompts", "prompts.system_prompt(date.today())"),
])
def test_a_caller_in_another_module_fills_the_parameter(tmp_path, imports, call):
    found = findings(tmp_path, imports, call)
    # `today`: the date the caller in agent.py passes on line 11; `tone`: the default "plain", stable
    assert set(found) == {"today"}
    today = found["today"]
    assert (today["code"], today["line"], today["column"], today["frequency"]) == ("PFX001", 2, 25, "per_day")
    assert today["evidence"] == "filled by date.today() (agent.py:11)"


def test_a_default_fills_what_a_call_leaves_out_and_its_evidence_says_so(tmp_path):
    prompts = PROMPTS.replace('tone="plain"', "tone=None, mood=\"calm\"").replace("{tone} tone", "{tone} tone, {mood}")
    found = findings(tmp_path, "from prompts import system_prompt", 'system_prompt(date.today(), tone=os_tone)')
    assert set(found) == {"today"}
    # the default "calm" is stable; `tone` is passed a name no module binds: nothing known, no finding
    found = findings(tmp_path, "from prompts import system_prompt", 'system_prompt("2025-01-01", "dry")', prompts)
    assert found == {}


def test_a_clock_default_of_a_module_function_is_evaluated_once_at_import(tmp_path):
    prompts = "from datetime import datetime\n\n\n" + PROMPTS.replace("today, ", "today=datetime.now(), ")
    found = findings(tmp_path, "from prompts import system_prompt", "system_prompt()", prompts)
    assert found == {}  # the default is read once, where the function is defined: the same every request


def test_one_caller_passing_a_clock_wins_over_another_passing_a_constant(tmp_path):
    other = "from prompts import system_prompt\n\nTEXT = system_prompt('2025-01-01')\n"
    found = findings(tmp_path, "from prompts import system_prompt", "system_prompt(datetime.now())", other=other)
    assert found["today"]["evidence"] == "filled by datetime.now() (agent.py:11)"
    assert found["today"]["frequency"] == "per_request"


@pytest.mark.parametrize(("imports", "call"), [
    ("from prompts import system_prompt", "system_prompt(*ARGS)"),
    ("from prompts import system_prompt", "system_prompt(**KWARGS)"),
    ("from elsewhere import system_prompt", "system_prompt(date.today())"),  # another module's function
])
def test_a_call_that_does_not_say_leaves_the_parameter_to_its_name(tmp_path, imports, call):
    found = findings(tmp_path, imports, call)
    # `today`: named like a date, a parameter filled at each call (no caller known to pass it)
    assert found["today"]["evidence"] == "a parameter of system_prompt(), filled at each call (prompts.py:1)"


@pytest.mark.parametrize("prompts", [
    PROMPTS.replace("def system_prompt", "def _system_prompt"),
    "class Prompts:\n" + "\n".join("    " + line if line else "" for line in PROMPTS.replace("(today", "(self, today")
                                   .splitlines()) + "\n",
])
def test_a_private_function_and_a_method_are_not_followed_into_other_modules(tmp_path, prompts):
    found = findings(tmp_path, "from prompts import system_prompt", "system_prompt(date.today())", prompts)
    assert found["today"]["evidence"].startswith("a parameter of _system_prompt()") or \
        found["today"]["evidence"].startswith("a parameter of system_prompt()")
    assert "agent.py" not in found["today"]["evidence"]
