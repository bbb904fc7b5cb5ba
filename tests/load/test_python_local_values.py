"""A Python prompt's field read through the local names of its function (issue 19 item 5): a
clock value reached through a chain of local assignments (`day = now.strftime(...)` after
`now = datetime.now()`) is that clock value, with the call as its evidence; a name the function
computes in one branch and sets to a literal in another (`chunk_text = "\\n".join(...)` or
`"No chunks."`) is a field, not the words of its literal branch."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli

RULES = "\n".join(f"- Rule {i}: plan the work in small steps and write each step down before you act." for i in range(8))

CHAIN = f'''from datetime import datetime


def build_prompt(message):
    now = datetime.now()
    day = now.strftime("%Y-%m-%d")
    return f"""You are the assistant.
Date: {{day}}
{RULES}

{{message}}"""
'''

BRANCHES = f'''def build_prompt(question, chunks):
    if chunks:
        chunk_text = "\\n".join(c["text"] for c in chunks)
    else:
        chunk_text = "No chunks found."
    if question:
        label = "Question"
    else:
        label = "Request"
    return f"""Context:
{{chunk_text}}

{RULES}

{{label}}: {{question}}"""
'''


def findings(path) -> list[dict]:
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)["files"][0]["findings"]


def test_a_clock_value_through_local_names_is_filled_by_the_clock_call(tmp_path):
    (tmp_path / "prompt.py").write_text(CHAIN)
    (day,) = [f for f in findings(tmp_path / "prompt.py") if f["variable"] == "day"]
    # `{day}` on line 8, column 7; the clock call on line 5; %Y-%m-%d changes once a day
    assert (day["code"], day["line"], day["column"], day["frequency"]) == ("PFX001", 8, 7, "per_day")
    assert day["evidence"] == "filled by datetime.now() (prompt.py:5)"
    assert day["severity"] == "warning"  # the program's evidence, not the name alone (info)


@pytest.mark.parametrize("derived", ["now.year", 'f"GMT{now.utcoffset().total_seconds() / 3600:+.0f}"', "now.tzname()"])
def test_the_year_or_the_zone_of_a_local_clock_value_is_a_deployment_constant(tmp_path, derived):
    (tmp_path / "prompt.py").write_text(CHAIN.replace('now.strftime("%Y-%m-%d")', derived))
    assert [f for f in findings(tmp_path / "prompt.py") if f["variable"] == "day"] == []
    # the time of day of the same clock value changes every request
    (tmp_path / "prompt.py").write_text(CHAIN.replace('now.strftime("%Y-%m-%d")', 'now.strftime("%H:%M")'))
    (day,) = [f for f in findings(tmp_path / "prompt.py") if f["variable"] == "day"]
    assert (day["code"], day["frequency"]) == ("PFX001", "per_request")


@pytest.mark.parametrize(("call", "frequency"), [
    ('arrow.now().format("YYYY-MM-DD")', "per_day"), ('pendulum.now().format("dddd D MMMM")', "per_day"),
    ('arrow.now().format("YYYY-MM-DD HH:mm")', "per_request")])
def test_arrow_and_pendulum_change_as_their_format_tokens_say(tmp_path, call, frequency):
    """Moment-style tokens (arrow, pendulum): a date with no hour, minute or second is per day."""
    library = call.split(".")[0]
    (tmp_path / "prompt.py").write_text(CHAIN.replace("from datetime import datetime", f"import {library}").replace(
        "    now = datetime.now()\n", "").replace('now.strftime("%Y-%m-%d")', call))
    (day,) = [f for f in findings(tmp_path / "prompt.py") if f["variable"] == "day"]
    assert (day["code"], day["line"], day["frequency"]) == ("PFX001", 7, frequency)
    assert day["evidence"] == f"filled by {library}.now() (prompt.py:5)"


def test_a_name_the_function_computes_is_a_field_not_its_literal_branch(tmp_path):
    (tmp_path / "prompt.py").write_text(BRANCHES)
    found = findings(tmp_path / "prompt.py")
    # `{chunk_text}` (line 11, column 1) ahead of the rules: the retrieved chunks of each request
    assert [(f["code"], f["variable"], f["line"], f["column"]) for f in found] == [("PFX005", "chunk_text", 11, 1)]


def test_a_name_set_to_literals_only_stays_text(tmp_path):
    text = BRANCHES.replace('"\\n".join(c["text"] for c in chunks)', '"Chunks follow."')
    (tmp_path / "prompt.py").write_text(text)
    assert findings(tmp_path / "prompt.py") == []


SCRIPT = f'''from datetime import date

from openai import OpenAI

TODAY = date.today()
SYSTEM = f"""Today: {{TODAY}}
{RULES}"""

client = OpenAI()
{{body}}
'''


def test_a_script_that_sends_its_request_at_top_level_runs_its_module_values_per_request(tmp_path):
    body = 'reply = client.chat.completions.create(model="m", messages=[{"role": "system", "content": SYSTEM}])'
    (tmp_path / "main.py").write_text(SCRIPT.replace("{body}", body))
    (today,) = [f for f in findings(tmp_path / "main.py") if f["variable"] == "today"]
    # `{TODAY}` on line 6, column 21 (after `SYSTEM = f"""Today: `): each run of the script is one
    # request, and a new day
    assert (today["code"], today["line"], today["column"], today["frequency"]) == ("PFX001", 6, 21, "per_day")
    assert today["severity"] == "warning" and today["evidence"] == "filled by date.today() (main.py:5)"


def test_a_module_that_sends_in_a_loop_keeps_its_module_values_per_process(tmp_path):
    body = ('while True:\n    question = input()\n    client.chat.completions.create(model="m", messages=['
            '{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}])')
    (tmp_path / "main.py").write_text(SCRIPT.replace("{body}", body))
    assert [f["severity"] for f in findings(tmp_path / "main.py") if f["variable"] == "today"] in ([], ["info"])


def test_an_object_built_with_messages_at_top_level_is_no_request(tmp_path):
    body = 'chat = GroupChat(agents=[], messages=[], system_message=SYSTEM)'
    (tmp_path / "main.py").write_text(SCRIPT.replace("{body}", body))
    assert [f["severity"] for f in findings(tmp_path / "main.py") if f["variable"] == "today"] in ([], ["info"])
