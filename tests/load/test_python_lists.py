"""A Python function's list of prompt sections, grown and then joined (issue 19 item 4):
`parts = [...]`, `parts.append(...)` (also under an `if`), `"\\n\\n".join(parts)`. Fixtures
written for these tests; positions checked against the text."""

from __future__ import annotations

import ast
import json

from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.python_lists import joined_items
from prefixlint.load.python_values import Resolver
from prefixlint.load.registry import load_templates

RULES = ("Rule 1: answer in full sentences and cite the handbook section you used for each claim.\\n"
         "Rule 2: never invent a policy; say plainly when the handbook does not cover the question.\\n"
         "Rule 3: keep answers under two hundred words unless the employee asks for more detail.")

MODULE = f'''from datetime import date

IDENTITY = "You are the handbook assistant of the company."
RULES = "{RULES}"


def build_system_prompt(user_name, extra=None):
    parts = [IDENTITY, f"Today is {{date.today()}}."]
    parts.append(RULES)
    if extra:
        parts.append(f"Note: {{extra}}")
    parts += ["Be kind."]
    return "\\n\\n".join(parts)
'''


def items_of(text: str) -> list[str]:
    tree = ast.parse(text)
    resolver = Resolver(text, tree)
    join = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "join")
    found = joined_items(resolver, join.args[0])
    return None if found is None else [ast.unparse(item) for item in found]


def test_the_sections_in_the_order_the_code_adds_them():
    assert items_of(MODULE) == ["IDENTITY", "f'Today is {date.today()}.'", "RULES", "f'Note: {extra}'", "'Be kind.'"]


def test_the_built_prompt_is_measured_with_the_date_ahead_of_the_rules(tmp_path):
    module = tmp_path / "prompts.py"
    module.write_text(MODULE)
    (template,) = load_templates(str(module))
    content = template.messages[0].content
    assert content.startswith("You are the handbook assistant of the company.\n\nToday is {")
    assert content.index("Rule 1") < content.index("Note: {extra}") < content.index("Be kind.")
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(module)])
    (finding,) = [f for entry in json.loads(result.stdout)["files"] for f in entry["findings"] if f["code"] == "PFX001"]
    line = MODULE.splitlines().index('    parts = [IDENTITY, f"Today is {date.today()}."]') + 1
    assert (finding["line"], finding["column"]) == (line, len('    parts = [IDENTITY, f"Today is ') + 1)


def test_a_list_grown_in_a_loop_or_changed_otherwise_is_not_read():
    loop = MODULE.replace("    parts.append(RULES)\n", "    for rule in RULES.split():\n        parts.append(rule)\n")
    assert items_of(loop) is None
    for change in ("    parts.insert(0, RULES)\n", "    parts.sort()\n", "    parts[0] = RULES\n", "    shuffle(parts)\n"):
        assert items_of(MODULE.replace("    parts += [", change + "    parts += [")) is None, change


def test_another_functions_list_of_the_same_name_is_not_mixed_in():
    other = MODULE + "\n\ndef other():\n    parts = ['x']\n    parts.append('y')\n    return parts\n"
    assert items_of(other) == items_of(MODULE)
