"""Where program source sends a prompt, and what that makes worth a finding (issue 19 items 4
and 8): LangChain's `from_template`/`PromptTemplate` is the user's turn, where the labels between
per-request values move with them and only a long constant block after a value counts; CrewAI
agents and tasks written as Python objects; TypeScript values reshaped by array methods, named
by their receiver; a TypeScript function named as a system message."""

from __future__ import annotations

import json

from click.testing import CliRunner

from prefixlint.cli import cli

STEPS = "\n".join(f"{i}. Check the claim against the passage and quote the sentence that supports it." for i in range(1, 9))


def check(tmp_path, name: str, text: str, exits=(0, 1)) -> dict:
    (tmp_path / name).write_text(text)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(tmp_path / name)])
    assert result.exit_code in exits, result.output
    return json.loads(result.output)["files"][0]


LABELLED = '''from langchain_core.prompts import ChatPromptTemplate

TEMPLATE = """Here is the question to answer:
--- {question} ---
Here are earlier questions and their answers:
--- {pairs} ---
Here is the retrieved context:
--- {context} ---
Use the context and the earlier answers to answer the question in two sentences."""

prompt = ChatPromptTemplate.from_template(TEMPLATE)
'''


def test_labels_between_per_request_values_in_the_user_s_turn_are_no_finding(tmp_path):
    result = check(tmp_path, "prompt.py", LABELLED)
    assert result["error"] is None and result["findings"] == []
    # each label is short; together they pass the 64-token floor, as one block they do not
    assert result["volatile"]["question"]["stable_tokens_after"] < 64


def test_a_long_block_after_a_value_in_the_user_s_turn_is_a_finding(tmp_path):
    text = LABELLED.replace("Here are earlier questions", STEPS + "\nHere are earlier questions")
    (finding,) = [f for f in check(tmp_path, "prompt.py", text)["findings"] if f["variable"] == "question"]
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX005", 4, 5)
    assert finding["stable_tokens_after"] >= 64


def test_a_prompt_template_with_a_short_tail_after_its_values_is_no_finding(tmp_path):
    text = ('from langchain.prompts import PromptTemplate\n\nqa = PromptTemplate(template="""Answer from the notes.\n'
            'Notes: {context}\nQuestion: {question}\nAnswer in one sentence, or say you do not know.\nAnswer:""",'
            ' input_variables=["context", "question"])\n')
    assert check(tmp_path, "qa.py", text)["findings"] == []


CREW = '''from crewai import Agent, Crew, Task

analyst = Agent(
    role="Analyst",
    goal="Summarise the quarterly sales notes for the team.",
    backstory="A careful analyst who writes short, plain summaries.",
)

summary = Task(
    description="Summarise the notes in five bullet points.",
    expected_output="Five bullet points.",
    agent=analyst,
)

crew = Crew(agents=[analyst], tasks=[summary])
'''


def test_crewai_objects_in_python_are_read_as_crewai_assembles_them(tmp_path):
    result = check(tmp_path, "crew.py", CREW)
    assert result["error"] is None and result["findings"] == []  # constant fields, no kickoff inputs
    assert result["tokens"] > 100  # CrewAI's own text around the fields is measured too


def test_a_crewai_agent_built_per_call_with_the_date_is_a_finding(tmp_path):
    text = CREW.replace('analyst = Agent(\n    role="Analyst",', 'from datetime import date\n\n\ndef make():\n'
                        '    return Agent(\n    role="Analyst",').replace(
        'goal="Summarise the quarterly sales notes for the team."', 'goal=f"Summarise the notes of {date.today()}."')
    text = text.replace("agent=analyst", "agent=make()").replace("agents=[analyst]", "agents=[make()]")
    (finding,) = check(tmp_path, "crew.py", text)["findings"]
    # the goal ends the role-playing text; CrewAI's fixed answer format follows it
    assert (finding["code"], finding["line"], finding["frequency"]) == ("PFX001", 9, "per_day")
    assert finding["evidence"] == "filled by date.today() (crew.py:9)"


def test_a_module_with_a_model_named_agent_but_no_crewai_import_is_not_read_as_crewai(tmp_path):
    text = CREW.replace("from crewai import Agent, Crew, Task", "from shop.models import Agent, Crew, Task")
    result = check(tmp_path, "models.py", text, exits=(2,))  # named on the command line: refused
    assert result["error"]["message"] == "no prompt found in this Python module"


REVIEW = '''const QUESTIONS = `
Questions:
1. Summarise the change in a short list.
2. Is the changed code easy to read, and are names and comments clear?
3. Could the code be simpler without changing what it does? Show an example.
4. Do you see a bug? Explain it and give the line.
5. Do you see anything that could be a security problem?
6. Are the tests enough for the change?`

export const buildMessages = ({ documents, edits }) => {
  const content = `Review the change below.

Documents:
${documents.map(d => d.body).join('\\n\\n')}

Edits:
${edits.map(e => e.diff).join('\\n')}
${QUESTIONS}`
  return [{ role: 'system', content: 'You review code.' }, { role: 'user', content }]
}
'''


def test_a_ts_value_reshaped_by_array_methods_is_named_by_its_receiver(tmp_path):
    result = check(tmp_path, "review.ts", REVIEW)
    first = min(result["findings"], key=lambda f: (f["line"], f["column"]))
    assert (first["code"], first["variable"], first["line"], first["column"]) == ("PFX005", "documents", 14, 1)
    assert first["stable_tokens_after"] >= 64  # the questions follow


def test_a_ts_function_named_as_a_system_message_is_its_system_prompt(tmp_path):
    text = ("export const generateSystemMessage = ({ persona, today }) => {\n"
            "  if (!persona) return 'You are a helpful assistant.'\n"
            "  return `You are ${persona}. Today is ${new Date().toISOString()}. " + " ".join(
                ["Answer briefly and ask when something is unclear."] * 8) + "`\n}\n")
    result = check(tmp_path, "system.ts", text)
    assert result["error"] is None
    (finding,) = [f for f in result["findings"] if f["code"] == "PFX001"]
    assert (finding["line"], finding["column"], finding["history_tokens"] > 0) == (3, 40, True)


BUILDER = '''from openai import OpenAI


def build_prompt(question, notes):
    return f"""Answer from the notes.
Question: {question}
Notes: {notes}
Answer in two sentences and name the note you used."""


def ask(client, prompt):
    reply = client.chat.completions.create(model="m", messages=[
        {"role": "system", "content": "You answer from notes."}, {"role": "user", "content": prompt}])
    return reply.choices[0].message.content


def answer(question, notes):
    prompt = build_prompt(question, notes)
    return ask(OpenAI(), prompt)
'''


def test_a_returned_prompt_passed_on_as_the_user_s_message_is_the_user_s_turn(tmp_path):
    from prefixlint.load.python_source import load_all

    templates = {t.prompt_name: t for t in load_all(str(tmp_path / "qa.py"), BUILDER)}
    assert [m.role for m in templates["build_prompt"].messages] == ["user"]  # through `prompt`, then ask()
    # the question and the notes are the request's own, with a one-sentence tail: no finding
    assert [f for f in check(tmp_path, "qa.py", BUILDER)["findings"] if f["prompt"] == "build_prompt"] == []


def test_a_returned_prompt_the_module_never_sends_keeps_no_role(tmp_path):
    from prefixlint.load.python_source import load_all

    text = BUILDER.replace('{"role": "user", "content": prompt}', '{"role": "user", "content": "Go."}')
    templates = {t.prompt_name: t for t in load_all(str(tmp_path / "qa.py"), text)}
    assert [m.role for m in templates["build_prompt"].messages] == [None]
