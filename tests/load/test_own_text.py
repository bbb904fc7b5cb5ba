"""A value that opens a system message and is named as a prompt's text (`{prompt}`, `instructions`,
`persona`) is that message's own text: what the deployment or the user configured, the same for
a whole conversation, not the user's request (issue 19 item 5, by where the value sits). Only with
no better evidence, and only at the opening of a system message. Our own words throughout."""

from __future__ import annotations

from prefixlint.load.registry import load_templates
from tests.load.test_ts_assembly import write

EVIDENCE = ("its name (prompt) where it opens the system message: its own text, set per deployment or conversation,"
            " not per request")
RULES = "Answer from the handbook only, cite its page, and say plainly when it does not cover the question."


def python_builder(system: str) -> str:
    return ("from openai import OpenAI\n\nclient = OpenAI()\n\n\n"
            "def reply(history, question, prompt, persona):\n"
            f'    system = f"{system}"\n'
            '    return client.chat.completions.create(model="m", messages=[{"role": "system", "content": system},'
            ' *history, {"role": "user", "content": question}])\n')


def test_a_prompt_named_value_opening_a_python_system_message_is_its_own_text(tmp_path):
    path = write(tmp_path, "bot.py", python_builder("{prompt}\\n\\n" + RULES))
    (template,) = load_templates(str(path))
    assert template.messages[0].content == "{prompt}\n\n" + RULES
    prompt = template.variables["prompt"]
    assert (prompt.kind, prompt.evidence) == ("per_user", EVIDENCE)


def test_a_typescript_system_message_opened_by_its_prompt_parameter(tmp_path):
    path = write(tmp_path, "helpers.ts", (
        "export const buildSystemPrompt = (prompt: string, memory: string[]) => ({\n"
        "  role: 'system',\n"
        f"  content: prompt + `\\n{RULES} Facts you remember: ${{memory.join(', ')}}`,\n"
        "});\n"))
    (template,) = load_templates(str(path))
    assert template.messages[0].content.startswith("{prompt}\n" + RULES)
    assert (template.variables["prompt"].kind, template.variables["prompt"].evidence) == ("per_user", EVIDENCE)


def test_not_after_stable_text_not_for_other_names_and_not_against_better_evidence(tmp_path):
    later = write(tmp_path, "later.py", python_builder(RULES + "\\n{persona}"))  # not the opening
    (template,) = load_templates(str(later))
    assert template.variables.get("persona") is None or template.variables["persona"].evidence != EVIDENCE
    question = write(tmp_path, "question.py", python_builder("{question}\\n\\n" + RULES))  # not a prompt's name
    (template,) = load_templates(str(question))
    assert template.variables.get("question") is None or template.variables["question"].evidence != EVIDENCE
    clock = write(tmp_path, "clock.py", python_builder("{prompt}\\n\\n" + RULES).replace(
        "    system = ", "    prompt = datetime.now().isoformat()\n    system = ").replace(
        "from openai", "from datetime import datetime\nfrom openai"))
    (template,) = load_templates(str(clock))  # the clock fills it: that evidence stands
    assert template.variables["prompt"].kind == "per_request" and template.variables["prompt"].evidence != EVIDENCE


def test_the_name_alone_is_weak_evidence_one_severity_lower_and_a_call_is_not_the_text(tmp_path):
    import json

    from click.testing import CliRunner

    from prefixlint.cli import cli

    rules = "\\n".join(f"Rule {i}: {RULES}" for i in range(8))
    path = write(tmp_path, "bot.py", python_builder("{prompt}\\n\\n" + rules))
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    (found,) = [f for f in json.loads(result.output)["files"][0]["findings"] if f["variable"] == "prompt"]
    # request content by its name, per user by where it sits (a warning): the name alone lowers it to info
    assert (found["code"], found["severity"], found["frequency"]) == ("PFX005", "info", "per_user")
    assert found["evidence"] == EVIDENCE + " (bot.py:6)"
    called = write(tmp_path, "called.py", python_builder("{load_prompt()}\\n\\n" + RULES))
    (template,) = load_templates(str(called))
    assert all(v.evidence is None or "opens the system message" not in v.evidence for v in template.variables.values())


CONVERT = '''from langchain_core.messages import SystemMessage


class Message:
    def to_lc(self, additional_kwargs):
        match self.kind:
            case "action":
                content = f"{self.content}\\n```{additional_kwargs['tool']}\\n{additional_kwargs['tool_input']}\\n```"
            case _:
                content = self.content
        return SystemMessage(content=content)
'''


def test_a_stored_message_converted_with_values_and_punctuation_only_is_no_prompt(tmp_path):
    import pytest

    from prefixlint.load.registry import NotATemplate

    path = write(tmp_path, "schemas.py", CONVERT)
    with pytest.raises(NotATemplate, match="no prompt found"):
        load_templates(str(path))


def test_values_only_text_is_a_prompt_when_one_of_its_values_is_a_prompt(tmp_path):
    source = CONVERT.replace("self.content}\\n```{additional_kwargs['tool']}", "SYSTEM_PROMPT}\\n```{additional_kwargs['tool']}")
    path = write(tmp_path, "schemas.py", "SYSTEM_PROMPT = input()\n" + source)
    (template,) = load_templates(str(path))
    assert template.messages[0].content.startswith("{system_prompt}\n```{")
