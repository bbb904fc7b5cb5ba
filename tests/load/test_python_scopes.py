"""A name in a Python prompt is read by Python's scoping rules (issue 19 item 5): the function's
own assignments and parameters, then the enclosing functions, then the module's top level; a
comprehension's own targets; `global` and `nonlocal`. Never by an assignment of the same name in
another function: a module-level f-string (evaluated once, at import) whose field is named like a
local of some function is filled by the module's own binding."""

from __future__ import annotations

import ast
import json

from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.python_scopes import Scopes
from prefixlint.load.registry import load_templates

RULES = " ".join(f"Rule {i}: answer in full sentences and cite the source document." for i in range(20))


def findings(path) -> list[dict]:
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)["files"][0]["findings"]


def _module(tmp_path, lines: list[str]):
    path = tmp_path / "bot.py"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_module_level_f_string_is_filled_by_the_module_binding_not_a_function_local(tmp_path):
    path = _module(tmp_path, [
        "from datetime import datetime",                          # 1
        "from release import load_release_date",                   # 2
        f'RULES = "{RULES}"',                                       # 3
        "",                                                         # 4
        "def log_line(message):",                                   # 5
        "    now = datetime.now()",                                 # 6
        "    stamp = 'not the words of the prompt'",                # 7
        '    return f"{now:%H:%M:%S} {stamp} {message}"',           # 8
        "",                                                         # 9
        "now = load_release_date()",                                # 10
        "stamp = load_release_date()",                              # 11
        'SYSTEM_PROMPT = f"""Release: {now} ({stamp}).',            # 12
        '{RULES}"""',                                               # 13
    ])
    (template,) = load_templates(str(path))
    # the field stays a field (not the words of log_line's local `stamp`), in its place
    assert template.messages[0].content.startswith("Release: {now} ({stamp}).\nRule 0:")
    now, stamp = template.variables["now"], template.variables["stamp"]
    assert (now.kind, now.line) == ("stable", 10)  # evaluated once, at import: per process
    assert now.evidence == "filled by load_release_date() once per process, at import"
    assert (stamp.kind, stamp.line) == ("stable", 11)
    assert findings(path) == []  # before: PFX001 {now} filled by datetime.now() (bot.py:6), per request


def test_a_module_level_clock_is_per_process_whatever_a_function_assigns_to_its_name(tmp_path):
    path = _module(tmp_path, [
        "from datetime import datetime",                          # 1
        f'RULES = "{RULES}"',                                       # 2
        "started = datetime.now()",                                 # 3
        "",                                                         # 4
        "def tick():",                                              # 5
        "    started = datetime.now()",                             # 6
        "    return started",                                       # 7
        "",                                                         # 8
        'SYSTEM_PROMPT = f"Up since {started}. " + RULES',          # 9
    ])
    (template,) = load_templates(str(path))
    started = template.variables["started"]
    assert (started.kind, started.line) == ("stable", 3)
    assert started.evidence == "filled by datetime.now() once per process, at import"
    assert findings(path) == []


def test_a_function_reads_its_own_local_clock_before_the_module_binding(tmp_path):
    path = _module(tmp_path, [
        "from datetime import datetime",                          # 1
        "from openai import OpenAI",                               # 2
        "client = OpenAI()",                                        # 3
        f'RULES = "{RULES}"',                                       # 4
        'now = "the launch day"',                                   # 5
        "",                                                         # 6
        "def answer(question):",                                    # 7
        "    now = datetime.now()",                                 # 8
        '    system = f"Time: {now}. " + RULES',                    # 9
        '    return client.chat.completions.create(model="gpt-4o", messages=[',
        '        {"role": "system", "content": system}, {"role": "user", "content": question}])',
    ])
    (finding,) = findings(path)
    # `{now}` on line 9, column 4 + len('system = f"Time: ') + 1 = 22
    assert (finding["code"], finding["line"], finding["column"], finding["variable"]) == ("PFX001", 9, 22, "now")
    assert finding["frequency"] == "per_request"
    assert finding["evidence"] == "filled by datetime.now() (bot.py:8)"


def test_a_function_reads_the_module_binding_that_another_function_shadows(tmp_path):
    path = _module(tmp_path, [
        "import os",                                               # 1
        "from datetime import datetime",                           # 2
        "from openai import OpenAI",                               # 3
        "client = OpenAI()",                                        # 4
        f'RULES = "{RULES}"',                                       # 5
        'RELEASE = os.environ["RELEASE"]',                          # 6
        "",                                                         # 7
        "def stamp():",                                             # 8
        "    RELEASE = datetime.now()",                             # 9
        "    return RELEASE",                                       # 10
        "",                                                         # 11
        "def answer(question):",                                    # 12
        '    system = f"Release {RELEASE}. " + RULES',              # 13
        '    return client.chat.completions.create(model="gpt-4o", messages=[',
        '        {"role": "system", "content": system}, {"role": "user", "content": question}])',
    ])
    (template,) = load_templates(str(path))
    release = template.variables["release"]
    assert (release.kind, release.line) == ("stable", 6)  # the module's own binding, at import
    assert release.evidence == 'filled by os.environ["RELEASE"] once per process, at import'
    assert findings(path) == []  # before: PFX001 filled by datetime.now() (bot.py:9)


def test_a_parameter_shadows_a_module_level_text(tmp_path):
    path = _module(tmp_path, [
        "from openai import OpenAI",                               # 1
        "client = OpenAI()",                                        # 2
        f'RULES = "{RULES}"',                                       # 3
        'context = "No documents."',                                # 4
        "",                                                         # 5
        "def answer(question, context):",                           # 6
        '    system = f"Documents: {context}. " + RULES',           # 7
        '    return client.chat.completions.create(model="gpt-4o", messages=[',
        '        {"role": "system", "content": system}, {"role": "user", "content": question}])',
    ])
    (template,) = load_templates(str(path))
    # the parameter, not the module's words: a field in its place
    assert template.messages[0].content.startswith("Documents: {context}. Rule 0:")
    codes = [(f["code"], f["line"], f["column"], f["variable"]) for f in findings(path)]
    assert codes == [("PFX005", 7, 27, "context")]  # 4 + len('system = f"Documents: ') + 1


def test_a_nested_function_local_is_not_the_value_of_the_function_around_it(tmp_path):
    path = _module(tmp_path, [
        "import os",                                               # 1
        "from datetime import datetime",                           # 2
        "from openai import OpenAI",                               # 3
        "client = OpenAI()",                                        # 4
        f'RULES = "{RULES}"',                                       # 5
        "",                                                         # 6
        "def answer(question, release):",                           # 7
        "    def log():",                                           # 8
        "        release = datetime.now()",                         # 9
        "        return release",                                   # 10
        '    system = f"Release {release}. " + RULES',              # 11
        '    return client.chat.completions.create(model="gpt-4o", messages=[',
        '        {"role": "system", "content": system}, {"role": "user", "content": question}])',
        "",                                                         # 14
        "def handle(question):",                                    # 15
        '    return answer(question, os.environ["RELEASE"])',       # 16
    ])
    (template,) = load_templates(str(path))
    release = template.variables["release"]  # the parameter, filled by its one caller
    assert (release.kind, release.line) == ("stable", 16)
    assert release.evidence == 'filled by os.environ["RELEASE"]: the same on every request'
    assert findings(path) == []  # before: PFX001 filled by datetime.now() (bot.py:9)


def test_a_global_rebound_by_a_function_changes_at_runtime_but_not_before_import(tmp_path):
    """Decided: a function that declares `global NOW` and assigns it a clock call rebinds the
    module's `NOW` while the process runs, so a function that reads `NOW` at request time reads
    that clock (volatile, with the rebinding as evidence); a module-level f-string is evaluated
    once, at import, from the module's own assignment (per process)."""
    path = _module(tmp_path, [
        "from datetime import datetime",                           # 1
        "from openai import OpenAI",                               # 2
        "client = OpenAI()",                                        # 3
        f'RULES = "{RULES}"',                                       # 4
        "NOW = datetime.now()",                                     # 5
        'BANNER_PROMPT = f"Started {NOW}. " + RULES',               # 6
        "",                                                         # 7
        "def refresh():",                                           # 8
        "    global NOW",                                           # 9
        "    NOW = datetime.now()",                                 # 10
        "",                                                         # 11
        "def answer(question):",                                    # 12
        "    refresh()",                                            # 13
        '    system = f"Time: {NOW}. " + RULES',                    # 14
        '    return client.chat.completions.create(model="gpt-4o", messages=[',
        '        {"role": "system", "content": system}, {"role": "user", "content": question}])',
    ])
    banner, chat = load_templates(str(path))
    assert (banner.variables["now"].kind, banner.variables["now"].line) == ("stable", 5)
    assert banner.variables["now"].evidence == "filled by datetime.now() once per process, at import"
    assert chat.variables["now"].kind == "per_request"
    codes = [(f["code"], f["line"], f["column"], f["frequency"], f["evidence"]) for f in findings(path)]
    assert codes == [("PFX001", 14, 22, "per_request", "filled by datetime.now() (bot.py:10)")]


def _scopes(source: str) -> tuple[Scopes, str]:
    tree = ast.parse(source)
    starts = [0] + [i + 1 for i, c in enumerate(source) if c == "\n"]
    return Scopes(tree, lambda line, column: starts[line - 1] + column), source


def _read(scopes: Scopes, source: str, marker: str, name: str) -> str | None:
    """What `name` reads on the line of the comment `# marker`, at the last character of its code
    (the source of the assigned value)."""
    value = scopes.lookup(name, source.index("  # " + marker) - 1)
    return ast.unparse(value) if value is not None else None


def test_the_scope_rules_class_nonlocal_comprehension_and_unknown_names():
    scopes, source = _scopes(
        "x = 'module'\n"
        "class Prompts:\n"
        "    x = 'class'\n"
        "    y = x  # class-body\n"
        "    def method(self):\n"
        "        return x  # method\n"
        "def outer():\n"
        "    x = 'outer'\n"
        "    def inner():\n"
        "        nonlocal x\n"
        "        x = 'inner'\n"
        "        return x  # inner\n"
        "    def reader():\n"
        "        return x  # reader\n"
        "    return [x for x in range(3)]  # comprehension\n"
        "def loop(items):\n"
        "    for x in items:\n"
        "        pass\n"
        "    return x  # loop\n"
        "def walrus(items):\n"
        "    found = [y for i in items if (y := i)]\n"
        "    return y  # walrus\n"
        "z = x  # top\n")
    assert _read(scopes, source, "class-body", "x") == "'class'"
    assert _read(scopes, source, "method", "x") == "'module'"  # a class body is no enclosing scope
    assert _read(scopes, source, "inner", "x") == "'outer'"  # nonlocal: the enclosing function's (first text)
    assert _read(scopes, source, "reader", "x") == "'outer'"
    assert _read(scopes, source, "top", "x") == "'module'"
    assert _read(scopes, source, "loop", "x") is None  # a loop target: local, no value to read
    assert _read(scopes, source, "walrus", "y") == "i"  # `:=` in a comprehension binds in the function
    assert scopes.lookup("x", source.index("[x for") + 1) is None  # the comprehension's own target
    assert _read(scopes, source, "top", "builtin_name") is None
    assert _read(scopes, source, "top", "found") is None  # a function's local is not the module's
    assert scopes.attribute("x") is not None and ast.unparse(scopes.attribute("x")) == "'module'"
    assert scopes.attribute("found") is None  # a function's local is never an attribute


def test_a_kickoff_reads_its_inputs_from_its_own_scope(tmp_path):
    from prefixlint.load.python_modules import _calls

    _calls.cache_clear()
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "agents.yaml").write_text(
        'researcher:\n  role: "{topic} researcher"\n  goal: "Find the latest news about {topic}"\n'
        '  backstory: "You have followed this field for years and know its sources well."\n')
    (tmp_path / "main.py").write_text("\n".join([
        "from crew import Crew",                                   # 1
        "",                                                         # 2
        "def run(request):",                                        # 3
        '    inputs = {"topic": request.topic}',                    # 4
        "    def example():",                                       # 5
        '        inputs = {"topic": "open-source databases"}',      # 6
        "        return inputs",                                    # 7
        "    Crew().kickoff(inputs=inputs)",                        # 8
    ]) + "\n")
    (template,) = load_templates(str(tmp_path / "config" / "agents.yaml"))
    # the request's topic (line 4), not the literal of the nested function's own `inputs` (line 6)
    assert template.variables["topic"].kind == "per_request"
