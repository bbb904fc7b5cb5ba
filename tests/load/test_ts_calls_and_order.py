"""TypeScript/JavaScript values by scope and call, texts by statement order (issue 19 items 4, 5, 7).

- A module-level template literal is evaluated once per process whatever it interpolates; a
  function named without a call (`${getTime}`) is its own source text; inside a function, a
  called local function gives the clock it returns; a callback passed to a call runs there;
  `moment()` is the clock, its `.format(...)` deciding how often it changes.
- A ternary of two texts is the fuller one; a function returning `{ role, content } as const`
  and a list of role-named message calls (`OpenAIChatMessage.system(text)`, `new SystemMessage`)
  are chats.
- A `let` is read where it is used: the statements before that place, a plain reassignment in
  the declaring block replacing what came before; a function defined there reads it when called.
- A function returning a list of its local message constants is a chat in that order.
- A list named beside a system prompt (`system: rules, messages: history`) is the conversation.
- A prompt that is a package's imported text is nothing to measure in the file, not a refusal.
Each module is written here in our own words with the structure of a real one."""

from __future__ import annotations

import json

import pytest

from prefixlint.load.registry import NotATemplate, load_templates
from prefixlint.load.ts_grammar import parse, walk
from tests.load.test_ts_assembly import write
from tests.test_python_source import findings, run, where

RULES = " ".join(f"Rule {i}: answer questions about bread, opening hours and allergens in short sentences."
                 for i in range(12))
CLOCK = "const getTime = () => new Date().toLocaleString();\n"


def test_a_module_level_template_is_evaluated_once_and_a_function_reference_is_not_a_call(tmp_path):
    path = write(tmp_path, "prompt.ts", CLOCK + (
        "export const SYSTEM_PROMPT = `You are the night-shift assistant of a bakery.\n"  # 2
        "- Clock: ${getTime}\n"                                                         # 3: the function itself
        "- Started: ${getTime()}\n"                                                     # 4: a call, at import
        f"{RULES}`;\n"))
    (template,) = load_templates(str(path))
    reference, started = template.variables["get_time"], template.variables["get_time_2"]
    assert (reference.kind, reference.line, reference.evidence) == (
        "stable", 3, "getTime is a function, not called: its text is its own source")
    assert (started.kind, started.line, started.evidence) == (
        "stable", 4, "filled by getTime() once per process, at import")
    assert findings(path) == []  # before: PFX001 ${getTime}, "filled by () => new Date().toLocaleString()"


def test_inside_a_function_a_called_clock_is_per_request(tmp_path):
    path = write(tmp_path, "prompt.ts", CLOCK + (
        "export function shiftPrompt(): string {\n"                                    # 2
        "  return `You are the night-shift assistant of a bakery. Now: ${getTime()}.\n"  # 3
        f"{RULES}`;\n}}\n"))
    (template,) = load_templates(str(path))
    now = template.variables["get_time"]
    assert (now.kind, now.line, now.evidence) == (
        "per_request", 1, "filled by new Date().toLocaleString(), returned by getTime()")
    (finding,) = findings(path)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(path, "${getTime()}"))


def test_a_returned_system_message_with_an_optional_section_in_a_ternary(tmp_path):
    path = write(tmp_path, "system.ts", (
        "export function bakeryPrompt(profile?: string) {\n"
        "  const base = `\nYou are the assistant of a bakery.\n" + RULES + "\n`.trim();\n"
        "  return {\n"
        '    role: "system",\n'
        "    content: profile ? `${base}\\n\\nCustomer profile:\\n${profile}` : base,\n"
        "  } as const;\n}\n"))
    (template,) = load_templates(str(path))  # before: refused, "no prompt found in this Typescript module"
    assert [(m.role, m.content) for m in template.messages] == [
        ("system", f"You are the assistant of a bakery.\n{RULES}\n\nCustomer profile:\n{{profile}}")]
    assert findings(path) == []  # a per-user value last: the same on every turn, the history after it reused


def test_role_named_message_calls_in_a_list(tmp_path):
    path = write(tmp_path, "messages.ts", (
        'import { OpenAIChatMessage } from "modelfusion";\n'
        'import { SystemMessage, HumanMessage } from "@langchain/core/messages";\n'
        "export const describeLoaf = ({ loaf }: { loaf: string }) =>\n"
        "  send([OpenAIChatMessage.system(`Describe the loaf ${loaf} in one warm sentence for the window`)]);\n"
        "export async function answer(history: Message[], question: string) {\n"
        f'  return model.invoke([new SystemMessage("{RULES}"), ...history, new HumanMessage(question)]);\n}}\n'))
    loaf, answer = load_templates(str(path))  # before: refused, "no prompt found in this Typescript module"
    assert [(m.role, m.content) for m in loaf.messages] == [
        ("system", "Describe the loaf {loaf} in one warm sentence for the window")]
    assert [(m.role, m.content) for m in answer.messages] == [
        ("system", RULES), ("(conversation)", "history"), ("user", "{question}")]


def test_a_let_is_read_where_it_is_used_with_a_reassignment_replacing_the_draft(tmp_path):
    path = write(tmp_path, "orders.ts", (
        "export async function answer(history: Message[], rush: boolean, customer: string) {\n"
        "  let rules = `Draft text that the next statement replaces.`;\n"
        f"  rules = `You take bread orders for the bakery. {RULES}`;\n"
        "  if (rush) rules = `Rush order for ${customer}`;\n"            # under a condition: may not run
        "  const request = { model: MODEL, system: rules, messages: history };\n"
        "  rules += `\\nLogged at ${new Date().toISOString()}`;\n"       # after the use: not in the request
        "  log(rules);\n"
        "  return client.messages.create(request);\n}\n"))
    (template,) = load_templates(str(path))
    assert [(m.role, m.content) for m in template.messages] == [
        ("system", f"You take bread orders for the bakery. {RULES}"), ("(conversation)", "history")]
    assert template.variables["history"].kind == "conversation"
    assert findings(path) == []  # before: PFX001 ${new Date()...} appended after the request was built


def test_a_clock_in_a_system_prompt_beside_a_declared_message_list_breaks_the_history(tmp_path):
    path = write(tmp_path, "chat.ts", (
        'import { streamText } from "ai";\n'
        "export async function chat(past: Message[], question: string) {\n"
        '  const messages = [...past, { role: "user", content: question }];\n'
        f"  return streamText({{ model, system: `It is ${{new Date().toISOString()}}. {RULES}`, messages }});\n}}\n"))
    (template,) = load_templates(str(path))
    assert [(m.role, m.content) for m in template.messages] == [
        ("system", f"It is {{now}}. {RULES}"), ("(conversation)", "past"), ("user", "{question}")]
    (finding,) = findings(path)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(path, "${new Date()"))
    assert finding["history_tokens"] > 0  # the conversation after the system prompt is what it costs


def test_a_prompt_imported_from_a_package_is_nothing_to_measure_here_not_a_refusal(tmp_path):
    path = write(tmp_path, "chain.ts", (
        'import { BAKERY_TEMPLATE } from "bakery-prompts/templates";\n'
        'import { LLMChain } from "langchain/chains";\n'
        "const chain = new LLMChain({ llm: model, prompt: BAKERY_TEMPLATE, memory });\n"
        'await chain.call({ input: "Two rye loaves, please." });\n'))
    result = run("--format", "json", str(path))
    assert result.exit_code == 0, result.output  # before: exit 2, "no prompt found in this Typescript module"
    report = json.loads(result.stdout)
    assert report["files"] == [] and report["errors"] == []
    assert report["skipped"] == [{"path": str(path), "reason": (
        "its prompt `BAKERY_TEMPLATE` is imported from the package 'bakery-prompts/templates':"
        " nothing of it to measure in this file")}]


def test_a_prompt_imported_from_a_module_of_the_repository_is_still_refused_alone(tmp_path):
    path = write(tmp_path, "chain.ts", (
        'import { BAKERY_TEMPLATE } from "./templates";\n'
        "const chain = new LLMChain({ llm: model, prompt: BAKERY_TEMPLATE });\n"))
    with pytest.raises(NotATemplate):  # its text is in the repository: measured there (not resolved here)
        load_templates(str(path))


def test_a_local_system_message_before_the_spread_history_is_followed_by_it(tmp_path):
    path = write(tmp_path, "reply.ts", (
        f'const RULES = "{RULES}";\n'
        "export async function reply(past: ChatMessage[], question: string) {\n"
        "  const intro = { role: \"system\", content: `Today is ${new Date().toDateString()}. ${RULES}` };\n"
        "  return openai.chat.completions.create({\n"
        '    model: "gpt-4o", messages: [intro, ...past, { role: "user", content: question }] });\n}\n'))
    (template,) = load_templates(str(path))
    assert [(m.role, m.content) for m in template.messages] == [  # before: the system message alone
        ("system", f"Today is {{now}}. {RULES}"), ("(conversation)", "past"), ("user", "{question}")]
    (finding,) = findings(path)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(path, "${new Date()"))


def test_a_function_reads_a_let_when_called_and_a_callback_passed_to_a_call_runs(tmp_path):
    path = write(tmp_path, "late.ts", (
        f'let rules = "{RULES}";\n'
        "export const reply = (question: string) =>\n"        # reads `rules` when called: after line 5
        "  generateText({ model, system: rules, messages: convertToModelMessages(question) });\n"
        "export const stamped = (lines: string[]) => lines.map(() => `${Date.now()}`).join();\n"
        'rules += "\\nAlways end with: Thank you for baking with us.";\n'))
    (template,) = load_templates(str(path))
    assert [(m.role, m.content) for m in template.messages] == [
        ("system", f"{RULES}\nAlways end with: Thank you for baking with us."),
        ("(conversation)", "convertToModelMessages(question)")]  # a list computed beside `system:`
    sites = _sites(path)
    callback = next(n for n in walk(sites.root) if n.type == "call_expression" and n.text.startswith(b"lines.map"))
    assert sites.clock(callback) is not None  # `map` runs its callback: `Date.now()` is read there


def _sites(path):
    from prefixlint.load.ts_fill_sites import FillSites

    text = path.read_text()
    sites = FillSites(text, str(path))
    sites.root = parse(str(path), text)
    return sites


def test_a_returned_list_of_local_messages_with_a_date_library_clock_first(tmp_path):
    path = write(tmp_path, "system.ts", (
        'import moment from "moment";\n'
        "function getSystemMessage(): Message[] {\n"
        "  const clock = { role: 'system', content: `Local time: ${moment().format('YYYY-MM-DD HH:mm')}` };\n"
        "  const day = { role: 'system', content: `Weekday: ${moment().format('dddd')}` };\n"
        "  const born = { role: 'system', content: `Founded: ${moment('1921-04-01').format('YYYY')}` };\n"
        f"  const rules = {{ role: 'system', content: '{RULES}' }};\n"
        "  return [clock, day, born, rules];\n}\n"))
    (template,) = load_templates(str(path))  # before: each message alone, `moment()` no clock: no finding
    assert [m.content for m in template.messages] == [
        "Local time: {now}", "Weekday: {now_2}", "Founded: {value}", RULES]
    clock, day = template.variables["now"], template.variables["now_2"]
    assert (clock.kind, clock.line, clock.evidence) == ("per_request", 3, "filled by moment().format('YYYY-MM-DD HH:mm')")
    assert (day.kind, day.line) == ("per_day", 4)  # `dddd`: the weekday
    assert "value" not in template.variables  # `moment(date)` parses a given date: no clock, its name decides
    first = findings(path)[0]
    assert (first["code"], first["line"], first["column"]) == ("PFX001", *where(path, "${moment().format('YYYY"))
