"""An object literal `{ role, content }` with a chat role (system, developer, user, assistant)
and a text or text parts is a chat message wherever it is written (issue 19 item 4): a module
constant (typed `ChatCompletionMessageParam` or not), an item of a message list, a function's
return value. A constant one is found and clean, not refused. Each module is written here in
our own words."""

from __future__ import annotations

import pytest

from prefixlint.load.registry import NotATemplate, load_templates
from tests.load.test_ts_assembly import write
from tests.test_python_source import findings, where

RULES = " ".join(f"Rule {i}: answer in full sentences and cite the ticket you used." for i in range(20))


def test_a_constant_system_message_object_is_found_and_clean(tmp_path):
    path = write(tmp_path, "constants.ts", (
        'import type { ChatCompletionMessageParam } from "openai/resources/chat";\n'
        "export const JIRA_HELPER: ChatCompletionMessageParam = {\n"
        '  role: "system",\n'
        f'  content: "You turn Slack threads into Jira tickets. {RULES}",\n'
        "};\n"
        'export const MODEL = "gpt-4o-mini";\n'))
    (template,) = load_templates(str(path))
    assert [(m.role, m.content) for m in template.messages] == [
        ("system", f"You turn Slack threads into Jira tickets. {RULES}")]
    assert template.variables == {}
    assert findings(path) == []  # before: refused, "no prompt found in this Typescript module"


def test_a_system_message_object_with_the_date_first_is_a_finding(tmp_path):
    path = write(tmp_path, "system.js", (
        "export function systemMessage() {\n"
        "  const message = {\n"
        '    role: "developer",\n'
        f"    content: [{{ type: 'text', text: `Today is ${{new Date().toDateString()}}. {RULES}` }}],\n"
        "  };\n"
        "  return message;\n}\n"))
    (template,) = load_templates(str(path))
    assert [m.role for m in template.messages] == ["system"]
    assert template.messages[0].content == f"Today is {{now}}. {RULES}"
    assert template.variables["now"].kind == "per_day"
    (finding,) = findings(path)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(path, "${new Date()"))
    assert finding["frequency"] == "per_day"


def test_a_message_constant_in_a_call_s_list_is_measured_there_before_the_history(tmp_path):
    path = write(tmp_path, "reply.ts", (
        "import OpenAI from 'openai';\n"
        "const client = new OpenAI();\n"
        "const HELPER = {\n"
        "  role: 'system',\n"
        f"  content: `Ticket desk for ${{process.env.TEAM_NAME}}. {RULES}`,\n"
        "} as const;\n"
        "export async function reply(history: any[], question: string) {\n"
        "  return client.chat.completions.create({\n"
        "    model: 'gpt-4o',\n"
        "    messages: [HELPER, ...history, { role: 'user', content: question }],\n"
        "  });\n}\n"))
    (template,) = load_templates(str(path))
    assert [m.role for m in template.messages] == ["system", "(conversation)", "user"]
    assert template.slot == "history"
    assert template.variables["process_env_team_name"].kind == "stable"  # the deployment's setting
    assert findings(path) == []


def test_objects_with_a_role_that_is_no_chat_role_or_no_text_are_no_messages(tmp_path):
    path = write(tmp_path, "users.ts", (
        "export const ADMIN = { role: 'admin', content: 'Full access to every project and setting.' };\n"
        "export function echo(answer: string) { return { role: 'assistant', content: answer }; }\n"))
    with pytest.raises(NotATemplate, match="no prompt found"):
        load_templates(str(path))


def test_a_message_added_in_the_middle_of_a_conversation_or_a_lone_turn_is_no_prompt_of_its_own(tmp_path):
    # a reminder pushed after the turns so far, an error shown as the assistant's turn, a user's
    # turn built per call: messages of a conversation whose start is elsewhere
    path = write(tmp_path, "loop.ts", (
        "export class Loop {\n"
        "  history: any[] = [];\n"
        "  remind(tool: string) {\n"
        "    this.history.push({ role: 'system', content: `You called ${tool} three times with the same input.` });\n"
        "  }\n"
        "  fail(error: Error) {\n"
        "    const shown = { role: 'assistant', content: `The call failed: ${error.message}. Try again later.` };\n"
        "    return shown;\n"
        "  }\n"
        "}\n"))
    with pytest.raises(NotATemplate, match="no prompt found"):
        load_templates(str(path))


def test_gemini_contents_with_parts_and_the_model_role(tmp_path):
    path = write(tmp_path, "describe.ts", (
        'import { GoogleGenAI } from "@google/genai";\n'
        "const ai = new GoogleGenAI({});\n"
        "export async function describe(image: string) {\n"
        "  return ai.models.generateContent({\n"
        '    model: "gemini-2.5-flash",\n'
        "    contents: [\n"
        f'      {{ role: "user", parts: [{{ text: "You caption photos. {RULES}" }}] }},\n'
        '      { role: "model", parts: [{ text: "Understood." }] },\n'
        '      { role: "user", parts: [{ inlineData: { mimeType: "image/png", data: image } }, { text: "Caption it." }] },\n'
        "    ],\n"
        "  });\n"
        "}\n"))
    (template,) = load_templates(str(path))
    # `model` is Gemini's assistant; a part with no text is the request's own data, where it is sent
    assert [(m.role, m.content) for m in template.messages] == [
        ("user", f"You caption photos. {RULES}"), ("assistant", "Understood."), ("user", "{inline_data}"),
        ("user", "Caption it.")]
    data = template.variables["inline_data"]
    assert (data.kind, data.line) == ("per_request", 9)
    assert data.evidence == "the inlineData part of the message: the request's own data"


def test_an_ai_sdk_ui_message_with_typed_parts_is_what_a_page_shows_not_a_prompt(tmp_path):
    path = write(tmp_path, "page.tsx", (
        "export function onError(error: Error, setMessages: any) {\n"
        "  setMessages((prev: any[]) => [\n"
        "    ...prev,\n"
        f'    {{ role: "system", parts: [{{ type: "text", text: `Sorry: ${{error.message}}. {RULES}` }}], id: "e" }},\n'
        "  ]);\n"
        "}\n"))
    with pytest.raises(NotATemplate):
        load_templates(str(path))
