"""A LangChain template's fields filled by the mapping its chain runs with (`python_mappings`,
issue 19 item 5): in the prompt's module or in a module importing from it; a mapping counts when
it names at least two of the fields, and every fitting mapping that names a field must say."""

from __future__ import annotations

import json

from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.python_callers import repository_calls
from prefixlint.load.python_index import repository_modules

RULES = "\n".join(f"- Rule {i}: plan the work in small steps and write each step down before you act." for i in range(12))
CHAIN = f'''from datetime import datetime

from langchain_core.prompts import ChatPromptTemplate
from langchain_openai import ChatOpenAI

prompt = ChatPromptTemplate.from_messages([
    ("system", """You are a helpful assistant. Today is {{today}}. You help {{user_name}}.
{RULES}
"""),
    ("human", "{{question}}"),
])
chain = prompt | ChatOpenAI()
'''
RUN = '''

def answer(question):
    return chain.invoke(MAPPING)
'''
CLOCK = '{"today": datetime.now().strftime("%Y-%m-%d"), "user_name": "Acme staff", "question": question}'


def findings(tmp_path, chain: str, other: str | None = None) -> dict[str, dict]:
    for cached in (repository_calls, repository_modules):
        cached.cache_clear()
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'bot'\n")
    (tmp_path / "chain.py").write_text(chain)
    if other is not None:
        (tmp_path / "app.py").write_text(other)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(tmp_path / "chain.py")])
    assert result.exit_code in (0, 1), result.output
    return {f["variable"]: f for f in json.loads(result.output)["files"][0]["findings"]}


def test_the_mapping_a_chain_runs_with_fills_its_fields(tmp_path):
    found = findings(tmp_path, CHAIN + RUN.replace("MAPPING", CLOCK))
    # `today`: the clock on line 27, a day by its strftime; `user_name`: the literal, stable (no finding)
    assert set(found) == {"today"}
    today = found["today"]
    assert (today["code"], today["line"], today["column"], today["frequency"]) == ("PFX001", 7, 57, "per_day")
    assert today["evidence"] == "filled by datetime.now() (chain.py:27, a mapping of its fields)"


def test_without_the_mapping_the_names_decide(tmp_path):
    found = findings(tmp_path, CHAIN)
    assert found["today"]["evidence"] == "its name (today)"
    assert found["user_name"]["evidence"] == "its name (user_name)"


def test_a_mapping_bound_to_a_name_in_a_module_importing_the_chain(tmp_path):
    other = ("from datetime import datetime\n\nfrom chain import chain\n\n\ndef answer(question):\n"
             f"    inputs = {CLOCK}\n    return chain.invoke(inputs)\n")
    today = findings(tmp_path, CHAIN, other)["today"]
    assert today["evidence"] == "filled by datetime.now() (app.py:7, a mapping of its fields)"


def test_a_mapping_naming_one_field_of_many_is_not_this_template_s(tmp_path):
    found = findings(tmp_path, CHAIN + RUN.replace("MAPPING", '{"today": "2025-01-01", "topic": question}'))
    assert found["today"]["evidence"] == "its name (today)"


def test_every_fitting_mapping_must_say(tmp_path):
    second = RUN.replace("answer", "again").replace("MAPPING", '{"today": question, "user_name": "x", "question": question}')
    found = findings(tmp_path, CHAIN + RUN.replace("MAPPING", CLOCK) + second)
    assert found["today"]["evidence"] == "its name (today)"  # the second passes a parameter: not known
    assert "user_name" not in found  # both pass a literal: stable


def test_of_two_fitting_mappings_the_clock_wins(tmp_path):
    second = RUN.replace("answer", "again").replace("MAPPING", '{"today": "2025-01-01", "user_name": "x", "question": q}')
    found = findings(tmp_path, CHAIN + RUN.replace("MAPPING", CLOCK) + second)
    assert found["today"]["evidence"] == "filled by datetime.now() (chain.py:27, a mapping of its fields)"


PARTIAL = f'''from datetime import datetime

from langchain_core.prompts import ChatPromptTemplate

assistant_prompt = ChatPromptTemplate.from_messages([
    ("system", """You help travellers rebook flights.
{RULES}
Current time: {{time}}."""),
    ("placeholder", "{{messages}}"),
]).partial(time=TIME)
'''


def test_a_partial_value_at_module_level_is_read_once_per_process(tmp_path):
    # `.partial(time=datetime.now())` evaluates the clock once, at import: the same on every request
    assert findings(tmp_path, PARTIAL.replace("TIME", "datetime.now()")) == {}


def test_a_partial_function_is_called_on_every_format(tmp_path):
    time = findings(tmp_path, PARTIAL.replace("TIME", "datetime.now"))["time"]
    # ahead of the conversation (`{messages}`): the clock LangChain calls on every format
    assert (time["code"], time["line"], time["frequency"]) == ("PFX001", 19, "per_request")
    assert time["evidence"] == "datetime.now, called by .partial() on every format (chain.py:21)"


def test_a_partial_of_another_prompt_says_nothing_of_this_one(tmp_path):
    other = PARTIAL.replace(".partial(time=TIME)", "").replace(
        "assistant_prompt = ", "assistant_prompt = ChatPromptTemplate.from_messages([]).partial(time=datetime.now())\nsecond = ")
    assert findings(tmp_path, other)["time"]["evidence"] == "its name (time)"
