"""Formats read since issue 11 (items 5 and 6): positions, verdicts and, for the single-prompt
formats, the numbers recomputed here from renders written out by hand (o200k_base)."""

from __future__ import annotations

import json
import textwrap

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.errors import PrefixlintError
from prefixlint.load.registry import load_template, load_templates
from prefixlint.match.prefix import shared_prefix
from prefixlint.render.compile import compile_template
from prefixlint.tokenize import load_tokenizer

STABLE = ("Answer in three short paragraphs. Cite the passage you rely on by its number, never invent a source,"
          " and say plainly when the passages do not hold the answer. Keep a neutral, friendly tone throughout.")


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("o200k_base")


def check(path) -> dict:
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)["files"][0]


def test_langchain_json_without_type_is_a_prompt(tmp_path, tok):
    path = tmp_path / "prompt.json"
    template = f"Today is {{date}}.\n{STABLE}\nQuestion: {{question}}"
    path.write_text(json.dumps({"input_variables": ["date", "question"], "template": template}, indent=2))
    result = check(path)
    (finding,) = [f for f in result["findings"] if f["code"] == "PFX001"]
    # line 6: `  "template": "Today is {date}...`: 15 characters up to the text, then "Today is "
    assert (finding["line"], finding["column"], finding["variable"]) == (6, 15 + 9 + 1, "date")
    # by hand: the two renders differ only in the day (question is held at its first value)
    question = load_template(str(path))  # the loader is LangChain's (format name), not a refusal
    assert question.format == "langchain"
    a = tok.encode("Today is 2025-03-14.\n" + STABLE + "\nQuestion: ")
    b = tok.encode("Today is 2025-03-15.\n" + STABLE + "\nQuestion: ")
    assert finding["shared_prefix_tokens"] == shared_prefix(a, b) == len(tok.encode("Today is 2025-03-"))


def test_langchain_yaml_without_type_is_not_semantic_kernel(tmp_path):
    path = tmp_path / "qa.yaml"
    path.write_text("input_variables:\n- context\n- question\ntemplate: 'Use {context} to answer {question}'\n"
                    "template_format: f-string\n")
    assert load_template(str(path)).format == "langchain"


def test_semantic_kernel_txt_and_its_numbers(tmp_path, tok):
    path = tmp_path / "skprompt.txt"
    path.write_text("TODAY is {{time.Date}}\n" + STABLE + "\n{{$input}}")
    result = check(path)
    first = result["findings"][0]
    assert (first["code"], first["line"], first["column"], first["variable"]) == ("PFX001", 1, 10, "time.Date")
    a, b = (tok.encode(f"TODAY is {day} 00:00:00+00:00\n" + STABLE + "\n") for day in ("2025-03-14", "2025-03-15"))
    assert first["shared_prefix_tokens"] == shared_prefix(a, b)


def test_semantic_kernel_json_settings(tmp_path, tok):
    path = tmp_path / "appsettings.json"
    path.write_text(textwrap.dedent("""\
        {
          // prompts of the assistant
          "Prompts": {
            "TokenLimit": 4096,
            "SystemDescription": "You help a product team. Cutoff: {{$knowledgeCutoff}}. Now: {{TimePlugin.Now}}.",
            "SystemResponse": "%s"
          }
        }
        """) % STABLE)
    result = check(path)
    (finding,) = result["findings"]
    # line 5: 26 characters up to the text, then "You help ... Cutoff: {{$knowledgeCutoff}}. Now: " (60)
    assert (finding["code"], finding["line"], finding["column"], finding["variable"]) == ("PFX001", 5, 87, "TimePlugin.Now")
    # by hand: {{$knowledgeCutoff}} is a deployment constant (its own words), the call renders the moment
    a, b = (tok.encode(f"You help a product team. Cutoff: knowledgeCutoff. Now: {moment}.\n\n{STABLE}")
            for moment in ("2025-03-14 09:26:53+00:00", "2025-03-15 17:42:08+00:00"))
    assert finding["tokens"] == len(a)
    assert finding["shared_prefix_tokens"] == shared_prefix(a, b) == len(
        tok.encode("You help a product team. Cutoff: knowledgeCutoff. Now: 2025-03")) + 1  # "-1" merges


def test_plain_json_with_braces_is_not_semantic_kernel_when_walked():
    from prefixlint.load.registry import recognises

    assert not recognises("messages.json", '{"greeting": "Hello {{ user.name }}"}', walking=True)
    assert recognises("appsettings.json", '{"p": "Now: {{TimePlugin.Now}}"}', walking=True)


def test_crewai_agent_is_assembled_as_crewai_does(tmp_path):
    config = tmp_path / "agents.yaml"
    config.write_text("analyst:\n  role: >\n    {topic} Analyst\n  goal: >\n    Explain {topic}\n"
                      "  backstory: >\n    You explain things plainly.\n")
    (template,) = load_templates(str(config))
    rendered = compile_template(template).render({"topic": "Tides"}, {})[0].text
    assert rendered.startswith("You are Tides Analyst\n. You explain things plainly.\n\nYour personal goal is: "
                               "Explain Tides\n\nTo give my best complete final answer")
    result = check(config)
    assert [(f["code"], f["line"], f["column"], f["variable"]) for f in result["findings"]][:1] == [
        ("PFX005", 3, 5, "topic")]


def test_crewai_tasks_are_the_user_prompt(tmp_path):
    config = tmp_path / "tasks.yaml"
    config.write_text("summary_task:\n  description: >\n    Summarise the news of {date} about {topic}.\n"
                      "  expected_output: >\n    Five bullet points.\n  agent: analyst\n")
    (template,) = load_templates(str(config))
    assert template.messages[0].role == "user"
    assert template.messages[0].content.startswith("\nCurrent Task: Summarise the news of {date}")
    assert (template.sent_as, template.sent_alone) == ("user", "CrewAI's task execution")
    # the user's message of the agent's run: CrewAI's ~50-token closing text after the values is
    # not the long run of stable text (min-tail-tokens, 80) that makes a finding
    assert check(config)["findings"] == []


def test_a_crewai_task_with_long_instructions_after_its_value_is_a_finding(tmp_path):
    config = tmp_path / "tasks.yaml"
    rules = "".join(f"    {n}. Check every claim against at least two independent sources before use.\n"
                    for n in range(1, 8))
    config.write_text("summary_task:\n  description: >\n    Summarise the news of {date}.\n" + rules
                      + "  expected_output: >\n    Five bullet points.\n  agent: analyst\n")
    finding = check(config)["findings"][0]
    assert (finding["code"], finding["line"], finding["column"], finding["variable"]) == ("PFX001", 3, 27, "date")
    assert finding["stable_block_after"] >= 80
    assert finding["message"].endswith("Sent as the user's message (CrewAI's task execution).")


def test_prompty_file_sample_is_read_beside_the_file(tmp_path):
    (tmp_path / ".git").mkdir()
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "chat.json").write_text(json.dumps({"firstName": "Ines", "question": "Which light?"}))
    (folder / "chat.prompty").write_text("---\nname: x\nsample: ${file:chat.json}\n---\nsystem:\nHi {{firstName}}."
                                         f"\n{STABLE}\nuser:\n{{{{question}}}}\n")
    template = load_template(str(folder / "chat.prompty"))
    assert template.variables["firstName"].samples == ("Ines",)


def test_prompty_missing_file_sample_gives_stand_ins(tmp_path):
    """contoso-chat's `sample: ${file:chat.json}` without chat.json beside it: the inputs get
    generated stand-ins (the sample only fills in values), no error and no warning."""
    path = tmp_path / "chat.prompty"
    path.write_text("---\nname: x\nsample: ${file:chat.json}\n---\nsystem:\nHi {{firstName}}."
                    f"\n{STABLE}\nuser:\n{{{{question}}}}\n")
    assert load_template(str(path)).variables.get("firstName") is None  # nothing declared, nothing sampled
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    assert result.exit_code == 1, result.output
    entry = json.loads(result.output)["files"][0]
    assert entry["error"] is None
    assert [(f["code"], f["line"], f["column"]) for f in entry["findings"]] == [("PFX003", 6, 4)]


@pytest.mark.parametrize("reference", ["${file:../../outside.json}", "${file:/etc/hostname}"])
def test_prompty_file_sample_never_leaves_the_repository(tmp_path, reference):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    (tmp_path / "outside.json").write_text("{}")
    path = tmp_path / "repo" / "p" / "x.prompty"
    path.parent.mkdir()
    path.write_text(f"---\nname: x\nsample: {reference}\n---\nsystem:\nHi\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", str(path)])
    assert result.exit_code == 2
    assert "x.prompty:3" in result.output and "points outside the repository" in result.output
    assert "Traceback" not in result.output


def test_promptfoo_nunjucks_json_is_rendered_then_read(tmp_path):
    path = tmp_path / "prompt.json"
    path.write_text('[\n  {"role": "system", "content": "{{ system_message }}"},\n'
                    '  {% for turn in _conversation %}\n'
                    '  {"role": "user", "content": "{{ turn.input[turn.input.length - 1].content }}"},\n'
                    '  {"role": "assistant", "content": "{{ turn.output }}"},\n  {% endfor %}\n'
                    '  {"role": "user", "content": "Today is {{ date }}. {{ question }}"}\n]\n')
    result = check(path)
    assert result["error"] is None and result["format"] == "promptfoo"
    assert result["findings"] == []  # the date opens the last message: nothing stable follows it


def test_handlebars_history_loop_renders_the_earlier_turns(tmp_path):
    from prefixlint.render.history import TURNS

    path = tmp_path / "chat.md"
    path.write_text(f"{STABLE}\n{{{{#each history}}}}<message role=\"{{{{role}}}}\">{{{{content}}}}</message>\n"
                    "{{/each}}\n<message role=\"user\">{{question}}</message>\n")
    template = load_template(str(path))
    assert template.syntax == "handlebars" and template.variables["history"].kind == "conversation"
    result = check(path)
    assert result["findings"] == [] and "history" not in result["volatile"]
    turns = "".join(f'<message role="{role}">{text}</message>\n' for role, text in TURNS)
    assert result["tokens"] > len(load_tokenizer("o200k_base").encode(turns))


@pytest.mark.parametrize("text, syntax", [
    ("{{#if premium}}Gold{{/if}} {{name}}", "handlebars"),
    ("{{#items}}- {{.}}{{/items}}", "mustache"),
    ("TODAY {{$date}} {{time.now}}", "sk"),
    ("{% if x %}{{ x }}{% endif %}", "jinja"),
    ("Hello {{ name }}", "jinja"),
])
def test_syntax_detected_in_markdown(tmp_path, text, syntax):
    path = tmp_path / "p.md"
    path.write_text(text)
    assert load_template(str(path)).syntax == syntax


def test_if_bodies_are_checked_in_handlebars(tmp_path):
    path = tmp_path / "p.md"
    path.write_text("{{#if showDate}}Current date: {{currentDate}}\n{{/if}}" + STABLE + "\n")
    (finding,) = check(path)["findings"]
    assert (finding["code"], finding["line"], finding["column"], finding["variable"]) == ("PFX001", 1, 31, "currentDate")


def test_dotted_paths_differ_between_the_renders(tmp_path):
    path = tmp_path / "p.md"
    path.write_text("{{#if customer}}Hello {{customer.firstName}}.{{/if}}\n" + STABLE + "\n")
    (finding,) = check(path)["findings"]
    assert (finding["code"], finding["variable"], finding["placeholder"]) == ("PFX003", "customer", "{{customer.firstName}}")


def _chain(prompt: dict, document_prompt: dict | None = None) -> dict:
    """A serialized `stuff_documents_chain` as LangChain's `Chain.save` writes it: its prompt sits
    inside `llm_chain`, beside the LLM's settings; `document_prompt` formats each document."""
    chain = {"memory": None, "input_key": "input_documents",
             "llm_chain": {"memory": None, "prompt": prompt, "llm": {"model_name": "gpt-4o-mini", "_type": "openai"},
                           "output_key": "text", "_type": "llm_chain"},
             "document_variable_name": "context", "_type": "stuff_documents_chain"}
    if document_prompt is not None:
        chain["document_prompt"] = document_prompt
    return chain


def test_a_langchain_chain_file_holds_its_prompts(tmp_path, tok):
    """`_type: stuff_documents_chain` is not a prompt, but its `llm_chain.prompt` is one: read as
    LangChain's `load_chain` reads it, the document formatter left out (it fills `context`)."""
    template = f"Today is {{date}}.\n{STABLE}\nContext: {{context}}\nQuestion: {{question}}"
    prompt = {"input_variables": ["date", "context", "question"], "template": template,
              "template_format": "f-string", "_type": "prompt"}
    document = {"input_variables": ["page_content"], "template": "{page_content}", "_type": "prompt"}
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(_chain(prompt, document), indent=4))
    (loaded,) = load_templates(str(path))
    assert loaded.format == "langchain" and loaded.messages[0].content == template
    result = check(path)
    (finding,) = [f for f in result["findings"] if f["code"] == "PFX001"]
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if '"template": "Today' in text)
    assert (finding["line"], finding["variable"]) == (line, "date")
    a = tok.encode("Today is 2025-03-14.\n" + STABLE + "\nContext: ")
    b = tok.encode("Today is 2025-03-15.\n" + STABLE + "\nContext: ")
    assert finding["shared_prefix_tokens"] == shared_prefix(a, b)
    assert not [f for f in result["findings"] if f.get("variable") == "page_content"]


def test_each_prompt_of_a_refine_chain_is_read_in_file_order(tmp_path):
    first = {"input_variables": ["question"], "template": STABLE + " {question}", "_type": "prompt"}
    second = {"input_variables": ["answer"], "template": "Improve this answer: {answer}", "_type": "prompt"}
    chain = {"initial_llm_chain": {"prompt": first, "_type": "llm_chain"},
             "refine_llm_chain": {"prompt": second, "_type": "llm_chain"}, "_type": "refine_documents_chain"}
    path = tmp_path / "chain.yaml"
    path.write_text(json.dumps(chain, indent=2))  # JSON is YAML: the YAML reader takes it too
    assert [t.messages[0].content for t in load_templates(str(path))] == [STABLE + " {question}",
                                                                         "Improve this answer: {answer}"]


def test_a_chain_whose_only_prompt_formats_documents_is_refused_at_its_type(tmp_path):
    document = {"input_variables": ["page_content"], "template": "{page_content}", "_type": "prompt"}
    chain = {"document_prompt": document, "_type": "map_rerank_documents_chain"}
    path = tmp_path / "chain.json"
    path.write_text(json.dumps(chain, indent=2))
    with pytest.raises(PrefixlintError) as caught:
        load_templates(str(path))
    line = path.read_text().splitlines().index('  "_type": "map_rerank_documents_chain"') + 1
    assert (caught.value.message, caught.value.line) == (
        "unsupported LangChain prompt type 'map_rerank_documents_chain'", line)


def test_a_fix_at_the_end_of_a_json_string_goes_after_its_last_escape(tmp_path):
    """A JSON template ending `\\n`: its end in the file is past both characters of the escape, so
    the moved value is written after it, not between `\\` and `n` (which no longer loads)."""
    template = f"Context: {{context}}\n{STABLE}\nQuestion: {{question}}\n"
    path = tmp_path / "prompt.json"
    path.write_text(json.dumps({"input_variables": ["context", "question"], "template": template,
                                "_type": "prompt"}, indent=4))
    result = CliRunner().invoke(cli, ["check", "--isolated", "--fix", str(path)])
    assert result.exit_code in (0, 1), result.output
    fixed = json.loads(path.read_text())["template"]
    assert fixed == f"{STABLE}\nQuestion: {{question}}\nContext: {{context}}\n"
