"""Prompts in Python source: found with `ast`, located exactly, measured like any template.

Fixtures (tests/fixtures/sources/) are written for these tests after the structure of real
agents: a LangChain agent whose system prompt has today's date in its first sentence, a ReAct
agent whose `System time: {system_time}` is filled with `datetime.now().isoformat()`, a SQL agent
whose deployment constants and final question are not findings. Positions are worked out from
the files' text here; token numbers from renders spelled out here with o200k_base.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from prefixlint.cli import cli
from prefixlint.load.registry import NotATemplate, load_templates
from prefixlint.load.source_literals import scan
from prefixlint.match.prefix import shared_prefix
from prefixlint.render.compile import compile_template
from prefixlint.render.history import CURRENT, TURNS
from prefixlint.render.values import GENERATED
from prefixlint.tokenize import load_tokenizer
from tests.load.test_formats import GENERATION, chatml, encode_pieces, vllm_reusable

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "sources"


def run(*args: str):
    return CliRunner().invoke(cli, ["check", "--isolated", *args])


def findings(path: Path, *args: str) -> list[dict]:
    result = run("--format", "json", *args, str(path))
    assert result.exit_code in (0, 1), result.output
    return [f for entry in json.loads(result.stdout)["files"] for f in entry["findings"]]


def where(path: Path, needle: str, occurrence: int = 1) -> tuple[int, int]:
    """1-based line and column of the n-th `needle` in the file, counted here from its text."""
    lines = path.read_text().split("\n")
    seen = 0
    for number, line in enumerate(lines, 1):
        column = line.find(needle)
        while column >= 0:
            seen += 1
            if seen == occurrence:
                return number, column + 1
            column = line.find(needle, column + 1)
    raise AssertionError(needle)


def assigned(path: Path, name: str) -> str:
    """The value of a module-level string constant, as Python itself reads it."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
            return ast.literal_eval(node.value)
    raise AssertionError(name)


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("o200k_base")


def test_langchain_agent_date_in_the_first_sentence(tok):
    path = FIXTURES / "agent_prompts.py"
    (finding,) = findings(path)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(path, "{date}"))
    assert (finding["line"], finding["column"]) == (5, 76)
    assert finding["source"] == "python" and finding["prompt"] == "ChatPromptTemplate.from_messages"
    assert finding["placeholder"] == "{date}" and finding["frequency"] == "per_day"
    # system message, then the `{messages}` placeholder as the conversation's earlier turns, and
    # the user's message of the turn being served (the end of `{messages}`)
    template = assigned(path, "AGENT_SYSTEM_PROMPT")
    requests = [chatml([("system", template.format(date=day)), *TURNS, ("user", CURRENT)]) + GENERATION
                for day in GENERATED["iso_date"]]
    a, b = encode_pieces(tok, requests[0]), encode_pieces(tok, requests[1])
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(a), shared_prefix(a, b))
    assert finding["reusable_tokens"] == vllm_reusable(shared_prefix(a, b), len(b))


def test_react_agent_time_filled_by_datetime_now_is_volatile_by_construction(tok, tmp_path):
    path = FIXTURES / "react_agent.py"
    (finding,) = findings(path)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(path, "{system_time}"))
    # model.ainvoke([{"role": "system", "content": system_message}, *state.messages]): the
    # system prompt, then the conversation so far
    assert finding["prompt"] == "model.ainvoke" and finding["frequency"] == "per_request"
    template = assigned(path, "SYSTEM_PROMPT")
    requests = [chatml([("system", template.format(system_time=moment)), *TURNS, ("user", CURRENT)]) + GENERATION
                for moment in GENERATED["iso_datetime"]]
    a, b = encode_pieces(tok, requests[0]), encode_pieces(tok, requests[1])
    assert (finding["tokens"], finding["shared_prefix_tokens"]) == (len(a), shared_prefix(a, b))
    # A name that says nothing: the `.format(...)` argument calling the clock decides.
    renamed = tmp_path / "react_agent.py"
    renamed.write_text(path.read_text().replace("system_time", "stamp"))
    (finding,) = findings(renamed)
    assert (finding["code"], finding["variable"], finding["frequency"]) == ("PFX001", "stamp", "per_request")
    # Without the call, `stamp` is a stable value: no finding.
    plain = tmp_path / "plain.py"
    plain.write_text(renamed.read_text().replace("datetime.now(tz=UTC).isoformat()", "config.region"))
    assert findings(plain) == []


def test_f_string_fields_calls_and_escapes_are_located_exactly():
    path = FIXTURES / "fstrings.py"
    text = path.read_text()
    (template,) = load_templates(str(path))
    assert template.prompt_name == "AGENT_PROMPT" and template.format == "python"
    (message,) = template.messages
    # Each character of the value points at what wrote it: `\u00e9` at its backslash, the
    # f-string's `{{` at its first brace; the plain part's braces are literal text.
    content = message.content
    for needle, written in (("é", "\\u00e9"), ("•", "\\N{BULLET}"), ("{{braces}}", "{{braces}}"),
                            ("{{date.today().isoformat()}}", "{date.today().isoformat()}"), ("\\d", "\\d")):
        assert text[message.offsets[content.index(needle)]:].startswith(written), needle
    declared = {name: (v.kind, v.samples) for name, v in template.variables.items()}
    assert declared["uuid"] == ("per_request", tuple(GENERATED["uuid"]))
    assert declared["now"] == ("per_request", ("09:26", "17:42"))  # `{datetime.now():%H:%M}`
    assert declared["now_2"][0] == "stable"  # `{datetime.now().year}`: changes once a year
    # `{state['date']}` and `{state.get("question")}` are named by their keys
    assert set(compile_template(template).variables) == {"uuid", "now", "now_2", "state_date", "question"}
    found = {f["placeholder"]: (f["code"], f["line"], f["column"]) for f in findings(path)}
    assert found["{uuid.uuid4()!s}"] == ("PFX002", *where(path, "{uuid.uuid4()!s}"))
    assert found["{datetime.now():%H:%M}"] == ("PFX001", *where(path, "{datetime.now():%H:%M}"))
    assert where(path, "{uuid.uuid4()!s}") == (6, 19)


def test_chat_roles_slot_and_dotted_names_from_from_messages():
    path = FIXTURES / "langchain_chat.py"
    (template,) = load_templates(str(path))
    assert [m.role for m in template.messages] == ["system", "(conversation)", "user"]
    assert template.slot == "history" and template.is_chat
    # `{self.user.name}` is the user's name; `{{plan}}` in the f-string part is LangChain's `{plan}`
    assert template.messages[0].content.count("{user_name}") == 1 and "{plan}" in template.messages[0].content
    (finding,) = findings(path)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX003", *where(path, "{self.user.name}"))
    assert finding["placeholder"] == "{self.user.name}" and finding["variable"] == "user_name"


def test_deployment_constants_and_a_final_question_are_clean():
    path = FIXTURES / "sql_agent.py"
    result = run("--format", "json", str(path))
    assert result.exit_code == 0, result.output
    (entry,) = json.loads(result.stdout)["files"]
    assert entry["findings"] == [] and entry["prompts"] == 2 and entry["format"] == "python"


def test_a_module_without_prompts(tmp_path):
    module = tmp_path / "util.py"
    module.write_text('import os\n\nSYSTEM_ROOT = "/etc/app"\n\ndef main():\n    print("system ready")\n')
    with pytest.raises(NotATemplate):
        load_templates(str(module))
    named = run(str(module))
    assert named.exit_code == 2 and f"{module}:1: no prompt found in this Python module" in named.output
    assert run("--skip-non-templates", str(module)).exit_code == 0
    broken = tmp_path / "broken.py"
    broken.write_text("PROMPT = (\n")
    result = run(str(broken), str(FIXTURES / "react_agent.py"))
    assert result.exit_code == 2 and f"{broken}:1:10: not valid Python" in result.output
    assert "react_agent.py:9:14: PFX001" in result.output  # the other files are still checked


def test_a_directory_walk_reports_prompts_only(tmp_path):
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "prompts.py").write_text((FIXTURES / "agent_prompts.py").read_text())
    (tmp_path / "app" / "util.py").write_text("def system_check():\n    return 'ok'\n")
    (tmp_path / "app" / "broken.py").write_text("def (\n")
    (tmp_path / "app" / "chat.ts").write_text((FIXTURES / "clean_chat.ts").read_text())
    result = run("--format", "json", str(tmp_path))
    files = {Path(f["path"]).name: f for f in json.loads(result.stdout)["files"]}
    assert sorted(files) == ["chat.ts", "prompts.py"]
    # their values are known by their names only: one severity lower (info does not fail the run)
    found = files["prompts.py"]["findings"]
    assert found and all(f["evidence"].startswith("its name") for f in found)
    assert result.exit_code == (1 if any(f["severity"] != "info" for f in found) else 0), result.output
    skipped = {Path(s["path"]).name: s["reason"] for s in json.loads(result.stdout)["skipped"]}
    assert (skipped["broken.py"], skipped["util.py"]) == (
        "program source that names no prompt-like word", "no prompt found in this Python module")
    assert files["chat.ts"]["format"] == "typescript" and files["chat.ts"]["findings"] == []


@given(st.text(alphabet=st.sampled_from(list("ab {}\\'\"\n\té€\x00")), max_size=30),
       st.sampled_from(["", "r", "u", "f"]), st.sampled_from(['"', "'", '"""', "'''"]))
def test_literal_values_are_what_python_reads(value, prefix, quote):
    """Any literal: the scanned characters are Python's own value, and every character written
    as itself points at itself in the source."""
    literal = prefix + quote + repr(value)[1:-1].replace(quote[0], "\\" + quote[0]) + quote
    if prefix == "f":
        literal = literal.replace("{", "{{").replace("}", "}}")
    try:
        expected = ast.literal_eval(literal) if prefix != "f" else eval(literal)  # noqa: S307 - built here
    except SyntaxError:
        return  # a raw literal cannot hold every escape
    source = "x = " + literal
    pieces = scan(source, 4, len(source))
    chars = "".join(p.chars for p in pieces)
    assert chars == expected
    offsets = [o for p in pieces for o in p.offsets]
    for char, offset in zip(chars, offsets):
        if source[offset] != "\\":
            assert source[offset] == char


def test_openai_and_anthropic_calls_and_other_template_styles():
    path = FIXTURES / "sdk_calls.py"
    templates = {t.prompt_name: t for t in load_templates(str(path))}
    assert list(templates) == ["PERCENT_TEMPLATE", "client.responses.create", "client.messages.create",
                               "client.chat.completions.create"]
    placeholders = {name: [(p.text, p.line, p.column) for p in compile_template(t).placeholders]
                    for name, t in templates.items()}
    assert placeholders["PERCENT_TEMPLATE"] == [
        ("%(request_id)s", *where(path, "%(request_id)s")), ("%(when)s", *where(path, "%(when)s"))]
    # instructions= is the system message, input= the user's turn; RULES is inlined, then dedented
    responses = templates["client.responses.create"]
    assert [m.role for m in responses.messages] == ["system", "user"]
    assert placeholders["client.responses.create"] == [
        ("{user.first_name}", *where(path, "{user.first_name}")), ("question", *where(path, "input=question")[:1],
                                                                   where(path, "input=question")[1] + 6)]
    assert "Answer in English.\nCite the order number.\n" in responses.messages[0].content
    # string.Template(...).substitute(stamp=time.time()): a per-request epoch, whatever its name
    claude = templates["client.messages.create"]
    assert placeholders["client.messages.create"][0] == ("$stamp", *where(path, "$stamp"))
    assert (claude.variables["stamp"].kind, claude.variables["stamp"].samples) == ("per_request", GENERATED["epoch"])
    # "...{}...".format(datetime.now().strftime("%H:%M")) and a content block list
    chat = templates["client.chat.completions.create"]
    assert placeholders["client.chat.completions.create"][0] == ("{}", *where(path, "Time: {}")[:1],
                                                                 where(path, "Time: {}")[1] + 6)
    assert chat.variables["now"].samples == ("09:26", "17:42")
    assert [m.role for m in chat.messages] == ["system", "user"]


def test_agent_framework_system_prompt_keyword(tmp_path):
    module = tmp_path / "planner.py"
    module.write_text('from datetime import date\nfrom pydantic_ai import Agent\n\n'
                      'def planner():\n  return Agent(\n    "openai:gpt-4o",\n'
                      '    system_prompt=f"Today is {date.today():%A %d %B %Y}. You plan weekend trips: suggest two"\n'
                      '    " options with travel times, costs and one rainy-day alternative, and ask before booking.",\n)\n')
    (finding,) = findings(module)
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(module, "{date.today()"))
    # the format spec decides: %A %d %B %Y changes once a day
    assert (finding["prompt"], finding["frequency"], finding["variable"]) == ("Agent", "per_day", "today")


def test_function_with_prompt_like_name_gives_its_last_return(tmp_path):
    """`def prompt_template(...)` returning an f-string is a prompt (its own last `return`, not
    a nested function's); a local `strftime('%Y-%m-%d')` of `datetime.now()` is a daily value."""
    module = tmp_path / "prompt.py"
    module.write_text(
        "from datetime import datetime\n\n\n"
        "def prompt_template(name: str, message: str) -> str:\n"
        "    def helper():\n"
        "        return 'not this one'\n"
        "    formatted_date = datetime.now().strftime('%Y-%m-%d')\n"
        '    return f"""You are {name}. Current date: {formatted_date}.\n'
        + "Answer the owner's questions carefully. " * 15 + '\n{message}\n"""\n')
    (template,) = load_templates(str(module))
    assert template.messages[0].content.startswith("You are {name}. Current date: {formatted_date}.\nAnswer")
    codes = {(f["code"], f["line"], f["column"], f["variable"]) for f in findings(module)}
    assert ("PFX001", 8, 46, "formatted_date") in codes  # 4 + len("return f\"\"\"You are {name}. Current date: ") + 1


def test_a_value_computed_at_import_is_per_process_and_a_call_per_request_states_its_evidence(tmp_path):
    """Issue 19 item 5: what fills a placeholder decides, and the finding says it."""
    rules = " ".join(f"Rule {i}: answer in full sentences and cite the source document." for i in range(20))
    module = tmp_path / "bot.py"
    module.write_text(
        "from datetime import datetime\nfrom openai import OpenAI\n\nclient = OpenAI()\n"
        f'RULES = "{rules}"\nSTARTED = datetime.now()\nBOOT = f"Started at {{STARTED}}. " + RULES\n\n\n'
        "def answer(question):\n"
        '    system = f"Today is {datetime.now():%Y-%m-%d}. " + RULES\n'
        '    return client.chat.completions.create(model="gpt-4o", messages=[\n'
        '        {"role": "system", "content": system}, {"role": "user", "content": question}])\n\n\n'
        "def boot(question):\n"
        '    return client.chat.completions.create(model="gpt-4o", messages=[\n'
        '        {"role": "system", "content": BOOT}, {"role": "user", "content": question}])\n')
    (finding,) = findings(module)  # STARTED runs once per process: the same on every request
    assert (finding["code"], finding["line"], finding["frequency"]) == ("PFX001", 11, "per_day")
    assert finding["evidence"] == "filled by datetime.now() (bot.py:11)"
    assert finding["message"].endswith(" Evidence: filled by datetime.now() (bot.py:11).")


def test_a_value_in_the_last_user_message_needs_a_long_tail_to_be_a_finding(tmp_path):
    """Issue 19 item 8: the question sits where it belongs; a short closing line after it is no
    reason to move it, a long text after it is (`min-tail-tokens`, default 64)."""
    rules = " ".join(f"Rule {i}: answer in full sentences and cite the source document." for i in range(12))

    def module(tail: str) -> str:
        return ("from openai import OpenAI\nclient = OpenAI()\n\n\ndef answer(question):\n"
                '    return client.chat.completions.create(model="gpt-4o", messages=[\n'
                f'        {{"role": "system", "content": "{rules}"}},\n'
                f'        {{"role": "user", "content": f"Question: {{question}}\\n{tail}"}}])\n')

    short = tmp_path / "short.py"
    short.write_text(module("Answer in the language of the question, in three sentences at most."))
    assert findings(short) == []
    long = tmp_path / "long.py"
    long.write_text(module(rules))
    (finding,) = findings(long)
    assert (finding["code"], finding["variable"], finding["line"]) == ("PFX005", "question", 8)
    assert finding["stable_tokens_after"] >= 64
    (tmp_path / "pyproject.toml").write_text("[tool.prefixlint]\nmin-tail-tokens = 8\nmin-stable-tokens = 8\n")
    configured = CliRunner().invoke(cli, ["check", "--format", "json", str(short)])
    assert [f["line"] for entry in json.loads(configured.stdout)["files"] for f in entry["findings"]] == [8]


def test_a_parameter_is_classified_by_what_its_callers_pass(tmp_path):
    """Issue 19 item 5: every caller passes the environment: a deployment constant (stable);
    a caller passing a request's value leaves the parameter's own evidence (filled at each
    call), its class by its name, at the rule's own severity."""
    rules = " ".join(f"Rule {i}: answer in full sentences and cite the source document." for i in range(20))
    module = tmp_path / "bot.py"
    module.write_text(
        "import os\nfrom openai import OpenAI\n\nclient = OpenAI()\n\n\n"
        "def system_prompt(bot_name, user_name):\n"
        f'    return f"You are {{bot_name}}, talking with {{user_name}}. {rules}"\n\n\n'
        "def answer(question, user):\n"
        '    system = system_prompt(os.getenv("BOT_NAME", "Ada"), user.name)\n'
        '    return client.chat.completions.create(model="gpt-4o", messages=[\n'
        '        {"role": "system", "content": system}, {"role": "user", "content": question}])\n')
    (template,) = load_templates(str(module))
    bot = template.variables["bot_name"]
    assert (bot.kind, bot.line, bot.evidence) == (
        "stable", 12, 'filled by os.getenv("BOT_NAME", "Ada"): the same on every request')
    user = template.variables["user_name"]  # user.name: how often it changes, its name says
    assert (user.kind, user.line, user.evidence) == (None, 7, "a parameter of system_prompt(), filled at each call")
    (finding,) = findings(module)
    assert (finding["variable"], finding["evidence"], finding["severity"]) == (
        "user_name", "a parameter of system_prompt(), filled at each call (bot.py:7)", "warning")


def test_a_list_of_chat_messages_is_a_prompt_by_its_shape_whatever_its_name(tmp_path):
    """Issue 19 item 4: a function returning `[{"role": "system", ...}, {"role": "user", ...}]`
    (or a name bound to such a list) is a chat prompt though neither name says so; the user's
    text last is where it belongs, so nothing is reported and the module is not refused."""
    module = tmp_path / "chat.py"
    module.write_text(
        "def build_messages(user_message: str):\n"
        "    return [\n"
        '        {"role": "system", "content": ("You are a helpful assistant. " "Answer briefly.")},\n'
        '        {"role": "user", "content": user_message},\n'
        "    ]\n\n\n"
        'greeting = [{"role": "assistant", "content": "Hello! How can I help?"}]\n'
        'labels = ["system", "user"]\n')
    first, second = load_templates(str(module))
    assert [m.role for m in first.messages] == ["system", "user"]
    assert first.messages[0].content == "You are a helpful assistant. Answer briefly."
    assert first.messages[1].content == "{user_message}"
    assert [m.role for m in second.messages] == ["assistant"] and second.messages[0].content == "Hello! How can I help?"
    result = run("--format", "json", str(module))
    assert result.exit_code == 0, result.output
    (entry,) = json.loads(result.stdout)["files"]
    assert entry["findings"] == [] and entry["prompts"] == 2  # `labels` is a list of strings, no message


@pytest.mark.parametrize("name, system", [
    ("StrSystemMessage", True), ("SYSTEMPROMPT", True), ("agent_system_instructions", True), ("systemMsg", True),
    ("REACT_SYSTEM", True), ("MEDIA_GATE_SYSTEM_MSG", True),
    ("SYSTEMATIC_REVIEW", False), ("file_system_path", False), ("OPERATING_SYSTEM", False), ("FILE_SYSTEM", False)])
def test_a_system_prompt_name_is_read_by_its_words(tmp_path, name, system):
    """`StrSystemMessage` says system message as plainly as `SYSTEM_MESSAGE`: its words decide,
    not where the underscores are; `system` followed by another word than prompt/message is not."""
    module = tmp_path / "names.py"
    module.write_text(f'{name} = """You are a careful reviewer of pull requests. Be brief and exact."""\n')
    if not system and not name.lower().startswith("system"):
        with pytest.raises(NotATemplate):
            load_templates(str(module))
        return
    (template,) = load_templates(str(module))
    assert (template.messages[0].role == "system") is system


def test_a_parameter_with_no_caller_in_the_repository_is_filled_at_each_call(tmp_path):
    """A prompt-building function's parameter with no caller beside it: the caller fills it at
    each call, evidence stronger than its name, so the finding keeps the rule's severity (a
    value of unknown meaning stays stable: the parameter says when it changes, not that it does)."""
    rules = " ".join(f"Rule {i}: classify the e-mail and cite the policy section you used." for i in range(20))
    module = tmp_path / "prompts.py"
    module.write_text(f'def user_prompt(email, column):\n    return f"""Customer e-mail:\n{{email}}\n{{column}}\n{rules}"""\n')
    (template,) = load_templates(str(module))
    assert template.variables["email"].evidence == "a parameter of user_prompt(), filled at each call"
    (finding,) = findings(module)
    assert (finding["code"], finding["variable"], finding["line"], finding["column"], finding["severity"]) == (
        "PFX003", "email", 3, 1, "warning")
    assert finding["evidence"] == "a parameter of user_prompt(), filled at each call (prompts.py:1)"


def test_an_attribute_grown_from_itself_is_a_step_of_a_prompt_not_one_of_its_own(tmp_path):
    """`self.prompt = self.prompt + "..."` in the methods of an object: the text opens with the
    prompt built so far, whose order the module does not say; not a prompt with a `{prompt}`
    value of the request. A local name grown so is read in its function's order (kept)."""
    from prefixlint.load.registry import load_templates

    rules = " ".join(f"Rule {i}: answer in full sentences and cite the ticket you used." for i in range(12))
    grown = tmp_path / "persona.py"
    grown.write_text(
        "class Persona:\n"
        "    def __init__(self, name):\n"
        "        self.name = name\n"
        "        self.prompt = BASE_PROMPT\n"
        f'        self.prompt = self.prompt + f"\\n\\nPersona key: {{self.name}}. {rules}"\n'
        f'BASE_PROMPT = "You tell stories to children. {rules}"\n')
    (template,) = load_templates(str(grown))  # the base constant alone
    assert template.prompt_name == "BASE_PROMPT"
    local = tmp_path / "local.py"
    local.write_text(
        "from datetime import date\n\n\ndef build():\n"
        '    prompt = f"Today is {date.today()}."\n'
        f'    prompt = prompt + " {rules}"\n'
        "    return prompt\n")
    names = {t.prompt_name: t.messages[0].content for t in load_templates(str(local))}
    assert any(content.startswith("Today is {today}.") and content.endswith(rules) for content in names.values())
