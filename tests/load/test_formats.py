"""The template formats teams already use: Prompty, Dotprompt, LangChain, Semantic Kernel,
promptfoo and Hugging Face chat templates, read from files written for these tests
(tests/fixtures/formats/). Positions were checked by hand against the files and are checked
again here against the text; numbers are recomputed from renders spelled out by hand."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.cli import cli
from prefixlint.load.discover import discover
from prefixlint.load.registry import load_template, load_templates
from prefixlint.load.template import SLOT_ROLE
from prefixlint.match.prefix import shared_prefix
from prefixlint.render.compile import compile_template
from prefixlint.tokenize import load_tokenizer
from tests.oracles import vllm_reusable
from tests.realfiles import real_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "formats"

# (file under fixtures/formats, code, line, column, placeholder as written there)
EXPECTED = [
    ("prompty/support_agent.prompty", "PFX001", 27, 21, "{{current_time}}"),
    ("dotprompt/support.prompt", "PFX001", 16, 7, "{{now}}"),
    ("humanloop/onboarding.prompt", "PFX003", 9, 22, "{{user_name}}"),
    ("langchain/answer_prompt.json", "PFX001", 5, 30, "{current_date}"),
    ("langchain/antonyms_few_shot.yaml", "PFX002", 4, 18, "{session_id}"),
    ("semantic_kernel/support_chat.yaml", "PFX001", 5, 35, "{{time.today}}"),
    ("promptfoo/prompts/support_chat.json", "PFX003", 4, 36, "{{ user_name }}"),
    ("promptfoo/prompts/summaries.txt", "PFX001", 7, 20, "{{ received_time }}"),
]
CLEAN = [
    "prompty/support_agent_fixed.prompty", "prompty/mustache_history.prompty", "dotprompt/support_fixed.prompt",
    "humanloop/clean_short.prompt",
    "langchain/mustache_chat.yaml", "semantic_kernel/trip_planner_handlebars.yaml", "chat_template/chatml.jinja",
    # `{user_name}` near the system prompt's end, then the history: constant within a conversation,
    # it costs only the 7 tokens between it and the history (issue 11, item 4)
    "langchain/support_chat_hub.json",
]
# (file, line, column or None, words of the message)
MALFORMED = [
    ("prompty/malformed.prompty", 7, 1, "malformed YAML"),
    ("dotprompt/malformed.prompt", 9, 1, "unclosed block {{#if}}"),
    ("humanloop/malformed.prompt", 6, None, "a Humanloop chat prompt holds <system>, <user> or <assistant> tags"),
    ("langchain/malformed.json", 5, 1, "malformed JSON"),
    ("semantic_kernel/malformed.yaml", 2, None, "unknown template_format 'liquid'"),
    ("promptfoo_malformed/promptfooconfig.yaml", 3, None, "cannot read prompts/missing.txt"),
    # at the `for` left open, not where Jinja gave up
    ("chat_template/malformed.jinja", 1, 1, "the `{% for %}` opened on line 1 is never closed: add `{% endfor %}`"),
]
FORMATS = {
    "prompty/support_agent.prompty": "prompty", "dotprompt/support.prompt": "dotprompt",
    "humanloop/onboarding.prompt": "humanloop",
    "langchain/answer_prompt.json": "langchain", "langchain/antonyms_few_shot.yaml": "langchain",
    "langchain/mustache_chat.yaml": "langchain", "semantic_kernel/support_chat.yaml": "semantic-kernel",
    "promptfoo/promptfooconfig.yaml": "promptfoo", "chat_template/chatml.jinja": "hf-chat-template",
}


def run(*args: str):
    return CliRunner().invoke(cli, ["check", "--isolated", *args])


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("o200k_base")


@pytest.fixture(scope="module")
def report():
    files = sorted({row[0] for row in EXPECTED if not row[0].startswith("promptfoo/")} | set(CLEAN))
    result = run("--format", "json", *(str(FIXTURES / f) for f in files), str(FIXTURES / "promptfoo/promptfooconfig.yaml"))
    assert result.exit_code == 1, result.output
    return {Path(f["path"]).relative_to(FIXTURES).as_posix(): f for f in json.loads(result.stdout)["files"]}


def chatml(messages) -> list[str]:
    """ChatML-approximation pieces, each tokenized on its own (markers and the text between)."""
    return [p for role, content in messages for p in ("<|im_start|>", role, "<|im_sep|>", content, "<|im_end|>") if p]


#: The generation prompt of the approximation, in its pieces.
GENERATION = ["<|im_start|>", "assistant", "<|im_sep|>"]


def encode_pieces(tok, pieces) -> list[int]:
    return [i for piece in pieces for i in tok.encode(piece)]


@pytest.mark.parametrize(("name", "fmt"), FORMATS.items())
def test_each_format_is_recognised(name, fmt):
    assert load_templates(str(FIXTURES / name))[0].format == fmt


def test_exact_codes_lines_and_columns(report):
    found = sorted((name, f["code"], f["line"], f["column"], f["placeholder"])
                   for name, entry in report.items() for f in entry["findings"])
    assert found == sorted(EXPECTED)
    for name in CLEAN:
        assert report[name]["findings"] == [] and report[name]["error"] is None
    assert report["promptfoo/promptfooconfig.yaml"]["findings"] == []  # its inline prompt is clean


@pytest.mark.parametrize("row", EXPECTED, ids=lambda row: row[0])
def test_positions_point_at_the_placeholder_as_written(row):
    name, _code, line, column, placeholder = row
    text_line = (FIXTURES / name).read_text(encoding="utf-8").split("\n")[line - 1]
    assert text_line[column - 1 :].startswith(placeholder)


@pytest.mark.parametrize(("name", "line", "column", "words"), MALFORMED, ids=lambda v: str(v))
def test_malformed_files_are_located_errors_and_others_still_checked(name, line, column, words):
    path = FIXTURES / name
    good = FIXTURES / "langchain/answer_prompt.json"
    result = run(str(path), str(good))
    assert result.exit_code == 2
    where = f"{path}:{line}:{column}:" if column else f"{path}:{line}:"
    assert f"prefixlint: error: {where}" in result.stderr, result.stderr
    assert words in result.stderr
    assert f"{good}:5:30: PFX001" in result.stdout  # the other file is still checked
    assert "Traceback" not in result.output


def prompty_messages(name: str, values: dict):
    """A Prompty file rendered, then split at its role lines, as Prompty does."""
    from prefixlint.render.conversation import split_roles

    template = load_template(str(FIXTURES / name))
    (rendered,) = compile_template(template).render(values, {})
    return split_roles(rendered, template.role_line)


def test_prompty_front_matter_roles_and_samples():
    from prefixlint.render.history import TURNS, History

    template = load_template(str(FIXTURES / "prompty/support_agent.prompty"))
    assert template.is_chat and template.role_markers
    assert template.variables["customer_name"].samples[0] == "Jane Doe"
    assert template.variables["question"].samples == ("Where is my order?",)
    assert template.variables["chat_history"].kind == "conversation" and template.slot == "chat_history"
    messages = prompty_messages("prompty/support_agent.prompty", {
        "current_time": "09:26", "customer_name": "Jane Doe", "question": "Where is my order?",
        "chat_history": History()})
    # the history loop writes `role:` lines, so its turns become messages of their own
    assert [m.role for m in messages] == ["system", *(role for role, _ in TURNS), "user"]
    assert [m.text for m in messages[1:-1]] == [content for _, content in TURNS]
    assert messages[0].text.startswith("You are the support assistant of Contoso Outdoor")
    assert messages[0].text.endswith("is upset or asks for one.")
    assert messages[-1].text == "Jane Doe asks: Where is my order?"


BODY_ONLY = "system:\nYou are a trail guide for {{hiker}}. Answer in two sentences.\n\nuser:\n{{question}}\n"


def test_prompty_without_front_matter_is_the_body_alone(tmp_path):
    """Prompty's loader reads a file without `---` front matter as a body alone: the role lines
    still split it, and its placeholders are read from the body (no `inputs` to declare them)."""
    path = tmp_path / "guide.prompty"
    path.write_text(BODY_ONLY)
    template = load_template(str(path))
    assert template.format == "prompty" and template.is_chat and template.variables == {}
    (rendered,) = compile_template(template).render({"hiker": "Sam", "question": "Where?"}, {})
    from prefixlint.render.conversation import split_roles

    messages = split_roles(rendered, template.role_line)
    assert [(m.role, m.text) for m in messages] == [
        ("system", "You are a trail guide for Sam. Answer in two sentences."), ("user", "Where?")]


def test_prompty_front_matter_left_open_is_named(tmp_path):
    path = tmp_path / "open.prompty"
    path.write_text("---\nname: Guide\nmodel: {api: chat}\n" + BODY_ONLY)
    result = CliRunner().invoke(cli, ["check", str(path)])
    assert result.exit_code == 2, result.output
    assert f"prefixlint: error: {path}:1:" in result.stderr
    assert "the Prompty front matter has no closing `---` line" in result.stderr
    assert "Traceback" not in result.output


def test_prompty_mustache_renders_the_history_section():
    from prefixlint.render.history import TURNS, History

    template = load_template(str(FIXTURES / "prompty/mustache_history.prompty"))
    assert template.syntax == "mustache" and template.variables["history"].kind == "conversation"
    messages = prompty_messages("prompty/mustache_history.prompty", {"hiker": "Sam", "history": History()})
    assert [m.role for m in messages] == ["system", *(role for role, _ in TURNS), "user"]
    assert messages[0].text.startswith("Hello Sam! You are a trail guide")
    assert messages[-1].text == "Which hike do you recommend this weekend?"


def test_dotprompt_roles_history_slot_and_defaults():
    template = load_template(str(FIXTURES / "dotprompt/support.prompt"))
    assert [m.role for m in template.messages] == ["system", SLOT_ROLE, "user"]
    assert template.messages[1].content == "{{history}}"
    assert template.variables["customer"].samples == ("a Contoso customer",)
    assert set(template.variables) == {"now", "customer", "question"}
    assert template.syntax == "handlebars"


def test_humanloop_tags_are_messages_dedented_in_place():
    template = load_template(str(FIXTURES / "humanloop/onboarding.prompt"))
    text = template.source
    assert [m.role for m in template.messages] == ["system", "user"] and template.is_chat
    system = template.messages[0]
    written = text[text.index("<system>\n") + len("<system>\n") : text.index("\n</system>")]
    assert system.content == "\n".join(line[2:] for line in written.split("\n"))
    # every character of the dedented content points at itself in the file
    assert all(text[offset] == char for char, offset in zip(system.content, system.offsets))
    assert template.messages[1].content == "{{question}}"


def test_a_value_ahead_of_the_conversation_slot_is_a_finding(tmp_path, report, tok):
    """Dotprompt's support.prompt has little stable text after {{now}} but the history: its
    finding exists because the earlier turns are reusable prefix. Recomputed by hand."""
    from prefixlint.render.history import TURNS
    from prefixlint.render.values import GENERATED

    history = chatml(TURNS)
    question = GENERATED["paragraph"][0]
    requests = [
        chatml([("system", f"It is {moment}. You are the Contoso Outdoor support assistant.")]) + history
        + chatml([("user", f"I am a Contoso customer. {question}")]) + GENERATION
        for moment in GENERATED["iso_datetime"]
    ]
    a, b = encode_pieces(tok, requests[0]), encode_pieces(tok, requests[1])
    (finding,) = report["dotprompt/support.prompt"]["findings"]
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(b), shared_prefix(a, b))
    assert finding["reusable_tokens"] == vllm_reusable(shared_prefix(a, b), len(b))
    # Without the slot, the same date has too little stable text after it to matter.
    text = (FIXTURES / "dotprompt/support.prompt").read_text().replace("{{history}}\n", "")
    (tmp_path / "no_history.prompt").write_text(text)
    assert json.loads(run("--format", "json", str(tmp_path / "no_history.prompt")).stdout)["files"][0]["findings"] == []


def test_langchain_prompt_numbers(report, tok):
    from prefixlint.render.values import GENERATED

    data = json.loads((FIXTURES / "langchain/answer_prompt.json").read_text())
    paragraph = GENERATED["paragraph"][0]
    texts = [data["template"].format(current_date=day, context=paragraph, question=paragraph)
             for day in GENERATED["iso_date"]]
    a, b = tok.encode(texts[0]), tok.encode(texts[1])
    (finding,) = report["langchain/answer_prompt.json"]["findings"]
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(b), shared_prefix(a, b))


def test_langchain_few_shot_is_built_as_langchain_builds_it():
    template = load_template(str(FIXTURES / "langchain/antonyms_few_shot.yaml"))
    pairs = [("happy", "sad"), ("tall", "short"), ("energetic", "lethargic"), ("sunny", "gloomy"),
             ("windy", "calm"), ("generous", "stingy")]
    expected = "\n\n".join(["Session {session_id}. You are a vocabulary tutor. Give the antonym of every input"
                            " word, in one word, lowercase.", *(f"Input: {i}\nOutput: {o}" for i, o in pairs),
                            "Input: {word}\nOutput:"])
    assert template.messages[0].content == expected and template.syntax == "format"


def test_langchain_chat_with_messages_placeholder():
    template = load_template(str(FIXTURES / "langchain/support_chat_hub.json"))
    assert [m.role for m in template.messages] == ["system", SLOT_ROLE, "user"]
    assert template.slot == "history" and template.variables["history"].kind == "conversation"
    mustache = load_template(str(FIXTURES / "langchain/mustache_chat.yaml"))
    assert [m.role for m in mustache.messages] == ["system", SLOT_ROLE, "user"]
    assert mustache.syntax == "mustache" and mustache.slot == "chat_history"


def test_semantic_kernel_messages_slot_and_defaults():
    template = load_template(str(FIXTURES / "semantic_kernel/support_chat.yaml"))
    assert [m.role for m in template.messages] == ["system", SLOT_ROLE, "user"]
    assert template.variables["customer"].samples == ("a customer",)
    compiled = compile_template(template)
    assert compiled.functions == ("time.today",) and set(compiled.variables) >= {"customer", "request"}
    handlebars = load_template(str(FIXTURES / "semantic_kernel/trip_planner_handlebars.yaml"))
    system, user = compile_template(handlebars).render(
        {"group_size": 4, "experience": "intermediate", "wishes": ["a lake", "under 12 km"]}, {})
    assert (system.role, user.role) == ("system", "user")
    assert user.text == "We are 4 hikers, experience: intermediate.\n- a lake\n- under 12 km\n"


def test_promptfoo_prompts_files_and_test_vars():
    templates = load_templates(str(FIXTURES / "promptfoo/promptfooconfig.yaml"))
    assert [Path(t.path).name for t in templates] == [
        "support_chat.json", "summaries.txt", "summaries.txt", "promptfooconfig.yaml"]
    chat = templates[0]
    assert chat.is_chat and [m.role for m in chat.messages] == ["system", "user"]
    assert chat.variables["user_name"].samples == ("Maria Garcia", "Kenji Watanabe")
    assert chat.variables["ticket"].samples[0].startswith("The export button fails")
    assert templates[2].messages[0].content.startswith("Ticket received at {{ received_time }}.")


def test_json_found_by_walking_is_sniffed(tmp_path):
    (tmp_path / "package.json").write_text('{"name": "app", "version": "1.0.0"}')
    (tmp_path / "data.json").write_text('[{"role": "user", "content": "hello"}]')
    shutil.copy(FIXTURES / "langchain/answer_prompt.json", tmp_path / "answer_prompt.json")
    shutil.copy(real_file("qwen3/tokenizer_config.json"), tmp_path / "tokenizer_config.json")
    found = [p.name for p in discover([str(tmp_path)])]
    assert found == ["answer_prompt.json", "tokenizer_config.json"]
    named = run(str(tmp_path / "package.json"))
    assert named.exit_code == 2 and "package.json:1: not a recognised template" in named.stderr


def test_hugging_face_chat_template_file_injects_date(tmp_path):
    path = tmp_path / "chat_template.jinja"
    shutil.copy(real_file("template/granite3.3"), path)
    lines = path.read_text().split("\n")
    line = next(n for n, text in enumerate(lines, 1) if "strftime_now" in text)
    result = json.loads(run("--format", "json", str(path)).stdout)["files"][0]
    (finding,) = result["findings"]
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX101", line, lines[line - 1].index("strftime_now") + 1)


def test_hugging_face_tokenizer_config_rewrites_history(tmp_path, tok):
    path = tmp_path / "tokenizer_config.json"
    shutil.copy(real_file("qwen3/tokenizer_config.json"), path)
    result = json.loads(run("--format", "json", str(path)).stdout)["files"][0]
    (finding,) = result["findings"]
    assert finding["code"] == "PFX102" and "drops the reasoning" in finding["message"]
    # The position is inside the chat_template string, at the template line that writes an
    # earlier reply without its reasoning (decode the JSON line from there to see it).
    raw_line = path.read_text().split("\n")[finding["line"] - 1]
    assert raw_line.lstrip().startswith('"chat_template"')
    rest, _end = json.JSONDecoder().raw_decode('"' + raw_line[finding["column"] - 1 :])
    written = rest.split("\n", 1)[0]
    assert written == "{{- '<|im_start|>' + message.role + '\\n' + content }}"


@pytest.mark.parametrize(("template_format", "placeholder"), [
    ("jinja2", "{{ current_time }}"), ("mustache", "{{current_time}}"), ("f-string", "{current_time}"),
])
def test_langchain_prompt_in_each_template_format(tmp_path, template_format, placeholder):
    rules = "Answer in English. Cite the policy section you used. Never promise refunds. " * 3
    text = (f"_type: prompt\ninput_variables: [current_time]\ntemplate_format: {template_format}\n"
            f"template: \"Time: {placeholder}.\\n{rules}\"\n")
    path = tmp_path / "prompt.yaml"
    path.write_text(text)
    (finding,) = json.loads(run("--format", "json", str(path)).stdout)["files"][0]["findings"]
    assert (finding["code"], finding["line"], finding["column"], finding["placeholder"]) == (
        "PFX001", 4, len('template: "Time: ') + 1, placeholder)


def test_prompty_completion_api_is_one_prompt():
    text = (FIXTURES / "prompty/support_agent.prompty").read_text().replace("api: chat", "api: completion")
    template = load_template("support.prompty", text)
    assert not template.is_chat and not template.role_markers and [m.role for m in template.messages] == [None]
    assert template.messages[0].content.startswith("system:\nYou are the support assistant")


DATED = """\
{%- set today = strftime_now("%d %B %Y") %}
{{- "<|system|>\\nCurrent date: " + today + "\\n" }}
{%- for message in messages %}
{{- "<|" + message.role + "|>\\n" + message.content + "\\n" }}
{%- endfor %}
{%- if add_generation_prompt %}{{- "<|assistant|>\\n" }}{%- endif %}
"""
THINKING = """\
{%- for message in messages %}
{%- if message.role == "assistant" %}
{{- "<|im_start|>assistant\\n" }}
{%- if loop.last and message.reasoning_content %}
{{- "<think>\\n" + message.reasoning_content + "\\n</think>\\n\\n" }}
{%- endif %}
{{- message.content + "<|im_end|>\\n" }}
{%- else %}
{{- "<|im_start|>" + message.role + "\\n" + message.content + "<|im_end|>\\n" }}
{%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}{{- "<|im_start|>assistant\\n" }}{%- endif %}
"""


@pytest.mark.parametrize(("template", "expected"), [
    (DATED, [("PFX101", 1, 17)]),  # at `strftime_now`
    (THINKING, [("PFX102", 7, 1)]),  # the line that writes an earlier reply without its reasoning
], ids=["date", "reasoning"])
def test_chat_template_written_for_the_tests(tmp_path, template, expected):
    path = tmp_path / "chat_template.jinja"
    path.write_text(template)
    findings = json.loads(run("--format", "json", str(path)).stdout)["files"][0]["findings"]
    assert [(f["code"], f["line"], f["column"]) for f in findings] == expected
    # suppressed like any finding: a Jinja comment on the line
    code = expected[0][0]
    lines = template.split("\n")
    lines[expected[0][1] - 1] += f"{{# prefixlint: disable-line {code} #}}"
    path.write_text("\n".join(lines))
    assert json.loads(run("--format", "json", str(path)).stdout)["files"][0]["findings"] == []


def test_templates_cannot_read_files_or_reach_internals(tmp_path):
    """Mustache partials are never loaded from disk; Handlebars and Mustache paths into
    private attributes are refused with the file and line."""
    (tmp_path / "secret.mustache").write_text("SECRET")
    mustache = tmp_path / "partial.prompty"
    mustache.write_text("---\ntemplate: mustache\n---\nsystem:\nHello {{> secret}}. You help Contoso customers.\n")
    (rendered,) = compile_template(load_template(str(mustache))).render({}, {})
    assert "SECRET" not in rendered.text and rendered.text == "system:\nHello . You help Contoso customers."
    handlebars = tmp_path / "internals.prompt"
    handlebars.write_text("---\nmodel: x\n---\n{{role \"system\"}}\nYou help {{name.__class__}}.\n")
    result = run(str(handlebars))
    assert result.exit_code == 2 and f"{handlebars}:5:10: placeholder" in result.stderr


@given(st.text(max_size=60), st.booleans())
@settings(max_examples=200, deadline=None)
def test_json_string_offsets_point_at_each_characters_encoding(value, ascii_only):
    """Invariant: the raw text from a character's offset to the next one's decodes to that
    character, whatever escapes json.dumps chose (\\n, \\", \\uXXXX, surrogate pairs)."""
    from prefixlint.load.json_source import string_offsets

    raw = '{"template": ' + json.dumps(value, ensure_ascii=ascii_only) + "}"
    quote = raw.index(":") + 2
    offsets = string_offsets(raw, quote)
    assert len(offsets) == len(value)
    ends = [*offsets[1:], raw.rindex('"')]
    for char, start, end in zip(value, offsets, ends):
        assert json.loads('"' + raw[start:end] + '"') == char


def test_handlebars_comment_suppresses_in_a_dotprompt_file(tmp_path):
    text = (FIXTURES / "dotprompt/support.prompt").read_text().replace(
        "It is {{now}}.", "It is {{now}}. {{!-- prefixlint: disable-line PFX001 -- the time matters --}}")
    path = tmp_path / "support.prompt"
    path.write_text(text)
    result = json.loads(run("--format", "json", str(path)).stdout)["files"][0]
    assert result["error"] is None and result["findings"] == []


@pytest.mark.parametrize(("name", "model"), [
    ("prompty/support_agent.prompty", "gpt-4o"), ("dotprompt/support.prompt", "googleai/gemini-2.0-flash"),
    ("humanloop/onboarding.prompt", "gpt-4o"), ("semantic_kernel/support_chat.yaml", None),
    ("langchain/answer_prompt.json", None),
])
def test_the_model_a_file_names_is_reported(name, model):
    assert load_template(str(FIXTURES / name)).model == model


def test_dotprompt_partials_from_underscore_files():
    folder = FIXTURES / "dotprompt_partials"
    template = load_template(str(folder / "agent.prompt"))
    assert list(template.partials) == ["house_rules"]
    system, _user = compile_template(template).render({"user_name": "Ana", "question": "Hi"}, {})
    assert system.text == ("You are helping Ana. You are the Contoso Outdoor support assistant.\n"
                           + (folder / "_house_rules.prompt").read_text())
    findings = json.loads(run("--format", "json", str(folder / "agent.prompt")).stdout)["files"][0]["findings"]
    assert [(f["code"], f["line"], f["column"]) for f in findings] == [("PFX003", 9, 17)]
    # a partial on its own is a Dotprompt file without front matter
    assert load_template(str(folder / "_house_rules.prompt")).format == "dotprompt"


def test_promptfoo_globs_yaml_chats_and_inline_json(tmp_path):
    rules = "Answer briefly and cite the policy section you used; never promise a refund. " * 3
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "a.yaml").write_text(
        f"- role: system\n  content: |\n    Today is {{{{ today }}}}.\n    {rules}\n- role: user\n  content: '{{{{ q }}}}'\n")
    (tmp_path / "prompts" / "b.yaml").write_text(f"- role: system\n  content: '{rules}'\n- role: user\n  content: hi\n")
    inline = ('[{"role": "system", "content": "Session {{ session_id }}.\\\\n' + rules
              + '"}, {"role": "user", "content": "{{ q }}"}]')
    config = tmp_path / "promptfooconfig.yaml"
    config.write_text(f"prompts:\n  - file://prompts/*.yaml\n  - '{inline}'\nproviders: [echo]\n")
    templates = load_templates(str(config))
    assert [(Path(t.path).name, t.is_chat) for t in templates] == [
        ("a.yaml", True), ("b.yaml", True), ("promptfooconfig.yaml", True)]
    data = json.loads(run("--format", "json", str(config)).stdout)["files"]
    found = sorted((Path(f["path"]).name, x["code"], x["line"], x["column"]) for f in data for x in f["findings"])
    column = len("  - '[{\"role\": \"system\", \"content\": \"Session ") + 1
    assert found == [("a.yaml", "PFX001", 3, 14), ("promptfooconfig.yaml", "PFX002", 3, column)]


def test_native_yaml_declares_a_conversation_slot(tmp_path):
    text = ("variables:\n  now: {kind: per_request}\n  history: {kind: conversation}\n  question: {kind: per_request}\n"
            "messages:\n  - role: system\n    content: |\n      It is {{ now }}. You are the Contoso assistant.\n"
            "      {% for turn in history %}\n      {{ turn.role }}: {{ turn.content }}\n      {% endfor %}\n"
            "  - role: user\n    content: \"{{ question }}\"\n")
    path = tmp_path / "chat.yaml"
    path.write_text(text)
    findings = json.loads(run("--format", "json", str(path)).stdout)["files"][0]["findings"]
    assert [(f["code"], f["line"], f["column"]) for f in findings] == [("PFX001", 8, 13)]
    path.write_text(text.replace("history: {kind: conversation}", "history: {kind: stable, samples: [[]]}"))
    assert json.loads(run("--format", "json", str(path)).stdout)["files"][0]["findings"] == []


@pytest.mark.parametrize(("name", "text", "reason"), [
    ("settings.prompty", "---\nname: settings only\nmodel:\n  api: chat\n---\n", "the Prompty body is empty"),
    ("settings.prompt", "---\nmodel: googleai/gemini-2.5-flash\n---\n\n", "the Dotprompt body is empty"),
])
def test_a_prompt_file_with_settings_and_no_body_is_skipped_with_its_reason(tmp_path, name, text, reason):
    (tmp_path / name).write_text(text)
    (tmp_path / "other.prompty").write_text("---\nname: other\n---\nsystem:\nYou sort mail. {{question}}\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(tmp_path / name),
                                      str(tmp_path / "other.prompty")])
    assert result.exit_code == 0, result.output  # nothing to measure is no error; the other file is checked
    data = json.loads(result.output)
    assert data["skipped"] == [{"path": str(tmp_path / name), "reason": f"{reason}: nothing to measure"}]
    assert data["errors"] == [] and [f["path"] for f in data["files"]] == [str(tmp_path / "other.prompty")]


PROMPTY_ATTRIBUTE = """---
name: Greeter
inputs:
  customer:
    type: object
    sample: Jane
  tips:
    type: integer
  question:
    type: string
---
system:
You greet the customer{{ customer.firstName }} and give tips.
{% for i in range(tips) %}- tip {{ i }}
{% endfor %}
Always answer politely and cite the catalog page for every product you mention in your reply.

user:
{{question}}
"""


def test_prompty_renders_a_missing_attribute_as_its_runtime_does_and_counts_with_a_number(tmp_path):
    """Prompty's runtime renders with jinja2's lenient `Undefined`: `customer.firstName` of a
    sample written as text is nothing, not an error; an integer input with no sample is a number
    the template can count with."""
    path = tmp_path / "greeter.prompty"
    path.write_text(PROMPTY_ATTRIBUTE)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    data = json.loads(result.output)
    assert data["errors"] == []
    found = {f["variable"]: f for f in data["files"][0]["findings"]}
    # rendered, not refused: the customer (per user by its name) ends the prefix where it is read;
    # `tips` is named like no changing value, so its one number (3) renders the same loop each time
    assert set(found) == {"customer"}
    assert (found["customer"]["code"], found["customer"]["line"], found["customer"]["column"]) == ("PFX003", 13, 23)


def test_a_missing_attribute_still_fails_where_the_format_renders_strictly(tmp_path):
    path = tmp_path / "greeter.yaml"
    path.write_text("messages:\n  - role: system\n    content: 'Hello {{ customer.firstName }}, welcome.'\n"
                    "variables:\n  customer:\n    samples: [Jane]\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", str(path)])
    assert result.exit_code == 2 and "has no attribute 'firstName'" in result.output
