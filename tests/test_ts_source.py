"""Prompts in TypeScript and JavaScript, read with tree-sitter: template literals, `${...}` at
their exact line and column, constants and prompt-building functions inlined, SDK calls as chats.

Fixtures (tests/fixtures/sources/) follow real structures: a chatbot whose request-hints geo
block sits between two long static prompts, a research agent with `${today}` and an iteration
counter ahead of about 300 lines of examples, and a clean bot (its name a constant, the
question last). Renders are spelled out here and tokenized with o200k_base.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from prefixlint.load.registry import load_templates
from prefixlint.load.source_text import FORMAT_FIELD
from prefixlint.match.prefix import shared_prefix
from prefixlint.render.history import CURRENT, TURNS
from prefixlint.render.values import GENERATED
from prefixlint.tokenize import load_tokenizer
from tests.load.test_formats import GENERATION, chatml, encode_pieces, vllm_reusable
from tests.test_python_source import FIXTURES, findings, run, where


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("o200k_base")


def between(text: str, start: str, end: str) -> str:
    return text[text.index(start) + len(start) : text.index(end, text.index(start))]


def test_chatbot_geo_block_between_two_static_prompts(tok):
    path = FIXTURES / "chatbot_prompts.ts"
    text = path.read_text()
    found = findings(path)
    # latitude and longitude are the user's location too (classified by their words, issue 11 item 3)
    assert [(f["code"], f["line"], f["column"], f["placeholder"]) for f in found] == [
        ("PFX003", *where(path, f"${{requestHints.{key}}}"), f"${{requestHints.{key}}}")
        for key in ("latitude", "longitude", "city", "country")
    ]
    assert (found[0]["line"], found[0]["column"]) == (37, 8)
    assert {f["source"] for f in found} == {"typescript"} and {f["prompt"] for f in found} == {"systemPrompt"}
    # systemPrompt's last return: regularPrompt, the request hints, artifactsPrompt (inlined)
    regular = between(text, "'You are a friendly", "';")
    artifacts = between(text, "artifactsPrompt = `", "`;").replace("\\`", "`")
    hints = "About the origin of user's request:\n- lat: {}\n- lon: {}\n- city: {}\n- country: {}\n"
    first = GENERATED["person_name"][0]  # the other three keep their first value
    # a system prompt on its own: served followed by the conversation (issue 11, item 4)
    requests = [chatml([("system", "You are a friendly" + regular + "\n\n"
                         + hints.format(latitude, first, first, first) + "\n\n" + artifacts), *TURNS,
                        ("user", CURRENT)])
                + GENERATION for latitude in GENERATED["person_name"]]
    a, b = encode_pieces(tok, requests[0]), encode_pieces(tok, requests[1])
    assert (found[0]["tokens"], found[0]["shared_prefix_tokens"]) == (len(a), shared_prefix(a, b))
    assert found[0]["reusable_tokens"] == vllm_reusable(shared_prefix(a, b), len(b))


def test_research_agent_today_and_iteration_ahead_of_examples(tok):
    path = FIXTURES / "research_agent.ts"
    text = path.read_text()
    today, iteration = findings(path)
    assert (today["code"], today["line"], today["column"]) == ("PFX001", *where(path, "${today}"))
    assert (iteration["code"], iteration["line"], iteration["column"]) == ("PFX004", *where(path, "${iteration}"))
    assert (today["line"], today["column"], iteration["line"], iteration["column"]) == (7, 57, 8, 19)
    # `today` is `new Date().toISOString().split("T")[0]`: a date, changing every day
    assert (today["variable"], today["frequency"]) == ("today", "per_day")
    assert today["prompt"] == "generateText"  # system: researchSystemPrompt(...), prompt: question
    body = between(text, "return `", "`;\n}")
    question = GENERATED["paragraph"][0]
    requests = [chatml([("system", body.replace("${today}", day).replace("${iteration}", "3")
                         .replace("${maxIterations}", "max iterations")), ("user", question)])
                + GENERATION for day in GENERATED["iso_date"]]
    a, b = encode_pieces(tok, requests[0]), encode_pieces(tok, requests[1])
    assert len(body.split("\n")) > 300
    assert (today["tokens"], today["shared_prefix_tokens"]) == (len(a), shared_prefix(a, b))


def test_clean_bot_name_constant_and_question_last():
    path = FIXTURES / "clean_chat.ts"
    result = run(str(path))
    assert result.exit_code == 0, result.output
    (template,) = load_templates(str(path))
    assert [m.role for m in template.messages] == ["system", "user"]
    assert template.messages[0].content.startswith("You are Ada, the support assistant")
    # the inlined constant points at where its text is written
    assert template.source[template.messages[0].offsets[len("You are ")]:].startswith('Ada";')


@pytest.mark.parametrize("suffix", [".js", ".mjs", ".cjs", ".jsx", ".tsx"])
def test_javascript_and_tsx_grammars(tmp_path, suffix):
    module = tmp_path / f"agent{suffix}"
    module.write_text(
        "export function chat(question) { const sessionId = crypto.randomUUID();\n"  # per call
        "  const messages = [\n"
        "  { role: 'system', content: `Session ${sessionId}.\\n" + "Follow the support policy closely. " * 16 + "` },\n"
        "  { role: 'user', content: question },\n"
        "]; return messages; }\n")
    (finding,) = findings(module)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX002", 3, 39)
    assert finding["source"] == ("typescript" if suffix == ".tsx" else "javascript")


def test_no_prompt_and_non_ascii_columns(tmp_path):
    module = tmp_path / "util.ts"
    module.write_text("export const add = (a: number, b: number) => a + b;\n")
    result = run(str(module))
    assert result.exit_code == 2 and "no prompt found in this Typescript module" in result.output
    accented = tmp_path / "prompt.ts"
    accented.write_text("const PROMPT = (user) => `Café — «${user.email}» " + "Réponds poliment. " * 20 + "`;\n")
    (finding,) = findings(accented)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX003", 1, 35)


def test_checking_a_typescript_file_imports_tree_sitter_only_then():
    code = ("import sys; from prefixlint.load.registry import load_templates; import prefixlint.load.python_source;"
            " assert 'tree_sitter' not in sys.modules;"
            f" load_templates({str(FIXTURES / 'clean_chat.ts')!r}); assert 'tree_sitter' in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_suppression_comments_in_source(tmp_path):
    module = tmp_path / "agent.ts"
    module.write_text(
        "// prefixlint: disable-file PFX002 -- the session id is what this prompt is about\n"
        "export const SYSTEM_PROMPT = (sessionId) => `Session ${sessionId}.\\n"
        + "Follow the support policy closely. " * 16 + "`;\n")
    assert findings(module) == []
    python = tmp_path / "agent.py"
    python.write_text('def agent_prompt(session_id):\n  return (f"Session {session_id}. "  # prefixlint: disable-line PFX002\n'
                      '    "' + "Follow the support policy closely. " * 16 + '")\n')
    assert findings(python) == []


def test_tagged_dedent_template(tmp_path):
    module = tmp_path / "planner.ts"
    module.write_text('import dedent from "dedent";\nexport function systemPrompt() { return dedent`\n'
                      "    You are a planner. The current time is ${new Date().toLocaleTimeString()}.\n"
                      "    Plan the user's trip step by step, and list the bookings to make in order.\n"
                      "    Prefer trains to flights under 600 km, and hotels near the station.\n`; }\n")
    (template,) = load_templates(str(module))
    assert template.messages[0].content.startswith("\nYou are a planner. The current time is {now}.\nPlan")
    (finding,) = findings(module)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(module, "${new Date()"))
    assert finding["frequency"] == "per_request"


@given(st.text(alphabet=st.sampled_from(list("ab {}$`\\'\"\n\té😀\u2028")), max_size=30))
def test_string_literal_values_and_offsets(value):
    """Any JavaScript string literal (as JSON writes it): the prompt's text is its value, and each
    character written as itself points at itself (a `{name}` field in a constant prompt is a
    placeholder, filled later: `test_a_constant_prompt_with_format_fields_is_filled_later_as_in_python`)."""
    value += " tail text"
    assume(not FORMAT_FIELD.search(value))
    source = f"const PROMPT = {json.dumps(value, ensure_ascii=False)};\n"
    (template,) = load_templates("prompt.ts", source)
    (message,) = template.messages
    assert message.content == value.replace("{", "{{").replace("}", "}}")
    for char, offset in zip(message.content, message.offsets):
        if source[offset] != "\\":
            assert source[offset] == char


def test_prompt_like_property_in_preset_objects(tmp_path):
    """`systemPrompt:` in an array of presets, its text passed through a `frame(...)` helper whose
    parameter is bound to the call's argument; `{NAME}` fields are the application's; a value
    without a blank (`promptId: "cook"`) is not a prompt."""
    module = tmp_path / "presets.ts"
    module.write_text(
        "const frame = (body: string) => `<system>\\n${body.trim()}\\n</system>`\n"
        "export const PRESETS = [\n"
        "  { promptId: 'cook', systemPrompt: frame(`\n"
        "Now: {CURRENT_DATETIME}. " + "Plan the meal step by step. " * 12 + "\n`) },\n"
        "]\n")
    (template,) = load_templates(str(module))
    assert template.messages[0].role == "system"
    assert template.messages[0].content.startswith("<system>\nNow: {CURRENT_DATETIME}. Plan the meal")
    assert template.messages[0].content.endswith("step by step.\n</system>")
    (finding,) = findings(module)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", 4, 6)
    settings = tmp_path / "settings.js"
    settings.write_text("const S = { saneDefaultSystemPrompt: 'Answer the question.', promptId: 'x' };\n")
    (template,) = load_templates(str(settings))
    assert [m.content for m in template.messages] == ["Answer the question."]
