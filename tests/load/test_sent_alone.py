"""A system prompt the code sends as the whole request (issue 19 item 7): every use found builds
one system and one user message and no conversation, so no history is assumed after it; one use
that adds a conversation, or that cannot be seen through, keeps the assumption."""

from __future__ import annotations

import ast
import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load import python_index
from prefixlint.load.python_turns import sent_alone as python_sent_alone
from prefixlint.load.ts_grammar import parse
from prefixlint.load.ts_turns import sent_alone as ts_sent_alone

RULES = "\n".join(f"- Rule {i}: answer only from the catalogue and quote the product's reference number." for i in range(12))
PROMPTS = ('from datetime import datetime\n\n\ndef system_prompt() -> str:\n'
           f'    return f"""Today is {{datetime.now():%Y-%m-%d %H:%M}}.\n{RULES}\n"""\n')


@pytest.fixture(autouse=True)
def _fresh_index():
    python_index.repository_modules.cache_clear()
    python_index.module_source.cache_clear()
    python_index.module_tree.cache_clear()
    python_index._PLACES.clear()
    python_index.mentioning.cache_clear()
    yield


def _python(tmp_path, caller: str | None, name: str = "system_prompt", own: str = PROMPTS) -> str | None:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "prompts.py").write_text(own)
    if caller is not None:
        (tmp_path / "agent.py").write_text(caller)
    return python_sent_alone(str(tmp_path / "prompts.py"), ast.parse(own), name)


HEAD = "from openai import OpenAI\nfrom prompts import system_prompt\n\nclient = OpenAI()\n\n\ndef answer(question):\n"


@pytest.mark.parametrize(("body", "line"), [
    ('    return client.chat.completions.create(model="m", messages=[\n'
     '        {"role": "system", "content": system_prompt()}, {"role": "user", "content": question}])\n', 8),
    ('    system = system_prompt()\n'
     '    messages = [{"role": "system", "content": system}, {"role": "user", "content": question}]\n'
     '    return client.chat.completions.create(model="m", messages=messages)\n', 9),
    ('    return client.messages.create(model="m", system=system_prompt(),\n'
     '                                  messages=[{"role": "user", "content": question}])\n', 8),
    ('    return llm.invoke([SystemMessage(content=system_prompt()), HumanMessage(question)])\n', 8),
    ('    chain = ChatPromptTemplate.from_messages([("system", system_prompt()), ("human", "{question}")]) | llm\n', 8),
])
def test_a_request_of_one_system_and_one_user_message_is_sent_alone(tmp_path, body, line):
    assert _python(tmp_path, HEAD + body) == f"agent.py:{line}"


@pytest.mark.parametrize("body", [
    '    return client.chat.completions.create(model="m", messages=[\n'
    '        {"role": "system", "content": system_prompt()}, *history, {"role": "user", "content": question}])\n',
    '    messages = [{"role": "system", "content": system_prompt()}, {"role": "user", "content": question}]\n'
    '    messages.append({"role": "assistant", "content": "..."})\n'
    '    return client.chat.completions.create(model="m", messages=messages)\n',
    '    return client.messages.create(model="m", system=system_prompt(), messages=history + [question])\n',
    '    return client.chat.completions.create(model="m", messages=[{"role": "system", "content": system_prompt()},\n'
    '        {"role": "user", "content": f"{chat_history}\\n{question}"}])\n',
    '    return ask(client, system_prompt(), question)\n',  # a helper: not seen through
    '    chain = ChatPromptTemplate.from_messages([("system", system_prompt()), ("human", "{chat_history}\\n{question}")])\n',
    '    chain = ChatPromptTemplate.from_messages([("system", system_prompt()), MessagesPlaceholder("history"),'
    ' ("human", "{question}")])\n',
    '    system = system_prompt()\n    system += "\\nBe brief."\n'
    '    return client.chat.completions.create(model="m", messages=[{"role": "system", "content": system},'
    ' {"role": "user", "content": question}])\n',
])
def test_a_conversation_or_an_unseen_use_keeps_the_history(tmp_path, body):
    assert _python(tmp_path, HEAD + body) is None


def test_one_use_with_a_history_anywhere_in_the_repository_keeps_it(tmp_path):
    alone = HEAD + ('    return client.chat.completions.create(model="m", messages=[\n'
                    '        {"role": "system", "content": system_prompt()}, {"role": "user", "content": question}])\n')
    (tmp_path / "chat").mkdir()
    (tmp_path / "chat" / "route.py").write_text(alone.replace('"content": question}', '"content": question}, *turns'))
    assert _python(tmp_path, alone) is None


def test_no_use_found_is_no_evidence(tmp_path):
    assert _python(tmp_path, None) is None
    assert _python(tmp_path, "from other import system_prompt\n\nsystem_prompt()\n") is None


TS_PROMPT = "export const systemPrompt = () => {\n  const now = new Date().toISOString();\n" \
            f"  return `You are an expert researcher. Today is ${{now}}.\n{RULES}`;\n}};\n"


def _ts(tmp_path, caller: str, name: str = "research.ts") -> str | None:
    (tmp_path / "prompt.ts").write_text(TS_PROMPT)
    (tmp_path / name).write_text(caller)
    return ts_sent_alone(str(tmp_path / "prompt.ts"), parse("prompt.ts", TS_PROMPT), "systemPrompt")


TS_HEAD = 'import { generateObject, streamText } from "ai";\nimport { systemPrompt } from "./prompt";\n\n' \
          "export async function plan(query: string, history: Message[]) {\n"


@pytest.mark.parametrize(("body", "line"), [
    ("  return generateObject({ model, system: systemPrompt(), prompt: `Plan: ${query}` });\n", 5),
    ("  const system = systemPrompt();\n  return generateObject({ model, system, prompt: query });\n", 6),
    ('  return streamText({ model, system: systemPrompt(), messages: [{ role: "user", content: query }] });\n', 5),
    ('  const messages = [{ role: "system", content: systemPrompt() }, { role: "user", content: query }];\n'
     "  return client.chat.completions.create({ model, messages });\n", 5),  # where the array is written
], ids=["prompt", "const", "one-user-message", "message-array"])
def test_typescript_requests_of_one_user_message_are_sent_alone(tmp_path, body, line):
    assert _ts(tmp_path, TS_HEAD + body + "}\n") == f"research.ts:{line}"


@pytest.mark.parametrize("body", [
    "  return streamText({ model, system: systemPrompt(), messages: [...history, { role: 'user', content: query }] });\n",
    "  return streamText({ model, system: systemPrompt(), messages: history });\n",
    "  return generateObject({ model, system: systemPrompt(), prompt: `${history.join('\\n')}\\n${query}` });\n",
    "  const messages = [{ role: 'system', content: systemPrompt() }, { role: 'user', content: query }];\n"
    "  messages.push({ role: 'assistant', content: 'ok' });\n  return client.chat.completions.create({ model, messages });\n",
    "  return callModel(systemPrompt(), query);\n",
])
def test_typescript_conversations_and_unseen_uses_keep_the_history(tmp_path, body):
    assert _ts(tmp_path, TS_HEAD + body + "}\n") is None


def test_typescript_uses_in_tests_are_not_the_application_s(tmp_path):
    body = "  return streamText({ model, system: systemPrompt(), messages: history });\n"
    assert _ts(tmp_path, TS_HEAD + body + "}\n", name="research.test.ts") is None  # and nothing else uses it


def test_a_timestamp_ahead_of_a_prompt_sent_alone_costs_the_prompt_not_a_history(tmp_path):
    (tmp_path / "package.json").write_text("{}")
    (tmp_path / "prompt.ts").write_text(TS_PROMPT)
    request = "  return generateObject({ model, system: systemPrompt(), prompt: query });\n}\n"
    (tmp_path / "research.ts").write_text(TS_HEAD + request)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(tmp_path / "prompt.ts")])
    assert result.exit_code == 1, result.output
    (finding,) = json.loads(result.output)["files"][0]["findings"]
    assert (finding["code"], finding["line"], finding["sent_alone"]) == ("PFX001", 3, "research.ts:5")
    assert "history_tokens" not in finding and "Sent with one user message and no conversation (research.ts:5)" \
        in finding["message"]
    # the request is the system message alone: its 12 rules after the timestamp, no 663-token history
    assert finding["tokens"] < 300 and finding["stable_tokens_after"] > 200


BUILT = f'SYSTEM = """Today is {{today}}.\n{RULES}\n"""\n\n\ndef build(today):\n    return SYSTEM.format(today=today)\n'


@pytest.mark.parametrize(("history", "expected"), [("", "agent.py:8"), (", *history", None)])
def test_a_prompt_a_function_returns_is_sent_where_the_function_s_callers_send_it(tmp_path, history, expected):
    caller = HEAD.replace("import system_prompt", "import build") + (
        '    return client.chat.completions.create(model="m", messages=[\n'
        f'        {{"role": "system", "content": build("today")}}{history}, {{"role": "user", "content": question}}])\n')
    assert _python(tmp_path, caller, name="SYSTEM", own=BUILT) == expected


def test_a_typescript_prompt_a_function_returns_follows_the_function(tmp_path):
    own = f"const SYSTEM = `Today is {{today}}.\n{RULES}`;\n\nexport function build(today: string) {{\n" \
          "  return SYSTEM.replace('{today}', today);\n}\n"
    (tmp_path / "prompt.ts").write_text(own)
    (tmp_path / "research.ts").write_text(TS_HEAD.replace("{ systemPrompt }", "{ build }")
                                          + "  return generateObject({ model, system: build(day), prompt: query });\n}\n")
    assert ts_sent_alone(str(tmp_path / "prompt.ts"), parse("prompt.ts", own), "SYSTEM") == "research.ts:5"
    (tmp_path / "chat.ts").write_text(TS_HEAD.replace("{ systemPrompt }", "{ build }")
                                      + "  return streamText({ model, system: build(day), messages: history });\n}\n")
    assert ts_sent_alone(str(tmp_path / "prompt.ts"), parse("prompt.ts", own), "SYSTEM") is None


@pytest.mark.parametrize(("request_text", "expected"), [
    ('  return fetch(url, { body: JSON.stringify({ systemInstruction: { role: "system", parts: [{ text: systemPrompt() }] },'
     ' contents: [{ role: "user", parts: [{ text: query }] }] }) });\n', "research.ts:5"),
    ("  return ai.models.generateContent({ model, contents: query, config: { systemInstruction: systemPrompt() } });\n",
     "research.ts:5"),
    ("  return ai.models.generateContent({ model, contents: history, config: { systemInstruction: systemPrompt() } });\n",
     None),
    ('  return fetch(url, { body: JSON.stringify({ systemInstruction: { parts: [{ text: systemPrompt() }] },'
     ' contents: [...history, { role: "user", parts: [{ text: query }] }] }) });\n', None),
], ids=["rest", "sdk", "sdk-history", "rest-history"])
def test_gemini_requests_of_one_user_turn_are_sent_alone(tmp_path, request_text, expected):
    assert _ts(tmp_path, TS_HEAD + request_text + "}\n") == expected
