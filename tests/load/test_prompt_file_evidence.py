"""Prompt files judged by evidence (issue 19): the file's own path, the code that reads it, the
template that extends it, the format's own request. Fixtures written for these tests."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.registry import load_templates

VOLATILE = {"PFX001", "PFX002", "PFX003", "PFX004", "PFX005"}
RULES = "".join(f"Rule {i}: answer in full sentences, cite the source document and keep it short.\n"
                for i in range(12))


def check(path, *args, cwd=None, monkeypatch=None):
    if monkeypatch is not None and cwd is not None:
        monkeypatch.chdir(cwd)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", *args, str(path)])
    return result, json.loads(result.stdout) if result.stdout.strip().startswith("{") else None


def findings(report):
    return [(f["code"], f.get("variable"), f["line"]) for entry in report["files"] for f in entry.get("findings", [])
            if f["code"] in VOLATILE]


def test_yaml_prompts_evidence_is_the_files_own_folder_wherever_the_command_runs(tmp_path, monkeypatch):
    folder = tmp_path / "app" / "prompts"
    folder.mkdir(parents=True)
    (folder / "bot.yaml").write_text("id: bot\nsystem: |\n  You are the support bot of the shop.\n"
                                     + "".join(f"  {line}\n" for line in RULES.splitlines())
                                     + "userTemplate: |\n  User message: {{message}}\n")
    monkeypatch.chdir(folder)  # named as `bot.yaml`: its folder still says prompts/
    templates = load_templates("bot.yaml")
    assert [t.messages[0].content.split("\n")[0] for t in templates] == ["User message: {{message}}"]
    assert templates[0].format == "prompt-strings"


def test_a_yaml_file_of_constant_prompts_is_measured_and_clean(tmp_path):
    agents = tmp_path / "config" / "agents"
    agents.mkdir(parents=True)
    (agents / "researcher.yaml").write_text("name: researcher\nrole: |\n  Research specialist. Search, summarize.\n"
                                            "model:\n  provider: openai\n  temperature: 0.7\n")
    (template,) = load_templates(str(agents / "researcher.yaml"))
    assert template.messages[0].content == "Research specialist. Search, summarize.\n"  # a prompt key: 4 words
    result, report = check(agents / "researcher.yaml")
    assert result.exit_code == 0 and report["files"][0]["findings"] == []
    (tmp_path / "settings.yaml").write_text("greeting: hello there, welcome to the application and enjoy it\n")
    named, _ = check(tmp_path / "settings.yaml")  # nothing says its strings are prompts
    assert named.exit_code == 2 and "not a recognised template (promptfoo or" in named.output + named.stderr


def test_text_template_extensions_read_when_named_not_walked(tmp_path):
    (tmp_path / "views").mkdir()
    (tmp_path / "views" / "page.hbs").write_text("<h1>{{title}}</h1>\n<p>Posted {{date}}</p>\n" + RULES)
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "greet.tpl").write_text("Today is {{ today }}.\n" + RULES)
    _, report = check(tmp_path)
    assert findings(report) == []  # a web page is no prompt: a walk leaves these extensions out
    _, report = check(prompts / "greet.tpl")  # named: read as a template
    assert findings(report) == [("PFX001", "today", 1)]
    (template,) = load_templates(str(tmp_path / "views" / "page.hbs"))
    assert template.syntax == "jinja" and template.messages[0].content.startswith("<h1>{{title}}")


def test_a_named_documentation_page_with_template_syntax_only_in_code_is_skipped(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    page = docs / "design.md"
    page.write_text("# Design\n\nThe agent's file takes `{{ user_name }}` and a time:\n\n```yaml\nsystem: |\n"
                    "  Current time: {{ current_time }}\n  Be brief.\n```\n\n" + RULES)
    result, report = check(page)
    assert result.exit_code == 0 and report["files"] == []
    assert [s["path"] for s in report["skipped"]] == [str(page)] and "documentation" in report["skipped"][0]["reason"]
    # a fence that only holds a placeholder is a slot, and its value is measured
    slot = tmp_path / "review.md"
    slot.write_text("Review the change below.\n\n```\n{{ diff }}\n```\n\nToday is {{ today }}.\n" + RULES)
    _, report = check(slot)
    assert findings(report) == [("PFX001", "today", 7)]


def test_a_page_named_like_a_prompt_in_a_documentation_tree_is_documentation(tmp_path):
    """`docs/prompts.md` documents the prompts (its templates sit in code blocks); so does the same
    page outside a documentation tree: its text outweighs its name. Code that reads it makes it a
    prompt."""
    (tmp_path / ".git").mkdir()
    text = ("# Prompts\n\nThe user template:\n\n```\nToday is {{ today }}.\n" + RULES + "{question}\n```\n\n"
            "- `{question}`: the user's question\n")
    page = tmp_path / "docs" / "reference" / "prompts.md"
    page.parent.mkdir(parents=True)
    page.write_text(text)
    result, report = check(page)
    assert result.exit_code == 0 and report["files"] == [] and "documentation" in report["skipped"][0]["reason"]
    beside = tmp_path / "app" / "prompts.md"
    beside.parent.mkdir()
    beside.write_text(text)
    result, report = check(beside)
    assert result.exit_code == 0 and report["files"] == [] and "documentation" in report["skipped"][0]["reason"]
    (tmp_path / "app" / "main.py").write_text("from pathlib import Path\n\ndef prompt(question):\n"
                                              "    return Path('prompts.md').read_text().format(question=question)\n")
    from prefixlint.load import python_index, python_modules

    python_modules._named_files.cache_clear()
    python_index.repository_modules.cache_clear()
    _, report = check(beside)
    assert report["files"] and report["files"][0]["path"] == str(beside)


def test_a_base_template_is_measured_as_a_child_renders_it(tmp_path):
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "base.txt").write_text("You are a robot.\n\nThe current date is {{ date }}\n\n{% block body %}\n{% endblock %}\n")
    (folder / "chat.txt").write_text('{% extends "base.txt" %}\n{% block body %}\n' + RULES + "{% endblock %}\n")
    _, report = check(folder / "base.txt")
    assert findings(report) == [("PFX001", "date", 3)]  # at the base's own line, the child's rules after it
    (tmp_path / "alone.txt").write_text("The current date is {{ date }}\n\n{% block body %}\n{% endblock %}\n")
    _, report = check(tmp_path / "alone.txt")
    assert findings(report) == []  # nothing extends it: nothing follows the date


def test_a_prompty_file_is_the_whole_request(tmp_path):
    head = "---\nname: evaluator\nmodel:\n  api: chat\ninputs:\n  question:\n    type: string\n---\nsystem:\n"
    (tmp_path / "eval.prompty").write_text(head + RULES + "\nuser:{{question}}\noutput:\n")
    _, report = check(tmp_path / "eval.prompty")
    assert findings(report) == []  # the input closes the request: no conversation is appended after it
    (tmp_path / "ahead.prompty").write_text(head + "The question: {{question}}\n" + RULES)
    _, report = check(tmp_path / "ahead.prompty")
    assert [(code, name) for code, name, _ in findings(report)] == [("PFX005", "question")]


def test_a_prompt_file_is_classified_by_the_code_that_fills_it(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "system.md").write_text("You are {agent_name}.\n" + RULES + "\nNow: {current_time}\n")
    loader = ("import os\nfrom datetime import datetime\nfrom config import settings\n\n"
              "def load_system_prompt():\n"
              "    with open(os.path.join(os.path.dirname(__file__), 'system.md')) as f:\n"
              "        return f.read().format(agent_name=settings.NAME,\n"
              "                               current_time=datetime.now().strftime('%H:%M:%S'))\n\n")
    (prompts / "__init__.py").write_text(loader + "SYSTEM_PROMPT = load_system_prompt()\n")
    (template,) = load_templates(str(prompts / "system.md"))
    assert template.variables["current_time"].kind == "stable"  # once per process, at import
    assert "once per process, at import (prompts/__init__.py)" in template.variables["current_time"].evidence
    _, report = check(prompts / "system.md")
    assert findings(report) == []
    # the same fill in a request handler (another repository: modules are indexed once per process)
    other = tmp_path / "other"
    (other / "prompts").mkdir(parents=True)
    (other / "pyproject.toml").write_text("[project]\nname = 'other'\n")
    prompts = other / "prompts"
    (prompts / "system.md").write_text("You are {agent_name}.\n" + RULES + "\nNow: {current_time}\n")
    (prompts / "__init__.py").write_text(loader + "def handle(request):\n    return load_system_prompt()\n")
    (template,) = load_templates(str(prompts / "system.md"))
    assert template.variables["current_time"].kind != "stable"
    assert template.variables["current_time"].evidence.startswith("filled by datetime.now()")
    _, report = check(prompts / "system.md")
    assert [(code, name, line) for code, name, line in findings(report)] == [("PFX001", "current_time", 15)]


README = ("# Prompts\n\nThe templates here are `.txt` files with `.format()` fields such as `{goal}` and\n"
          "`{user_context}`; `app.py` fills them per request.\n\n```python\ntext = load(\"agent\").format(goal=goal)\n```\n\n"
          "| file | fields |\n|---|---|\n| `agent.txt` | `{goal}`, `{history_block}` |\n\n" + RULES)


def test_a_readme_in_a_prompts_folder_documents_the_prompts(tmp_path):
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "agent.txt").write_text("You are a browsing agent.\n" + RULES + "Goal: {goal}\n")
    (prompts / "README.md").write_text(README)
    result, report = check(prompts / "README.md")
    assert result.exit_code == 0 and report["files"] == []
    assert [s["path"] for s in report["skipped"]] == [str(prompts / "README.md")]
    assert "documentation" in report["skipped"][0]["reason"]
    # so is any other name in the same folder whose fields are all quoted in code: its text says so
    (prompts / "guide.md").write_text(README)
    result, report = check(prompts / "guide.md")
    assert result.exit_code == 0 and report["files"] == [] and "documentation" in report["skipped"][0]["reason"]
    # a README whose field stands outside code is not documentation by its content
    (prompts / "README.md").write_text("Reach the goal: {goal}\n\n" + RULES)
    _, report = check(prompts / "README.md")
    assert findings(report) == [("PFX005", "goal", 1)]


def test_a_readme_the_code_reads_is_a_prompt_whatever_its_name(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'app'\n")
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    (prompts / "README.md").write_text(README)
    (tmp_path / "app.py").write_text("from pathlib import Path\n\ndef system(goal):\n"
                                     "    return Path('prompts/README.md').read_text().format(goal=goal)\n")
    _, report = check(prompts / "README.md")
    assert ("PFX005", "goal", 3) in findings(report)
    # a bare "README.md" read elsewhere is another folder's README (setup.py's long description)
    (tmp_path / "app.py").write_text("def long_description():\n    return open('README.md').read().format()\n")
    from prefixlint.load import python_index, python_modules

    python_modules._named_files.cache_clear()
    python_index.repository_modules.cache_clear()
    result, report = check(prompts / "README.md")
    assert result.exit_code == 0 and report["files"] == []


def test_a_test_tree_is_not_walked_and_says_why(tmp_path):
    """A walk leaves `tests/` out (its prompts are inputs the tests make up) and lists why; the
    same file named on the command line is checked."""
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "support.j2").write_text("Today is {{ today }}.\n" + RULES)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_agent.py").write_text(
        "from openai import OpenAI\n\ndef test_reply():\n    OpenAI().chat.completions.create(model='m', messages=[\n"
        "        {'role': 'system', 'content': f'Today is {today()}. ' + '''" + RULES + "'''}])\n")
    result, report = check(tmp_path)
    assert [entry["path"] for entry in report["files"]] == [str(tmp_path / "prompts" / "support.j2")]
    assert findings(report) == [("PFX001", "today", 1)]
    shown = CliRunner().invoke(cli, ["check", "--isolated", "--show-files", str(tmp_path)])
    assert f"skipped: {tmp_path / 'tests'}/ (a test tree (tests/): its prompts are the tests' inputs)" in shown.output
    _, named = check(tmp_path / "tests" / "test_agent.py")
    assert [code for code, _, _ in findings(named)] == ["PFX001"]


def test_a_yaml_file_whose_prompt_key_holds_settings_is_not_a_prompt(tmp_path):
    """`prompt:` of a REPL's configuration (its character, its colours) is no native prompt file:
    a walk skips it with its reason rather than failing on it."""
    (tmp_path / "repl_config.yaml").write_text(
        "# the REPL's appearance\nprompt:\n  character: \"> \"  # the input marker\n  continuation: \"  \"\n"
        "colors:\n  prompt: bold\n")
    result, report = check(tmp_path)
    assert result.exit_code == 0 and report["errors"] == [] and findings(report) == []
    assert [entry["path"] for entry in report["skipped"]] == [str(tmp_path / "repl_config.yaml")]
    assert report["skipped"][0]["reason"] in ("no string with prose in this file", "not a recognised template ("
                                              "promptfoo or langchain or semantic-kernel or crewai or agent-yaml or"
                                              " native-yaml or prompt-strings)")


def test_a_walk_takes_a_page_by_its_name_only_when_its_text_is_no_documentation(tmp_path):
    """A page named like a prompt that quotes each of the code's prompts in a fence documents
    them; a page with a site generator's front matter is a site's page; `personal_notes.md` is
    not named like a persona. Each is skipped with its reason, and a prompt beside them is measured."""
    (tmp_path / "PROMPTS_OVERVIEW.md").write_text(
        "# Prompts of the app\n\n## Classifier\n\n```\nClassify the request: {user_request}\n" + RULES + "```\n\n"
        "## Translator\n\n```\nTranslate into English:\n{text}\n```\n")
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "template-guide.md").write_text(
        "---\nhidden: true\n---\n\n# Templates\n\nWe write {placeholders} in braces.\n\n" + RULES)
    (tmp_path / "prompts" / "agent.md").write_text("Today is {today}.\n" + RULES)
    (tmp_path / "personal_notes.md").write_text("Met {name} today.\n" + RULES)
    (tmp_path / "SKILL.md").write_text("---\nname: rfc\n---\nWrite rfc-{number}.md.\n" + RULES)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--output-format", "json", str(tmp_path)])
    report = json.loads(result.stdout)
    assert findings(report) == [("PFX001", "today", 1)]
    reasons = {Path(s["path"]).name: s["reason"] for s in report["skipped"]}
    assert "placeholders are all inside code examples" in reasons["PROMPTS_OVERVIEW.md"]
    assert "site generator's front matter" in reasons["template-guide.md"]
    assert "no evidence that it is a prompt" in reasons["personal_notes.md"]
    assert "SKILL.md" not in [Path(f["path"]).name for f in report["files"]]  # an Agent Skill: read verbatim
    # a folder holding SKILL.md is an Agent Skill: its assets are scaffolds, not the application's prompts
    skill = tmp_path / "skills" / "build"
    (skill / "assets" / "templates").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: build\n---\nCopy the starter config.\n")
    (skill / "assets" / "templates" / "agent_prompt.md").write_text("Today is {today}.\n" + RULES)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--output-format", "json", str(tmp_path)])
    report = json.loads(result.stdout)
    assert findings(report) == [("PFX001", "today", 1)]  # prompts/agent.md's only
    shown = CliRunner().invoke(cli, ["check", "--isolated", "--show-files", str(tmp_path)])
    assert f"skipped: {skill}/ (an Agent Skill (SKILL.md): " in shown.output



def test_a_configured_prompt_is_measured_whatever_its_text_shows(tmp_path):
    """The `prompts` setting takes a page whose placeholders all sit in code examples."""
    page = tmp_path / "guide.md"
    page.write_text("# Guide\n\n```\nToday is {today}.\n" + RULES + "{question}\n```\n")
    result, report = check(page)
    assert result.exit_code == 0 and report["files"] == [] and "documentation" in report["skipped"][0]["reason"]
    (tmp_path / "pyproject.toml").write_text('[tool.prefixlint]\nprompts = ["guide.md"]\n')
    result = CliRunner().invoke(cli, ["check", "--output-format", "json", str(page)])
    assert findings(json.loads(result.stdout))[:1] == [("PFX001", "today", 4)]


def test_placeholders_the_code_replaces_are_classified_by_the_value_it_puts_there(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'assistant'\n")
    (tmp_path / "prompts").mkdir()
    page = tmp_path / "prompts" / "system.md"
    page.write_text("# Role\nYou are the assistant of {{USER_NAME}}.\n" + RULES + "Today is {{DATE}}. It is {{TIME}}.\n")
    (tmp_path / "config.py").write_text("import os\n\nUSER_NAME = os.environ.get('USER_NAME', 'the user')\n")
    (tmp_path / "builder.py").write_text(
        "from datetime import datetime\n\nimport config\nfrom loader import load_prompt\n\n\n"
        "def system_prompt():\n    now = datetime.now()\n    text = load_prompt('system')\n"   # never names system.md
        "    return (text.replace('{{USER_NAME}}', config.USER_NAME).replace('{{DATE}}', now.strftime('%A, %B %d'))\n"
        "            .replace('{{TIME}}', now.strftime('%H:%M')))\n")
    (template,) = load_templates(str(page))
    variables = template.variables
    assert (variables["USER_NAME"].kind, variables["DATE"].kind, variables["TIME"].kind) == (
        "stable", "per_day", "per_request")
    assert variables["TIME"].evidence == "filled by datetime.now() (builder.py:8)"
    _, report = check(page)
    # the deployment's user name is no finding; the time on the last line costs the history
    assert [(code, name) for code, name, _ in findings(report)] == [("PFX001", "TIME")]


def test_a_file_loaded_into_a_name_is_filled_where_that_name_is_rendered(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'tutor'\n")
    package = tmp_path / "tutor" / "prompts"
    package.mkdir(parents=True)
    (package / "card.j2").write_text("You are a tutor for a {{ level }} learner.\n" + RULES + "Word: {{ word }}\n")
    (package / "__init__.py").write_text(  # reads the file, fills nothing itself
        "import os\n\n\nclass _Template:\n    def __init__(self, name):\n"
        "        self.text = open(os.path.join(os.path.dirname(__file__), name)).read()\n\n\n"
        'card_prompt = _Template("card.j2")\n')
    (tmp_path / "tutor" / "reviewer.py").write_text(
        "from .prompts import card_prompt\n\n\nclass Reviewer:\n    def ask(self, card):\n"
        "        return card_prompt.render(level=self.deck_config.get('level', 'beginner'), word=card.word)\n")
    (template,) = load_templates(str(package / "card.j2"))
    level = template.variables["level"]
    assert level.kind == "stable" and level.evidence.startswith("filled by self.deck_config.get('level', 'beginner')")
    assert level.evidence.endswith("(tutor/reviewer.py:6)")
    _, report = check(package / "card.j2")
    assert findings(report) == []  # a deck's setting, the same on every card: nothing ahead of the rules changes
    # a user's own settings are no deployment constant: the name decides again
    reviewer = tmp_path / "tutor" / "reviewer.py"
    reviewer.write_text(reviewer.read_text().replace("self.deck_config", "self.user_settings"))
    from prefixlint.load import python_index, python_modules

    for cached in (python_modules._calls, python_modules._tree, python_modules.module_resolver, python_index.module_source,
                   python_index.module_tree):
        cached.cache_clear()
    (template,) = load_templates(str(package / "card.j2"))
    assert template.variables.get("level") is None or template.variables["level"].kind != "stable"
