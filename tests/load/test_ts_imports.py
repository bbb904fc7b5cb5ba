"""A prompt constant imported from another module of the repository (issue 19 item 4): read from
that module's top-level `const`, its characters placed at the name's use, its `${...}` values
per process (the module is evaluated once); a package, a default import or a module outside the
repository is not followed. Each module is written here in our own words."""

from __future__ import annotations

from prefixlint.load.registry import load_templates
from tests.load.test_ts_assembly import write
from tests.test_python_source import findings, where

RULES = "Answer questions about bread, opening hours and allergens in short sentences. Keep it kind."
PROMPTS = (f'const RULES = "{RULES}";\n'                         # 1
           "export const SYSTEM_PROMPT = `You are the assistant of a bakery.\n"  # 2
           "Started: ${new Date().toISOString()}\n"               # 3: evaluated once, at import
           "${RULES}`;\n")


def chat(system: str, imported: str = 'import { SYSTEM_PROMPT as BAKERY } from "./lib/prompts.js";\n') -> str:
    return ('import { streamText } from "ai";\n' + imported +
            "export async function chat(history: Message[]) {\n"
            f"  return streamText({{ model, system: {system}, messages: history }});\n}}\n")


def test_an_imported_constant_is_read_from_its_module_and_placed_at_its_use(tmp_path):
    (tmp_path / "lib").mkdir()
    write(tmp_path / "lib", "prompts.ts", PROMPTS)  # `./lib/prompts.js` names the `.ts` (ESM)
    path = write(tmp_path, "chat.ts", chat("`Now: ${new Date().toISOString()}\\n${BAKERY}`"))
    (template,) = load_templates(str(path))
    assert [(m.role, m.content) for m in template.messages] == [
        ("system", f"Now: {{now}}\nYou are the assistant of a bakery.\nStarted: {{now_2}}\n{RULES}"),
        ("(conversation)", "history")]
    started = template.variables["now_2"]
    assert (started.kind, started.line, started.evidence) == (
        "stable", None, "filled by new Date().toISOString() once per process, at import (prompts.ts:3)")
    system = template.messages[0]
    use = path.read_text().index("${BAKERY}") + 2  # every imported character is at the name `BAKERY`
    assert set(system.offsets[len("Now: {now}\n"):]) == {use}
    (finding,) = findings(path)  # the request's clock, ahead of the imported text and the history
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(path, "${new Date()"))


def test_a_system_prompt_that_is_only_an_imported_constant_is_measured_not_refused(tmp_path):
    write(tmp_path, "prompts.ts", PROMPTS)
    path = write(tmp_path, "chat.ts", chat("SYSTEM_PROMPT", 'import { SYSTEM_PROMPT } from "./prompts";\n'))
    (template,) = load_templates(str(path))
    assert template.messages[0].content == f"You are the assistant of a bakery.\nStarted: {{now}}\n{RULES}"
    assert findings(path) == []  # the module's clock runs once per process


def test_a_module_outside_the_repository_or_a_default_import_is_not_followed(tmp_path):
    write(tmp_path, "prompts.ts", PROMPTS + "export default SYSTEM_PROMPT;\n")
    repository = tmp_path / "app"
    repository.mkdir()
    (repository / ".git").mkdir()
    outside = write(repository, "chat.ts", chat("`${SYSTEM_PROMPT}\\n" + RULES + "`",
                                                'import { SYSTEM_PROMPT } from "../prompts";\n'))
    (template,) = load_templates(str(outside))
    assert template.messages[0].content == "{system_prompt}\n" + RULES
    default = write(tmp_path, "main.ts", chat("`${BAKERY}\\n" + RULES + "`", 'import BAKERY from "./prompts";\n'))
    (template,) = load_templates(str(default))
    assert template.messages[0].content == "{bakery}\n" + RULES


def test_fields_an_imported_template_is_filled_with_point_at_the_replace_that_fills_them(tmp_path):
    write(tmp_path, "prompts.ts", "export const TEMPLATE = `TOOLS: {{tools}}\nINPUT: {{input}}\n" + RULES * 5 + "`;\n")
    path = write(tmp_path, "agent.ts", (
        'import { TEMPLATE } from "./prompts";\n'
        "export function buildToolPrompt(input: string) {\n"
        "  return TEMPLATE.replace('{{tools}}', 'web_search')\n"
        "    .replace('{{input}}', input);\n}\n"))
    (finding,) = findings(path)  # before: at `TEMPLATE`, named by another field's text
    assert (finding["code"], finding["variable"], finding["placeholder"]) == ("PFX005", "input", "{{input}}")
    assert (finding["line"], finding["column"]) == where(path, "{{input}}', input")
