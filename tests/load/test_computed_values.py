"""Values the code computes (`computed`, `python_runs`, issue 19 item 5): what the process reads
of its machine (the user, the host, the working folder) is the same on every request; a clock
read in a function whose result is cached for the process is read once; a clock beside a
machine value in one expression still changes the value."""

from __future__ import annotations

import ast
import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.python_runs import function_lines

RULES = "\n".join(f"- Rule {i}: plan the work in small steps and write each step down before you act." for i in range(12))


def findings(path) -> dict[str, dict]:
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    return {f["variable"]: f for f in json.loads(result.output)["files"][0]["findings"]}


PYTHON = f'''import getpass
import os
import socket
from datetime import datetime
from functools import lru_cache
from pathlib import Path


{{decorator}}
def system_prompt({{self}}):
    return f"""Working in {{{{{{value}}}}}}.
{RULES}
"""
'''


@pytest.mark.parametrize("value", ["os.getcwd()", "Path.cwd()", "getpass.getuser()", "socket.gethostname()",
                                   "Path.home() / 'notes'"])
def test_what_the_process_reads_of_its_machine_is_the_same_on_every_request(tmp_path, value):
    path = tmp_path / "prompts.py"
    path.write_text(PYTHON.format(decorator="", self="", value=value))
    assert findings(path) == {}


def test_a_clock_beside_the_working_folder_is_the_clock(tmp_path):
    path = tmp_path / "prompts.py"
    path.write_text(PYTHON.format(decorator="", self="", value="Path.cwd() / datetime.now().isoformat()"))
    (found,) = findings(path).values()
    assert (found["code"], found["line"], found["frequency"]) == ("PFX001", 11, "per_request")
    assert found["evidence"] == "filled by Path.cwd() / datetime.now().isoformat() (prompts.py:11)"


@pytest.mark.parametrize(("decorator", "self"), [("@lru_cache(maxsize=1)", ""), ("@lru_cache", ""),
                                                 ("@functools.cache", ""), ("@cached_property", "self"),
                                                 ("@st.cache_resource", "")])
def test_a_clock_in_a_function_cached_for_the_process_is_read_once(tmp_path, decorator, self):
    path = tmp_path / "prompts.py"
    path.write_text(PYTHON.format(decorator=decorator, self=self, value="datetime.now()"))
    assert findings(path) == {}


@pytest.mark.parametrize(("decorator", "self"), [("", ""), ("@lru_cache", "user"), ("@retry", "")])
def test_a_function_that_takes_a_value_or_is_not_cached_reads_the_clock_each_call(tmp_path, decorator, self):
    path = tmp_path / "prompts.py"
    path.write_text(PYTHON.format(decorator=decorator, self=self, value="datetime.now()"))
    (found,) = findings(path).values()
    assert (found["code"], found["line"], found["column"]) == ("PFX001", 11, 27)
    assert found["evidence"] == "filled by datetime.now() (prompts.py:11)"


def test_a_function_nested_in_a_cached_one_runs_on_each_of_its_calls():
    tree = ast.parse("@cache\ndef outer():\n    x = 1\n    def inner():\n        return 2\n    return inner\n")
    lines = function_lines(tree)
    assert [lines.once(line) for line in range(1, 7)] == [None, "outer", "outer", None, None, "outer"]


TS = '''import os from "node:os";

export function systemPrompt(): string {
  return `Working in ${VALUE}.
RULES
`;
}
'''.replace("RULES", RULES)


@pytest.mark.parametrize(("value", "volatile"), [("process.cwd()", False), ("os.hostname()", False),
                                                 ("os.userInfo().username", False),
                                                 ("process.cwd() + new Date().toISOString()", True)])
def test_node_s_machine_values_are_the_same_on_every_request(tmp_path, value, volatile):
    path = tmp_path / "prompts.ts"
    path.write_text(TS.replace("VALUE", value))
    found = findings(path)
    assert bool(found) is volatile
    if volatile:
        assert next(iter(found.values()))["code"] == "PFX001"
