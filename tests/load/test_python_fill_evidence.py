"""What fills a Python prompt's fields, by the program (issue 19 item 5), where the fill call
reaches the prompt through another name: a configuration field or a keyword argument bound to
the constant (`system_prompt: str = prompts.SYSTEM_PROMPT`, then `config.system_prompt.format(...)`
beside it), an f-string's doubled braces (`{{time}}`) that a later `.format()` fills, a literal
argument (stable) and a value read from the conversation's state (per conversation)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.python_index import repository_modules
from prefixlint.load.python_modules import _aliases, _calls

RULES = "\n".join(f"- Rule {i}: plan the work in small steps and write each step down before you act." for i in range(12))
PROMPT = f'''SYSTEM_PROMPT = """You are the planner.{{context}}

Project: {{project_name}}

{RULES}

Time: {{time}}"""
'''


def findings(path) -> list[dict]:
    for cached in (_calls, repository_modules, _aliases):
        cached.cache_clear()
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)["files"][0]["findings"]


def _repository(tmp_path, graph: str) -> None:
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'planner'\n")
    package = tmp_path / "planner"
    package.mkdir()
    (package / "prompts.py").write_text(PROMPT)
    (package / "configuration.py").write_text(
        "from dataclasses import dataclass\n\nfrom planner import prompts\n\n\n@dataclass\nclass Configuration:\n"
        "    planner_system_prompt: str = prompts.SYSTEM_PROMPT\n")
    (package / "graph.py").write_text(graph)


GRAPH = '''from datetime import datetime


def call_model(state, config):
    name = "unnamed"
    if state.project:
        name = state.project.name
    system = config.planner_system_prompt.format(context="", project_name=name, time=datetime.now().isoformat())
    return [{"role": "system", "content": system}, *state.messages]
'''


def test_a_field_bound_to_the_constant_leads_to_the_fill_call_beside_it(tmp_path):
    _repository(tmp_path, GRAPH)
    by_variable = {f["variable"]: f for f in findings(tmp_path / "planner" / "prompts.py")}
    # `context` is named like retrieved text, but the call passes the literal "": stable
    assert set(by_variable) == {"project_name", "time"}
    project, time = by_variable["project_name"], by_variable["time"]
    # the name says a deployment constant; the state the code reads it from says per conversation
    assert (project["code"], project["severity"], project["line"], project["column"]) == ("PFX003", "warning", 3, 10)
    assert project["evidence"] == "filled by state.project.name, the conversation's state (planner/graph.py:7)"
    assert project["frequency"] == "per_user"
    assert (time["code"], time["severity"], time["line"]) == ("PFX001", "error", 18)
    assert time["evidence"] == "filled by datetime.now() (planner/graph.py:8)"
    assert time["history_tokens"] > 0  # a system prompt: the conversation follows it


def test_a_value_named_like_request_content_keeps_its_name_when_read_from_the_state(tmp_path):
    graph = GRAPH.replace('context=""', "context=state.question")
    _repository(tmp_path, graph)
    by_variable = {f["variable"]: f for f in findings(tmp_path / "planner" / "prompts.py")}
    context = by_variable["context"]  # request content by its name: the state does not lower it
    assert (context["code"], context["frequency"], context["line"]) == ("PFX005", "per_request", 1)


def test_an_alias_in_another_package_is_not_followed(tmp_path):
    _repository(tmp_path, "")
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "graph.py").write_text(GRAPH.replace("def call_model", "from planner.configuration import Configuration\n\n\n"
                                                  "def call_model"))
    by_variable = {f["variable"]: f for f in findings(tmp_path / "planner" / "prompts.py")}
    # no fill call beside the alias: every value is judged by its name alone
    assert by_variable["time"]["evidence"] == "its name (time)"
    assert "project_name" not in by_variable


FSTRING = '''INTRO = open("intro.md").read()

SYSTEM_PROMPT = f"""{INTRO}
{RULES!r}
{{user_info}}
System Time: {{time}}"""
'''.replace("{RULES!r}", RULES)


def test_an_fstring_s_doubled_braces_are_the_fields_of_a_later_format(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'reviewer'\n")
    package = tmp_path / "reviewer"
    package.mkdir()
    (package / "prompts.py").write_text(FSTRING)
    (package / "graph.py").write_text(
        "from reviewer.prompts import SYSTEM_PROMPT\n\n\ndef build(make):\n"
        "    return make(system_prompt=SYSTEM_PROMPT)\n\n\nclass Call:\n    def __init__(self, system_prompt):\n"
        "        self.system_prompt = system_prompt\n\n    def __call__(self, state, path):\n"
        "        return self.system_prompt.format(user_info=state.user, time=path)\n")
    found = findings(package / "prompts.py")
    time = next(f for f in found if f["variable"] == "time")
    # `{{time}}` on line 17 (the rules take lines 4-15), written with its doubled braces
    assert (time["code"], time["line"], time["column"], time["placeholder"]) == ("PFX001", 17, 14, "{{time}}")
    # the call passes `path`, a parameter of __call__: filled at each call, its name says how often
    assert time["evidence"] == "a parameter of __call__(), filled at each call (reviewer/graph.py:12)"


def test_doubled_braces_without_a_fill_call_stay_text(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'reviewer'\n")
    (tmp_path / "prompts.py").write_text(FSTRING)
    assert [f for f in findings(tmp_path / "prompts.py") if f["variable"] == "time"] == []


def test_doubled_braces_the_module_rewrites_into_fields_are_fields(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'reviewer'\n")
    text = FSTRING + 'SYSTEM_PROMPT = SYSTEM_PROMPT.replace("{{time}}", "{time}")\n'
    (tmp_path / "prompts.py").write_text(text)
    (time,) = [f for f in findings(tmp_path / "prompts.py") if f["variable"] == "time"]
    assert (time["code"], time["line"], time["column"], time["severity"]) == ("PFX001", 17, 14, "warning")


def test_a_choice_between_configured_values_and_literals_is_a_deployment_constant(tmp_path):
    """`config.USER_NAME if config.USER_NAME else "the user"`, through a local name, and an
    imported setting `or` a literal: the same on every request, whichever branch is taken; a
    local name also assigned from the request is not."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "settings.py").write_text('GREETING = "Hello"\n')
    (tmp_path / "bot.py").write_text(
        "import config\nfrom openai import OpenAI\n\nfrom settings import GREETING\n\n"
        f'TEMPLATE = """{{greeting}}, {{user}}.\n{RULES}\n"""\n\n\n'
        "def answer(client: OpenAI, request):\n"
        '    user_name = config.USER_NAME if config.USER_NAME else "the user"\n'
        '    system = TEMPLATE.format(greeting=GREETING or "Hi", user=user_name)\n'
        '    return client.chat.completions.create(model="m", messages=[{"role": "system", "content": system},'
        ' {"role": "user", "content": request.text}])\n')
    assert findings(tmp_path / "bot.py") == []
    text = (tmp_path / "bot.py").read_text().replace(
        '    system = ', '    if request.user:\n        user_name = request.user.name\n    system = ')
    (tmp_path / "bot.py").write_text(text)
    (finding,) = findings(tmp_path / "bot.py")
    assert (finding["code"], finding["variable"], finding["line"]) == ("PFX003", "user", 6)
    text = text.replace('    if request.user:\n        user_name = request.user.name\n',
                        '    for turn in request.turns:\n        user_name += turn.name\n')  # `+=` binds it too
    (tmp_path / "bot.py").write_text(text)
    (finding,) = findings(tmp_path / "bot.py")
    assert (finding["code"], finding["variable"], finding["line"]) == ("PFX003", "user", 6)


ANALYSIS = f'''ANALYSIS_PROMPT = """You are the journal's reflective companion.
The writer is {{username}}.
{RULES}

Entry: {{entry}}"""
'''


def _journal(tmp_path, handler: str):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'journal'\n")
    package = tmp_path / "journal"
    package.mkdir()
    (package / "prompts.py").write_text(ANALYSIS)
    (package / "handlers.py").write_text("from journal.prompts import ANALYSIS_PROMPT\n\n\n" + handler)
    return {f["variable"]: f for f in findings(package / "prompts.py")}


def test_a_local_computed_from_the_handler_s_arguments_is_evidence_of_a_value_per_call(tmp_path):
    found = _journal(tmp_path, '''async def handle(update, text):
    user = update.effective_user
    profile = await load_profile(user.id)
    username = profile.get("username", "friend")
    prompt = ANALYSIS_PROMPT.format(username=username, entry=text)
    return model.generate_content([prompt])
''')
    username = found["username"]
    # its name says per user; the code says it is computed from `update` at each call: not the
    # name alone, so not one severity lower
    assert (username["code"], username["severity"], username["line"], username["column"]) == ("PFX003", "warning", 2, 15)
    assert username["evidence"] == "computed in handle() from its arguments, at each call (journal/handlers.py:5)"


def test_a_local_read_from_the_object_s_own_attributes_is_no_such_evidence(tmp_path):
    found = _journal(tmp_path, '''class Bot:
    def handle(self, text):
        username = self.owner.name
        prompt = ANALYSIS_PROMPT.format(username=username, entry=text)
        return self.model.generate_content([prompt])
''')
    # `self`'s attributes are often the object's settings: the name is the only evidence left
    assert found["username"]["evidence"] == "its name (username)"
    assert found["username"]["severity"] == "info"
