"""A prompt file named by its stem through a helper that builds the file's name and forwards its
keywords to the fill (`load_prompt("CHAT", locale=getenv(...), current_time=datetime.now())`)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from prefixlint.cli import cli

RULES = "".join(f"{n}. Answer from the documents only and say so when they do not hold the answer.\n" for n in range(12))
HELPER = '''from pathlib import Path

from langchain_core.prompts import PromptTemplate


def load_prompt(name, **kwargs):
    return get_prompt(name).format(**kwargs)


def get_prompt(name):
    text = (Path(__file__).resolve().parent / f"{name.upper()}.md").read_text(encoding="utf-8")
    return PromptTemplate.from_template(text)
'''
NODE = '''from datetime import datetime
from os import getenv

from prompt.prompt import load_prompt


def chat_node(state, llm):
    system = load_prompt(
        "chat",
        locale=getenv("LOCALE", "en"),
        current_time=datetime.now().isoformat(),
    )
    return llm.invoke([("system", system), *state["messages"]])
'''


def _findings(tmp_path, helper: str = HELPER) -> dict[str, dict]:
    (tmp_path / ".git").mkdir()
    (tmp_path / "prompt").mkdir(exist_ok=True)
    (tmp_path / "nodes").mkdir(exist_ok=True)
    (tmp_path / "prompt" / "prompt.py").write_text(helper)
    (tmp_path / "prompt" / "CHAT.md").write_text("You are the library's assistant.\nLocale: {locale}\n"
                                                 "Current time: {current_time}\n" + RULES)
    (tmp_path / "nodes" / "chat.py").write_text(NODE)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(tmp_path / "prompt" / "CHAT.md")])
    assert result.exit_code in (0, 1), result.output
    return {f["variable"]: f for f in json.loads(result.output)["files"][0]["findings"]}


def test_the_helper_s_call_with_the_file_s_stem_fills_it(tmp_path):
    found = _findings(tmp_path)
    # the locale is read from the environment: a deployment constant, no finding
    assert set(found) == {"current_time"}
    time = found["current_time"]
    assert (time["code"], time["severity"], time["line"], time["column"]) == ("PFX001", "error", 3, 15)
    assert time["evidence"] == "filled by datetime.now() (nodes/chat.py:11)"


def test_a_helper_that_does_not_forward_its_keywords_fills_nothing(tmp_path):
    found = _findings(tmp_path, HELPER.replace(".format(**kwargs)", ".format(locale=\"en\")"))
    # no fill site: each value is judged by its name alone
    assert found["current_time"]["evidence"] == "its name (current_time)"
    assert found["locale"]["evidence"] == "its name (locale)"


def test_a_sibling_no_call_of_the_helper_names_is_information(tmp_path):
    (tmp_path / "prompt").mkdir(parents=True)
    (tmp_path / "prompt" / "AGENT.md").write_text("Current time: {current_time}\n" + RULES)
    found = _findings(tmp_path)
    # CHAT.md is still measured as filled; AGENT.md, which no call of load_prompt names, is info
    assert found["current_time"]["severity"] == "error"
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(tmp_path / "prompt" / "AGENT.md")])
    (agent,) = json.loads(result.output)["files"][0]["findings"]
    assert (agent["code"], agent["severity"], agent["line"]) == ("PFX001", "info", 1)
    assert agent["unnamed"] == {"sibling": "CHAT.md", "named_in": "nodes/chat.py"}


def test_a_helper_called_with_a_computed_name_makes_no_claim(tmp_path):
    (tmp_path / "prompt").mkdir(parents=True)
    (tmp_path / "prompt" / "AGENT.md").write_text("Current time: {current_time}\n" + RULES)
    (tmp_path / "nodes").mkdir(exist_ok=True)
    (tmp_path / "nodes" / "agent.py").write_text("from prompt.prompt import load_prompt\n\n\n"
                                                 "def run(kind):\n    return load_prompt(kind, current_time=1)\n")
    _findings(tmp_path)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(tmp_path / "prompt" / "AGENT.md")])
    (agent,) = json.loads(result.output)["files"][0]["findings"]
    assert agent["severity"] == "error" and "unnamed" not in agent


def test_a_user_turn_named_by_its_stem_and_awaited_is_sent_as_the_user_s_message(tmp_path):
    from prefixlint.load.file_sends import file_sent

    helper = HELPER.replace("def load_prompt(", "async def load_prompt(")
    _findings(tmp_path, helper)
    (tmp_path / "prompt" / "CHAT_INPUT.md").write_text("{documents}\n# Now the user's query:\n{query}\n")
    (tmp_path / "nodes" / "ask.py").write_text(
        "from langchain_core.messages import HumanMessage, SystemMessage\n\nfrom prompt.prompt import load_prompt\n\n\n"
        "async def ask(llm, documents, query):\n"
        "    user = HumanMessage(\n        await load_prompt(\"CHAT_INPUT\", documents=documents, query=query)\n    )\n"
        "    return await llm.ainvoke([SystemMessage(\"You are terse.\"), user])\n")
    target = tmp_path / "prompt" / "CHAT_INPUT.md"
    assert file_sent(str(target), target.read_text()) == ("user", "nodes/ask.py:8")
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(target)])
    # its values are the request's own turn: no PFX007 for a stable prefix too short to cache
    assert json.loads(result.output)["files"][0]["findings"] == []
