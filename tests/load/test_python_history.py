"""The history after a system prompt, by structure (issue 19 item 7): a message list whose
system message is followed by the conversation, whatever the names, is one chat with the
conversation slot where the code puts it."""

from __future__ import annotations

import pytest

from prefixlint.load.registry import load_templates
from prefixlint.load.template import SLOT_ROLE

HEAD = ("from openai import OpenAI\nclient = OpenAI()\n"
        'GUIDE = "You are the shop helper. Answer from the handbook, cite the section, be brief."\n\n\n'
        "def reply(past, question):\n")
SYSTEM = '{"role": "system", "content": GUIDE}'
USER = '{"role": "user", "content": question}'


@pytest.mark.parametrize("messages,roles", [
    (f"[{SYSTEM}] + past + [{USER}]", ["system", SLOT_ROLE, "user"]),
    (f"[{SYSTEM}] + past", ["system", SLOT_ROLE]),
    (f"[{SYSTEM}, *past, {USER}]", ["system", SLOT_ROLE, "user"]),
    (f"[{SYSTEM}] + self.turns[-8:] + [{USER}]", ["system", SLOT_ROLE, "user"]),
])
def test_a_system_message_then_the_history_is_one_chat_with_its_slot(messages, roles):
    text = HEAD + f'    return client.chat.completions.create(model="gpt-4o", messages={messages})\n'
    (template,) = load_templates("bot.py", text)
    assert [m.role for m in template.messages] == roles
    assert template.is_chat and template.slot is not None
    system = template.messages[0]
    assert system.content.startswith("You are the shop helper.")
    assert system.offsets[0] == text.index("You are the shop helper.")
    slot = template.messages[1]
    written = "*past" if "*past" in messages else "past" if "past" in messages else "self.turns"
    assert slot.offsets[0] == text.index(written, text.index("messages="))  # where the code puts it


def test_a_list_bound_to_a_name_joins_the_history_too():
    text = HEAD + (f"    opening = [{SYSTEM}]\n"
                   f'    return client.chat.completions.create(model="gpt-4o", messages=opening + past + [{USER}])\n')
    (template,) = load_templates("bot.py", text)
    assert [m.role for m in template.messages] == ["system", SLOT_ROLE, "user"]


def test_messages_after_the_users_message_are_this_requests_steps_not_the_history(tmp_path):
    """An agent's `MessagesPlaceholder("agent_scratchpad")` after `("human", "{question}")` holds
    the tool calls of this request: the question before it is the request's last content."""
    from click.testing import CliRunner

    from prefixlint.cli import cli

    rules = " ".join(f"Rule {i}: answer from the handbook and cite the section." for i in range(20))
    text = ("from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder\n\n"
            "prompt = ChatPromptTemplate.from_messages([\n"
            f'    ("system", "{rules}"),\n'
            '    MessagesPlaceholder(variable_name="chat_history", optional=True),\n'
            '    ("human", "{question}"),\n'
            '    MessagesPlaceholder(variable_name="steps"),\n])\n')
    (template,) = load_templates("agent.py", text)
    assert [m.role for m in template.messages] == ["system", SLOT_ROLE, "user", "assistant"]
    assert template.slot == "chat_history"
    assert template.variables["steps"].kind == "per_request"
    assert template.messages[3].offsets[0] == text.index('MessagesPlaceholder(variable_name="steps")')
    path = tmp_path / "agent.py"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", "--isolated", str(path)])
    assert result.exit_code == 0 and result.stdout.splitlines()[-1] == "All checks passed!"
    # the same question with a stable block after it is a finding
    path.write_text(text.replace('MessagesPlaceholder(variable_name="steps")', f'("human", "{rules}")'), encoding="utf-8")
    assert CliRunner().invoke(cli, ["check", "--isolated", str(path)]).exit_code == 1


def test_system_content_blocks_bound_to_a_name_are_the_system_prompt():
    text = ("import anthropic\nclient = anthropic.Anthropic()\n"
            'blocks = [{"type": "text", "text": "You are the shop helper. Answer from the handbook."}]\n\n\n'
            "def reply(history):\n"
            '    return client.messages.create(model="m", system=blocks, messages=history)\n')
    (template,) = load_templates("bot.py", text)
    assert template.messages[0].role == "system"
    assert template.messages[0].offsets[0] == text.index("You are the shop helper.")


@pytest.mark.parametrize("name,system", [
    ("ORCHESTRATOR_MEM_SYSTEM_PROMPT", True), ("DEFAULT_SYSTEM_MESSAGE", True), ("bot_system_instructions", True),
    ("SYSTEMATIC_REVIEW_PROMPT", False), ("EMAIL_PROMPT", False),
])
def test_a_name_that_says_system_prompt_anywhere_is_the_system_message(name, system):
    text = (f'{name} = """You are the team\'s orchestrator. Follow the rules of the team.\n'
            'System Time: {time}"""\n')
    (template,) = load_templates("prompts.py", text)
    assert (template.messages[0].role == "system") is system


CLOSED = ('from langchain.prompts.chat import ChatPromptTemplate, SystemMessagePromptTemplate, HumanMessagePromptTemplate\n\n'
          'guide = """Answer from the pieces of context below. Say so when they do not hold the answer.\n'
          '----\n{context}"""\n')


@pytest.mark.parametrize("build", [
    "messages = [\n    SystemMessagePromptTemplate.from_template(guide),\n"
    '    HumanMessagePromptTemplate.from_template("{question}"),\n]\n'
    "PROMPT = ChatPromptTemplate.from_messages(messages)\n",
    'head = [SystemMessagePromptTemplate.from_template(guide)]\n'
    'PROMPT = ChatPromptTemplate.from_messages(head + [HumanMessagePromptTemplate.from_template("{question}")])\n',
])
def test_a_message_list_passed_by_name_is_one_closed_chat(build):
    """`messages = [...]` then `from_messages(messages)` is the same chat as the list written in
    the call: its system message is not a lone system prompt (no conversation follows it, the
    question is the chat's own last message)."""
    text = CLOSED + build
    (template,) = load_templates("prompt.py", text)
    assert [m.role for m in template.messages] == ["system", "user"]
    assert template.is_chat and template.slot is None
    assert template.messages[0].offsets[0] == text.index("Answer from the pieces")
    assert template.messages[1].offsets[0] == text.index("{question}")
