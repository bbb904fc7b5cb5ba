"""TypeScript/JavaScript prompts assembled after their declaration (issue 19 item 4): `+=`
sections, `push` then `join`, `messages.unshift({role: 'system', ...})` before the history,
`{var}` placeholders filled by `.replace('{var}', ...)`, `text:` parts of a message. Each
module is written here in our own words with the structure of a real one."""

from __future__ import annotations

import pytest

from prefixlint.load.registry import NotATemplate, load_templates
from tests.test_python_source import findings, where

_RULES = ("Answer in the language of the question, cite the page of the handbook that you used, "
          "and say plainly when the handbook does not cover the question asked by the employee. Keep "
          "each answer short, name the team that owns the policy, and never give advice on a matter that "
          "the handbook leaves to a manager, a lawyer or a doctor. Point to the form to fill in when one "
          "exists, and the date the policy was last changed.")


def write(tmp_path, name: str, text: str):
    module = tmp_path / name
    module.write_text(text)
    return module


def test_plus_equals_sections_in_source_order(tmp_path):
    module = write(tmp_path, "prompt.ts", (
        "export function helpdeskPrompt(team: string, extra?: string): string {\n"
        "  let prompt = `You answer questions about the ${team} handbook.`;\n"
        "  if (extra) {\n"
        "    prompt += `\\n\\nNotes: ${extra}`;\n"
        "  }\n"
        f"  prompt += `\\n\\n{_RULES}`;\n"
        "  prompt = prompt + '\\nToday is ' + new Date().toDateString() + '.';\n"
        "  return prompt;\n}\n"))
    (template,) = load_templates(str(module))
    assert template.messages[0].content == (
        "You answer questions about the {team} handbook.\n\nNotes: {extra}\n\n" + _RULES + "\nToday is {now}.")
    assert template.variables["now"].kind == "per_day"


def test_let_in_another_function_is_not_mixed_in(tmp_path):
    module = write(tmp_path, "two.ts", (
        "function first(): string {\n  let prompt = 'You summarise tickets for the support team.';\n"
        "  prompt += ' Keep each summary under five lines.';\n  return prompt;\n}\n"
        "function second(): string {\n  let prompt = 'You translate tickets into English for the team.';\n"
        "  return prompt;\n}\n"))
    contents = sorted(t.messages[0].content for t in load_templates(str(module)))
    assert contents == ["You summarise tickets for the support team. Keep each summary under five lines.",
                        "You translate tickets into English for the team."]


def test_const_string_is_not_grown_by_a_later_shadow(tmp_path):
    module = write(tmp_path, "c.ts", (
        "const systemPrompt = 'You review pull requests for style and naming only.';\n"
        "function other(): string { let systemPrompt = 'x'; systemPrompt += ' y z'; return systemPrompt; }\n"))
    assert [t.messages[0].content for t in load_templates(str(module))][0] == \
        "You review pull requests for style and naming only."


def test_push_then_join(tmp_path):
    module = write(tmp_path, "sections.js", (
        "function buildInstructions(user) {\n"
        "  const sections = ['You plan meals for one week at a time.'];\n"
        "  sections.push(`The person is ${user.name}.`, 'List the shopping at the end.');\n"
        f"  sections.push('{_RULES}');\n"
        "  return sections.join('\\n');\n}\n"))
    (template,) = load_templates(str(module))
    assert template.messages[0].content == (
        "You plan meals for one week at a time.\nThe person is {user_name}.\nList the shopping at the end.\n" + _RULES)


def test_unshift_system_before_the_history_fires_on_the_date(tmp_path):
    module = write(tmp_path, "chat.ts", (
        "import OpenAI from 'openai';\n"
        "function systemText(): string {\n"
        "  const now = new Date().toISOString();\n"
        f"  return `Current time: ${{now}}.\\n{_RULES}`;\n}}\n"
        "export async function reply(client: OpenAI, history: any[]) {\n"
        "  const messages = [...history];\n"
        "  messages.unshift({ role: 'system', content: systemText() });\n"
        "  return client.chat.completions.create({ model: 'gpt-4o', messages });\n}\n"))
    (template,) = load_templates(str(module))
    assert [m.role for m in template.messages][0] == "system" and template.slot == "messages"
    (finding,) = findings(module)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(module, "${now}"))
    assert "new Date().toISOString()" in finding["evidence"]


def test_history_spread_after_the_system_message(tmp_path):
    module = write(tmp_path, "spread.ts", (
        "export function request(history: any[], question: string) {\n"
        f"  return [{{ role: 'system', content: `${{new Date().toDateString()}} {_RULES}` }}, ...history,\n"
        "          { role: 'user', content: question }];\n}\n"))
    (template,) = load_templates(str(module))
    assert [m.role for m in template.messages][:1] == ["system"] and template.slot == "history"
    (finding,) = findings(module)
    assert finding["code"] == "PFX001" and (finding["line"], finding["column"]) == where(module, "${new Date()")


def test_replace_fills_a_placeholder_with_its_value(tmp_path):
    module = write(tmp_path, "fill.ts", (
        # the only user message: the date needs a long block after it (min-tail-tokens), two rules
        f"const TEMPLATE = `Date: {{date}}\\n{_RULES} {_RULES}\\nQuestion: {{question}}`;\n"
        "export async function ask(client: any, question: string) {\n"
        "  const content = TEMPLATE.replace('{date}', new Date().toISOString()).replace(/\\{question\\}/g, question);\n"
        "  return client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content }] });\n}\n"))
    templates = load_templates(str(module))
    filled = [t for t in templates if "{question}" in t.messages[-1].content and "{now}" in t.messages[-1].content]
    assert len(filled) == 1 and len(templates) == 1
    found = findings(module)
    assert [(f["code"], f["line"], f["column"]) for f in found] == [("PFX001", *where(module, "{date}"))]
    assert "new Date().toISOString()" in found[0]["evidence"]


def test_text_part_of_a_message_is_the_prompt(tmp_path):
    module = write(tmp_path, "parts.ts", (
        "import { generateText } from 'ai';\n"
        f"const guide = `Today is ${{new Date().toDateString()}}. {_RULES}`;\n"
        "export async function run(model: any, image: string) {\n"
        "  return generateText({ model, messages: [{ role: 'user', content: [\n"
        "    { type: 'text', text: guide }, { type: 'text', text: 'Describe the photo.' }] }] });\n}\n"))
    (template,) = load_templates(str(module))
    assert template.messages[0].content.startswith("Today is {now}. Answer in")
    assert template.messages[1].content == "Describe the photo."


# -- values by fill site (issue 19 item 5) ------------------------------------------------------

_BIO = (
    "export function buildBioPrompt(ownerName: string, notes: string): string {\n"
    "  return [\n"
    "    `You are the assistant on the home page of ${ownerName}. You answer questions about ${ownerName}.`,\n"
    f"    '{_RULES}',\n"
    "    'Notes:', notes,\n"
    "  ].join('\\n');\n}\n")


def test_parameter_filled_by_the_environment_in_another_module_is_stable(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    module = write(tmp_path / "src", "bio.ts", _BIO)
    write(tmp_path / "src", "worker.ts", (
        "import { buildBioPrompt } from './bio';\n"
        "export default { async fetch(request: Request, env: any) {\n"
        "  const ownerName = env.OWNER_NAME ?? 'Ada';\n"
        "  const notes = await request.text();\n"
        "  return buildBioPrompt(ownerName, notes);\n} };\n"))
    (template,) = load_templates(str(module))
    variable = template.variables["owner_name"]
    assert variable.kind == "stable" and variable.line is None
    assert variable.evidence == "filled by env.OWNER_NAME ?? 'Ada': the same on every request (worker.ts:3)"
    assert [f["placeholder"] for f in findings(module)] == []


def test_parameter_filled_by_the_clock_in_the_same_module_is_volatile(tmp_path):
    module = write(tmp_path, "bio.ts", _BIO.replace("ownerName", "today") + (
        "export const run = () => buildBioPrompt(new Date().toDateString(), 'n');\n"))
    (template,) = load_templates(str(module))
    assert template.variables["today"].kind == "per_day"
    assert template.variables["today"].evidence == "filled by new Date().toDateString()"
    found = findings(module)
    assert [(f["code"], f["line"], f["column"]) for f in found][:1] == [("PFX001", *where(module, "${today}"))]


def test_parameter_with_a_caller_passing_request_data_keeps_the_name_classifier(tmp_path):
    module = write(tmp_path, "bio.ts", _BIO + "export const run = (req: any) => buildBioPrompt(req.body.owner, 'n');\n")
    (template,) = load_templates(str(module))
    assert "{owner_name}" in template.messages[0].content
    assert "owner_name" not in template.variables  # no fill site says what it is: its name decides


def test_process_env_in_a_template_literal_is_stable(tmp_path):
    module = write(tmp_path, "env.ts", (
        "export function systemPrompt(): string {\n"
        f"  return `You are ${{process.env.BOT_NAME}}, the team's assistant. {_RULES}`;\n}}\n"))
    (template,) = load_templates(str(module))
    (variable,) = template.variables.values()
    assert variable.kind == "stable" and variable.evidence.startswith("filled by process.env.BOT_NAME")
    assert findings(module) == []


# -- LangChain.js prompt objects, constant message lists spread into a call ----------------------

def test_langchain_js_chat_prompt_with_placeholder_and_literal_fills(tmp_path):
    module = write(tmp_path, "chain.ts", (
        "import { ChatPromptTemplate, MessagesPlaceholder } from '@langchain/core/prompts';\n"
        "const chatPrompt = ChatPromptTemplate.fromMessages([\n"
        f"  ['system', 'You translate from {{source}} to {{target}}. {_RULES}'],\n"
        "  new MessagesPlaceholder('history'),\n  ['human', '{question}'],\n]);\n"
        "export const run = (question: string) => chatPrompt.invoke({ source: 'English', target: 'French', question });\n"))
    (template,) = load_templates(str(module))
    assert [m.role for m in template.messages] == ["system", "(conversation)", "user"] and template.slot == "history"
    assert template.messages[0].content.startswith("You translate from {source} to {target}. Answer")
    assert (template.variables["source"].kind, template.variables["source"].samples) == ("stable", ("English",))
    assert "question" not in template.variables  # a shorthand property: the caller's value, not known here
    assert findings(module) == []


def test_langchain_js_date_in_the_system_message_before_the_history(tmp_path):
    module = write(tmp_path, "agent.js", (
        "import { ChatPromptTemplate } from '@langchain/core/prompts';\n"
        "export function makePrompt() {\n  return ChatPromptTemplate.fromMessages([\n"
        f"    ['system', `Today is ${{new Date().toDateString()}}. {_RULES}`],\n"
        "    ['placeholder', '{chat_history}'],\n    ['human', '{input}'],\n  ]);\n}\n"))
    (template,) = load_templates(str(module))
    assert template.slot == "chat_history"
    (finding,) = findings(module)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(module, "${new Date()"))


def test_constant_message_list_spread_ahead_of_the_user_turn(tmp_path):
    module = write(tmp_path, "review.ts", (
        "const PRIMER = [{ role: 'system', content: 'You review code.' },\n"
        f"  {{ role: 'assistant', content: '{_RULES}' }}];\n"
        "export const build = (diff: string) => [...PRIMER, { role: 'user', content: `Diff:\\n${diff}` }];\n"))
    (template,) = load_templates(str(module))
    assert [m.role for m in template.messages] == ["system", "assistant", "user"]
    assert template.slot is None  # a constant list is not the conversation


def test_function_returning_a_system_message_object_grown_by_plus_equals(tmp_path):
    module = write(tmp_path, "sys.js", (
        "export function getSystemPrompt(extra = '') {\n"
        "  const stamp = new Date().toISOString();\n"
        f"  let content = `Now: ${{stamp}}\\n{_RULES}`;\n"
        "  if (extra) {\n    content += `\\n${extra}`;\n  }\n"
        "  return { role: 'system', content };\n}\n"))
    (template,) = load_templates(str(module))
    assert [m.role for m in template.messages] == ["system"]
    assert template.messages[0].content == "Now: {stamp}\n" + _RULES + "\n{extra}"
    found = findings(module)
    assert (found[0]["code"], found[0]["line"], found[0]["column"]) == ("PFX001", *where(module, "${stamp}"))


def test_text_constant_and_function_named_as_a_system_message_are_system_prompts(tmp_path):
    module = write(tmp_path, "consts.ts", (
        f"export const BOT_SYSTEM_MESSAGE = `{_RULES}`;\n"
        "export const makeSystemMessage = (who: string) => `You are ${who}.`;\n"
        "export const systemMessageCount = (items: string[]) => items.length;\n"))  # no text: no prompt
    templates = load_templates(str(module))
    assert [(t.prompt_name, t.messages[0].role) for t in templates] == [
        ("BOT_SYSTEM_MESSAGE", "system"), ("makeSystemMessage", "system")]
    assert templates[1].messages[0].content == "You are {who}."


def test_a_loop_variable_is_named_by_its_list(tmp_path):
    module = write(tmp_path, "ctx.ts", (
        "export function buildSystemPrompt(persona: string, documents: string[]): string {\n"
        "  const parts: string[] = [persona];\n"
        "  for (const doc of documents) {\n    parts.push(`- ${doc}`);\n  }\n"
        f"  parts.push('{_RULES}');\n  return parts.join('\\n');\n}}\n"))
    (template,) = load_templates(str(module))
    assert template.messages[0].content == "{persona}\n- {documents}\n" + _RULES


def test_a_value_destructured_from_a_helper_is_filled_by_the_helper(tmp_path):
    module = write(tmp_path, "system.ts", (
        "function clock(zone: string) {\n  const now = new Date();\n"
        "  const day = now.toLocaleDateString('en-US', { timeZone: zone });\n  return { day, now };\n}\n"
        "export const systemPrompt = (zone: string) => {\n  const { day } = clock(zone);\n"
        f"  return `Today is ${{day}}.\\n{_RULES}`;\n}};\n"))
    (template,) = load_templates(str(module))
    variable = template.variables["day"]
    assert variable.kind == "per_day" and variable.evidence.startswith("filled by now.toLocaleDateString(")
    (finding,) = findings(module)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(module, "${day}"))


def test_unshift_into_a_request_built_here_is_not_the_history(tmp_path):
    module = write(tmp_path, "once.ts", (
        "export async function ask(client: any, question: string) {\n"
        "  const messages = [{ role: 'user', content: question }];\n"
        f"  messages.unshift({{ role: 'system', content: `{_RULES}` }});\n"
        "  return client.chat.completions.create({ model: 'gpt-4o', messages });\n}\n"))
    (template,) = load_templates(str(module))
    assert [m.role for m in template.messages] == ["system", "user"] and template.slot is None


def test_a_constant_prompt_with_format_fields_is_filled_later_as_in_python(tmp_path):
    """A prompt constant with no `${...}` but `{name}` fields (filled later by a `.replace` or a
    helper in another module) has those fields as placeholders, as a Python constant has; `{{x}}`,
    `${x}` and a JSON example are not such fields."""
    module = write(tmp_path, "prompts.js", (
        "export const DETAIL_PROMPT = `Meeting transcript so far:\n{transcript}\n\n"
        f"{_RULES}\nAnswer with JSON such as {{\"answer\": \"...\"}}.`;\n"))
    (template,) = load_templates(str(module))
    assert template.messages[0].content.startswith("Meeting transcript so far:\n{transcript}\n")
    (finding,) = [f for f in findings(module) if f["code"] == "PFX005"]
    assert (finding["variable"], finding["line"], finding["column"]) == ("transcript", 2, 1)


def test_an_html_page_named_like_a_template_is_no_prompt(tmp_path):
    """An e-mail body built as HTML (`getEmailTemplate()` for a mail API's `html:`) is mostly
    tags with attributes: no model reads it. A prompt's own `<context>` markers do not count."""
    page = ('export function getEmailTemplate(name: string): string {\n  return `\n'
            '    <div style="font-family: sans-serif; max-width: 600px; margin: 0 auto;">\n'
            '      <h2 style="margin: 0; font-size: 20px; color: #1e293b;">New feedback from ${name}</h2>\n'
            '      <p style="color: #475569;">Open the dashboard to read it.</p>\n    </div>`;\n}\n')
    module = write(tmp_path, "mail.ts", page + "export const answerPrompt = (docs: string, question: string) =>\n"
                   f"  `<context>\\n${{docs}}\\n</context>\\n{_RULES}\\n<question>${{question}}</question>`;\n")
    assert [t.prompt_name for t in load_templates(str(module))] == ["answerPrompt"]
    alone = write(tmp_path, "only_mail.ts", page)
    with pytest.raises(NotATemplate):
        load_templates(str(alone))
