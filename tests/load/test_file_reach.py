"""A prompt file nothing in the repository names, while the code opens its folder's other files
by name (`load.file_reach`): left over, so its findings are information. Fixtures written for
these tests."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.file_reach import unnamed

RULES = "".join(f"Rule {i}: answer in full sentences, cite the source document and keep it short.\n" for i in range(12))
MANAGER = '''from jinja2 import Environment, FileSystemLoader

env = Environment(loader=FileSystemLoader("prompts"))


def system_prompt():
    return env.get_template("system.j2").render()
'''


def repo(tmp_path: Path, manager: str) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "system.j2").write_text("You are the shop's assistant.\n" + RULES)
    draft = tmp_path / "prompts" / "draft.j2"
    draft.write_text("Asked at {{ current_time }}:\n" + RULES)
    (tmp_path / "manager.py").write_text(manager)
    return draft


def findings(path: Path):
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(path)])
    return result.exit_code, [f for e in json.loads(result.stdout)["files"] for f in e.get("findings", [])]


def test_a_file_no_code_names_beside_one_the_code_opens_by_name_is_information(tmp_path):
    draft = repo(tmp_path, MANAGER)
    assert unnamed(str(draft)) == ("system.j2", "manager.py")
    code, found = findings(draft)
    assert code == 0 and [(f["code"], f["line"], f["severity"]) for f in found] == [("PFX001", 1, "info")]
    assert found[0]["unnamed"] == {"sibling": "system.j2", "named_in": "manager.py"}
    assert "Nothing in the repository names this file, while its folder's `system.j2` is named (manager.py)" \
        in found[0]["message"]


def test_a_file_named_by_its_stem_is_read(tmp_path):
    draft = repo(tmp_path, MANAGER + '\n\ndef draft():\n    return load_prompt("draft")\n')
    assert unnamed(str(draft)) is None
    code, found = findings(draft)
    assert code == 1 and [(f["code"], f["severity"]) for f in found] == [("PFX001", "error")]


def test_a_name_the_code_may_build_is_never_claimed(tmp_path):
    for number, built in enumerate(('env.get_template(f"{kind}.j2")', 'env.get_template(kind + ".j2")',
                                    'Path("prompts").glob("*.j2")')):
        (tmp_path / str(number)).mkdir()
        draft = repo(tmp_path / str(number), MANAGER + f"\n\ndef other(kind):\n    return {built}\n")
        assert unnamed(str(draft)) is None, built


def test_without_a_sibling_named_in_code_nothing_is_claimed(tmp_path):
    draft = repo(tmp_path, "print('no prompt files are opened here')\n")
    assert unnamed(str(draft)) is None
    assert unnamed(str(tmp_path / "prompts" / "system.j2")) is None  # named itself
