"""Issue 19 items 7 and 8: which message a prompt of program source is, by what the code shows.

A text the code sends with no role (a builder's returned f-string, a `.format()` constant passed
to `llm.invoke`) is the user's turn: a value in it is where a per-request value belongs, and only
a run of at least `min-tail-tokens` stable tokens after it makes it a finding. A text whose own
name says it is the system prompt (`createSystemPrompt()`, `get_system_instructions()`) is served
as one, with the conversation after it.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.registry import load_templates
from prefixlint.tokenize import load_tokenizer

CLOSING = "Reply in a friendly tone, and keep it short unless the user asks for detail."
INSTRUCTIONS = ("Use the notes below to answer. Quote the note you used for every claim, say plainly when the "
                "notes do not hold the answer, and never guess a date, a figure or a name. Keep to two short "
                "paragraphs with no headings and no lists, in the language of the question, and end with one "
                "line that names the notes you read. When two notes disagree, say so and give the newer one "
                "first, with its date.")


def run(path, *args):
    result = CliRunner().invoke(cli, ["check", "--offline", "--isolated", "--output-format", "json", *args, str(path)])
    assert result.exit_code in (0, 1), result.output
    return [(f["code"], f["variable"], f["line"]) for entry in json.loads(result.stdout)["files"]
            for f in entry["findings"] if f["severity"] != "info"]


def builder(tail: str) -> str:
    return ('def build_prompt(notes, question):\n    return f"""You are the assistant of the team wiki.\n\n'
            "Notes:\n{notes}\n\nQuestion:\n{question}\n\n" + tail + '\n"""\n')


def test_a_question_followed_by_a_closing_line_is_where_it_belongs(tmp_path):
    encode = load_tokenizer("o200k_base").encode
    assert 10 < len(encode(CLOSING)) < 80 <= len(encode(INSTRUCTIONS))  # min-tail-tokens: 80
    module = tmp_path / "short.py"
    module.write_text(builder(CLOSING))
    (template,) = load_templates(str(module))
    assert not template.is_chat and [m.role for m in template.messages] == [None]
    assert run(module) == []  # only a closing line after the values: the user's message as it should be
    # the same with a long run of instructions after the question: worth moving them ahead
    module = tmp_path / "long.py"
    module.write_text(builder(INSTRUCTIONS))
    assert [(code, name) for code, name, _ in run(module)] == [("PFX005", "notes"), ("PFX005", "question")]
    # the threshold is the documented setting: 0 takes back a one-block run
    config = tmp_path / "pyproject.toml"
    config.write_text("[tool.prefixlint]\nmin-tail-tokens = 0\n")
    result = CliRunner().invoke(cli, ["check", "--offline", "--config", str(config), "--output-format", "json",
                                      str(tmp_path / "short.py")])
    found = [(f["code"], f["variable"]) for e in json.loads(result.stdout)["files"] for f in e["findings"]]
    assert ("PFX005", "question") in found


def test_a_function_named_as_the_system_prompt_is_served_with_the_conversation(tmp_path):
    module = tmp_path / "prompt.ts"
    module.write_text("export function createSystemPrompt(): string {\n"
                      "  const today = new Date().toISOString();\n"
                      "  let prompt = `You are the support agent. Today is ${today}.`;\n"
                      f"  prompt += ' {CLOSING}';\n  return prompt;\n}}\n")
    (template,) = load_templates(str(module))
    assert template.is_chat and [m.role for m in template.messages] == ["system"]
    # a time with a short rule after it: in a system prompt the history follows, and pays
    result = CliRunner().invoke(cli, ["check", "--offline", "--isolated", "--output-format", "json", str(module)])
    (finding,) = json.loads(result.stdout)["files"][0]["findings"]
    assert (finding["code"], finding["variable"], finding["line"]) == ("PFX001", "today", 3)
    assert "history" in finding["message"]
    # the same text under a name that does not say so is the user's turn: the rule after the time is short
    module.write_text(module.read_text().replace("createSystemPrompt", "createGreeting"))
    (template,) = load_templates(str(module))
    assert not template.is_chat
    assert run(module) == []


def test_names_ending_in_system_or_user_hold_one_message_each(tmp_path):
    """`REVIEW_SYSTEM` / `REVIEW_USER` (and `reviewUser = (...) =>`) name a system prompt and a user
    message's text; `user` or `user_message` alone is the request's own text, not a prompt."""
    module = tmp_path / "prompts.py"
    module.write_text(f'REVIEW_SYSTEM = "You review pull requests. {INSTRUCTIONS}"\n'
                      'REVIEW_USER = "Review this diff:\\n{diff}\\n' + CLOSING + '"\n'
                      'user_message = "hello there"\n')
    assert [(t.prompt_name, [m.role for m in t.messages]) for t in load_templates(str(module))] == [
        ("REVIEW_SYSTEM", ["system"]), ("REVIEW_USER", [None])]
    script = tmp_path / "prompts.ts"
    script.write_text(f"export const REVIEW_SYSTEM = `You review pull requests. {INSTRUCTIONS}`;\n"
                      f"export const reviewUser = (diff: string) => `Review this diff:\\n${{diff}}\\n{CLOSING}`;\n")
    assert [(t.prompt_name, [m.role for m in t.messages]) for t in load_templates(str(script))] == [
        ("REVIEW_SYSTEM", ["system"]), ("reviewUser", [None])]
    assert run(script) == []  # the diff closes the user's message: where it belongs


def test_a_request_the_code_sends_alone_needs_a_long_run_after_the_value_a_prompt_file_does_not(tmp_path):
    """Item 8 beyond the user's turn: a system prompt the code sends with one user message and no
    history gains only the run after its value, so a short one is no finding; the same text in a
    prompt file checked alone may head a conversation the file cannot show, and is one."""
    encode = load_tokenizer("o200k_base").encode
    short = "Answer from the notes only, in two short paragraphs, and say plainly when they do not hold it."
    assert 16 <= len(encode(short)) < 80 <= len(encode(INSTRUCTIONS))

    def sent_alone(rules: str) -> str:
        return ("from datetime import datetime\nfrom openai import OpenAI\n\nclient = OpenAI()\n\n\n"
                "def answer(question):\n    now = datetime.now().isoformat()\n"
                f'    system = f"You are the assistant of the team wiki. Now: {{now}}.\\n{rules}"\n'
                '    return client.chat.completions.create(model="gpt-4o", messages=[\n'
                '        {"role": "system", "content": system}, {"role": "user", "content": question}])\n')
    module = tmp_path / "short.py"
    module.write_text(sent_alone(short))
    assert run(module) == []
    module = tmp_path / "long.py"
    module.write_text(sent_alone(INSTRUCTIONS))
    assert [(code, name) for code, name, _ in run(module)] == [("PFX001", "now")]
    prompts = tmp_path / "prompts"
    prompts.mkdir()
    page = prompts / "system.j2"
    page.write_text(f"You are the assistant of the team wiki. Now: {{{{ now }}}}.\n{short}\n")
    assert [(code, name, line) for code, name, line in run(page)] == [("PFX001", "now", 1)]
