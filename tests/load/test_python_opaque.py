"""A prompt structure with an opaque piece is still a prompt (issue 19, held-out files of i19s):
a LangChain chat whose system text is a module-level name the module does not define (imported
from where prefixlint cannot read it, or defined nowhere) is measured for what is known; the
unknown part is stated (`unknown` in the JSON) and never reported. Fixtures written for these tests."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.registry import NotATemplate, load_templates
from prefixlint.load.template import SLOT_ROLE

CHAT = ("from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder\n\n"
        "SUPPORT_PROMPT = ChatPromptTemplate.from_messages([\n"
        '    ("system", SUPPORT_PREFIX),\n'
        "    MessagesPlaceholder(variable_name='history', optional=True),\n"
        '    ("human", "{question}"),\n'
        "    MessagesPlaceholder(variable_name='agent_scratchpad'),\n"
        "])\n")


def run(path) -> dict:
    result = CliRunner().invoke(cli, ["check", "--isolated", "--no-cache", "--format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_an_undefined_system_text_is_an_unknown_stable_piece():
    (template,) = load_templates("prompts.py", CHAT)
    assert [m.role for m in template.messages] == ["system", SLOT_ROLE, "user", "assistant"]
    system = template.messages[0]
    assert system.content == "{support_prefix}" and system.offsets[0] == CHAT.index("SUPPORT_PREFIX")
    variable = template.variables["support_prefix"]
    assert variable.unknown and variable.kind == "stable" and variable.line == 4
    assert variable.evidence.startswith("SUPPORT_PREFIX: its text is not in this module, unknown")


def test_the_chat_is_measured_clean_and_says_what_it_does_not_know(tmp_path):
    path = tmp_path / "prompts.py"
    path.write_text(CHAT, encoding="utf-8")
    report = run(path)
    assert report["errors"] == [] and report.get("skipped", []) == []
    (result,) = report["files"]
    assert result["findings"] == []  # {question} closes the request; the scratchpad is this request's own
    assert list(result["unknown"]) == ["support_prefix"]
    assert result["history_tokens"] == 663  # the conversation the placeholder stands for is measured


def test_a_name_the_module_defines_is_read_not_unknown():
    text = CHAT.replace("SUPPORT_PROMPT =", 'SUPPORT_PREFIX = "You are the help desk of a bicycle shop."\n\nSUPPORT_PROMPT =')
    (template,) = load_templates("prompts.py", text)
    assert template.messages[0].content == "You are the help desk of a bicycle shop."
    assert not any(v.unknown for v in template.variables.values())


def test_a_parameter_of_a_function_is_a_value_not_an_unknown_constant():
    """Inside a function the name is a value the caller passes: nothing says it is a constant,
    and a chat of nothing but such values is not taken for a prompt (as before)."""
    text = ("from langchain_core.prompts import ChatPromptTemplate\n\n"
            "def build(prefix):\n"
            "    return ChatPromptTemplate.from_messages([(\"system\", prefix), (\"human\", \"{question}\")])\n")
    with pytest.raises(NotATemplate, match="no prompt found"):
        load_templates("prompts.py", text)
