"""How the code sends a prompt file (issue 19): `load.file_sends`, read from the modules that name
the file, and the fills a repository helper forwards (`file_fills`). Fixtures written for these
tests: a value ahead of a short closing instruction in the user's message is no finding; the
same text as a system prompt with the conversation after it is."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.file_sends import file_sent
from prefixlint.load.registry import load_templates

#: About 50 tokens: above min-stable-tokens (16), below min-tail-tokens (80).
SHORT_TAIL = "".join(f"Rule {i}: answer in full sentences and cite the source.\n" for i in range(4))
LONG_TAIL = "".join(f"Rule {i}: answer in full sentences and cite the source.\n" for i in range(14))

ASK = '''from datetime import datetime
from jinja2 import Environment, FileSystemLoader
env = Environment(loader=FileSystemLoader("prompts"))


def ask(client, question):
    text = env.get_template("turn.j2").render(current_time=datetime.now().isoformat())
    messages = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": text}]
    return client.chat.completions.create(model="m", messages=messages)
'''


def repo(tmp_path: Path, prompt: str, modules: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "prompts").mkdir()
    target = tmp_path / "prompts" / "turn.j2"
    target.write_text(prompt, encoding="utf-8")
    for name, text in modules.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return target


def findings(path: Path):
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    report = json.loads(result.stdout)
    return result.exit_code, [f for entry in report["files"] for f in entry.get("findings", [])]


def test_a_file_rendered_into_the_users_message_weighs_only_the_text_after_the_value(tmp_path):
    target = repo(tmp_path, "Time: {{ current_time }}\n" + SHORT_TAIL, {"app.py": ASK})
    assert file_sent(str(target), target.read_text()) == ("user", "app.py:8")
    (template,) = load_templates(str(target))
    assert (template.sent_as, template.sent_alone) == ("user", "app.py:8")
    assert template.variables["current_time"].evidence == "filled by datetime.now() (app.py:7)"
    assert findings(target) == (0, [])  # ~50 tokens after the value: below min-tail-tokens


def test_a_long_instruction_after_the_value_in_the_users_message_is_still_a_finding(tmp_path):
    target = repo(tmp_path, "Time: {{ current_time }}\n" + LONG_TAIL, {"app.py": ASK})
    code, found = findings(target)
    assert code == 1 and [(f["code"], f["line"], f["column"]) for f in found] == [("PFX001", 1, 7)]
    assert found[0]["sent_alone"] == "app.py:8"
    assert found[0]["message"].endswith("Sent as the user's message (app.py:8).")
    assert found[0]["stable_block_after"] >= 80


def test_the_same_file_as_a_system_prompt_before_the_conversation_is_a_finding(tmp_path):
    module = ASK.replace('''[{"role": "system", "content": "You are terse."}, {"role": "user", "content": text}]''',
                         '''[{"role": "system", "content": text}, *history, {"role": "user", "content": question}]''')
    target = repo(tmp_path, "Time: {{ current_time }}\n" + SHORT_TAIL, {"app.py": module})
    assert file_sent(str(target), target.read_text()) is None
    code, found = findings(target)
    assert code == 1 and [(f["code"], f["line"]) for f in found] == [("PFX001", 1)]


def test_a_whole_prompt_object_and_a_self_attribute(tmp_path):
    module = '''from haystack.components.builders import PromptBuilder
from app.resources import read_resource_file


class Search:
    def __init__(self):
        self.template = read_resource_file("turn.j2")

    def build(self):
        return PromptBuilder(template=self.template, required_variables=["query"])
'''
    target = repo(tmp_path, "Results for {{ query }}\n" + SHORT_TAIL, {"app/search.py": module})
    assert file_sent(str(target), target.read_text()) == ("prompt", "app/search.py:10")


def test_one_place_that_cannot_be_followed_keeps_the_file_as_it_was(tmp_path):
    other = 'from app import load\nPROMPTS = {"turn": load("turn.j2")}\n'  # a table: where it goes is not seen
    target = repo(tmp_path, "Time: {{ current_time }}\n" + SHORT_TAIL, {"app.py": ASK, "tables.py": other})
    assert file_sent(str(target), target.read_text()) is None


def test_a_file_that_reads_the_conversation_is_never_sent_alone(tmp_path):
    target = repo(tmp_path, "Time: {{ current_time }}\n{{ chat_history }}\n" + SHORT_TAIL, {"app.py": ASK})
    assert file_sent(str(target), target.read_text()) is None


def test_a_file_no_module_names_is_not_sent_alone(tmp_path):
    target = repo(tmp_path, "Time: {{ current_time }}\n" + SHORT_TAIL, {"app.py": "print('hello')\n"})
    assert file_sent(str(target), target.read_text()) is None


HELPER = '''from jinja2 import Environment, FileSystemLoader

_env = Environment(loader=FileSystemLoader("prompts"))


def render(template_name, **context):
    return _env.get_template(template_name).render(**context)
'''

JOB = '''from datetime import date
from app.prompts import render


def run(client, config):
    system_prompt = render("turn.j2", today=date.today().isoformat(), budget=config.token_budget)
    return client.messages.create(system=system_prompt, messages=[{"role": "user", "content": "go"}])
'''


def test_keywords_a_repository_helper_forwards_to_the_fill_are_the_files_evidence(tmp_path):
    target = repo(tmp_path, "Today is {{ today }}. Budget {{ budget }}.\n" + SHORT_TAIL,
                  {"src/app/prompts.py": HELPER, "src/app/job.py": JOB})
    (template,) = load_templates(str(target))
    today = template.variables["today"]
    assert (today.kind, today.evidence) == ("per_day", "filled by date.today() (src/app/job.py:6)")
    assert template.variables["budget"].kind == "stable"
    # sent as Anthropic's `system=` with one user message: no conversation follows it
    assert (template.sent_as, template.sent_alone) == ("system", "src/app/job.py:7")


def test_a_helper_that_does_not_forward_its_keywords_gives_no_evidence(tmp_path):
    helper = HELPER.replace("render(**context)", "render()")
    target = repo(tmp_path, "Today is {{ today }}.\n" + SHORT_TAIL, {"src/app/prompts.py": helper, "src/app/job.py": JOB})
    (template,) = load_templates(str(target))
    assert "today" not in template.variables


def test_a_class_method_of_an_imported_class_that_forwards_its_keywords(tmp_path):
    helper = """from jinja2 import Environment, FileSystemLoader


class PromptManager:
    @staticmethod
    def render(name, **values):
        return Environment(loader=FileSystemLoader("prompts")).get_template(name).render(**values)
"""
    job = """from datetime import datetime
from app.manager import PromptManager

system_prompt = PromptManager.render("turn.j2", time=datetime.now().isoformat())
"""
    target = repo(tmp_path, "The time is {{ time }}.\n" + SHORT_TAIL, {"app/manager.py": helper, "app/job.py": job})
    (template,) = load_templates(str(target))
    time = template.variables["time"]  # rendered once, at import: the same on every request
    assert (time.kind, time.evidence) == ("stable", "filled by datetime.now() once per process, at import (app/job.py:4)")


def test_a_string_names_the_file_by_its_last_path_part_in_either_separator():
    import ast

    from prefixlint.load.file_fills import names_file

    def node(source: str) -> ast.AST:
        return ast.parse(source, mode="eval").body

    assert names_file(node('"system.j2"'), "system.j2")
    assert names_file(node('"prompts/system.j2"'), "system.j2")
    assert names_file(node('"prompts\\\\system.j2"'), "system.j2")
    assert not names_file(node('"my_system.j2"'), "system.j2")
    assert not names_file(node('"system.j2.bak"'), "system.j2")
    assert not names_file(node("system_j2"), "system.j2")  # a name, not a string
    assert not names_file(node("42"), "42")


RENDERER = '''from jinja2 import Environment, FileSystemLoader

_FILENAME = "turn.j2"


def render_system(folder, context):
    environment = Environment(loader=FileSystemLoader(folder))
    template = environment.get_template(_FILENAME)
    return template.render(context=context)
'''
ANSWER = '''from app.domain import Message
from app.infrastructure.renderer import render_system


def answer(question, store, provider):
    context = "\\n".join(chunk.text for chunk in store.search(question))
    system = render_system("prompts", context=context)
    return provider.generate(
        system_prompt=system,
        messages=[Message(role="user", content=question)],
    )
'''


def test_a_named_file_name_a_renderer_in_another_module_and_a_system_prompt_keyword(tmp_path):
    # the name is a module constant, the helper returns the rendered text, a use case in another
    # module sends it as `system_prompt=` with one user message object: no conversation follows
    target = repo(tmp_path, "Answer from the context only.\n" + LONG_TAIL + "Context:\n{{ context }}\n",
                  {"app/infrastructure/renderer.py": RENDERER, "app/use_cases/answer.py": ANSWER})
    assert file_sent(str(target), target.read_text()) == ("system", "app/use_cases/answer.py:8")
    assert findings(target) == (0, [])  # the context closes the request's system prompt


def test_the_same_renderer_before_the_conversation_keeps_the_file_as_it_was(tmp_path):
    answer = ANSWER.replace('messages=[Message(role="user", content=question)]',
                            'messages=[*history, Message(role="user", content=question)]')
    target = repo(tmp_path, "Answer from the context only.\n{{ context }}\n" + LONG_TAIL,
                  {"app/infrastructure/renderer.py": RENDERER, "app/use_cases/answer.py": answer})
    assert file_sent(str(target), target.read_text()) is None
    code, found = findings(target)
    assert code == 1 and [(f["code"], f["line"]) for f in found] == [("PFX005", 2)]


def test_a_file_name_constant_bound_again_is_not_followed(tmp_path):
    renderer = RENDERER.replace("    environment =", "    global _FILENAME\n    _FILENAME = folder\n    environment =")
    target = repo(tmp_path, "Context:\n{{ context }}\n", {"app/infrastructure/renderer.py": renderer,
                                                          "app/use_cases/answer.py": ANSWER})
    assert file_sent(str(target), target.read_text()) is None
