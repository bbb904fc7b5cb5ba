"""A prompt constant or a value imported from another module of the repository (issue 19 item 4),
in Python: read from that module's top-level binding (`from config import SYSTEM_PROMPT`, `from .
import prompts` then `prompts.SYSTEM`), its characters placed at the name's use, its own values
and an imported value that is not text per process (the module runs once, at import); a module
outside the repository, a name a function rebinds and a local that shadows the import are not
followed. Each module is written here in our own words."""

from __future__ import annotations

import json

from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.registry import load_templates
from tests.load.test_ts_assembly import write
from tests.test_python_source import findings, where

RULES = ("Answer questions about bread, opening hours and allergens in short sentences. Keep it kind. "
         "Never promise a delivery time; say the shop will call back. Prices are in the shop's list. ")
CONFIG = ("from datetime import datetime\n"                       # 1
          "\n"                                                    # 2
          f'RULES = "{RULES}"\n'                                  # 3
          'SYSTEM_PROMPT = f"""You are the assistant of a bakery.\n'  # 4
          "Started: {datetime.now():%Y-%m-%d %H:%M}\n"            # 5: evaluated once, at import
          '""" + RULES\n'                                         # 6
          "MAX_TURNS = 5\n")                                      # 7


def agent(imported: str, system: str) -> str:
    return ("from datetime import datetime\n\nfrom openai import OpenAI\n\n" + imported + "\n"
            "client = OpenAI()\n\n\n"
            "def reply(history):\n"
            "    now = datetime.now().isoformat()\n"
            f"    system = {system}\n"
            '    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "system", "content": system},'
            " *history])\n")


def repository(tmp_path):
    (tmp_path / ".git").mkdir(parents=True)
    (tmp_path / "agents").mkdir()
    write(tmp_path / "agents", "config.py", CONFIG)
    return tmp_path / "agents"


def test_an_imported_constant_is_read_from_its_module_and_placed_at_its_use(tmp_path):
    folder = repository(tmp_path)  # a script's folder is on sys.path: `from config import` is agents/config.py
    path = write(folder, "agent.py", agent("from config import MAX_TURNS, SYSTEM_PROMPT as BAKERY\n",
                                           'f"Now: {now}\\n{BAKERY}\\nAt most {MAX_TURNS} questions."'))
    (template,) = load_templates(str(path))
    imported = f"You are the assistant of a bakery.\nStarted: {{now_2}}\n{RULES}"
    assert [(m.role, m.content) for m in template.messages] == [
        ("system", f"Now: {{now}}\n{imported}\nAt most {{max_turns}} questions."), ("(conversation)", "*history")]
    started, turns = template.variables["now_2"], template.variables["max_turns"]
    assert (started.kind, started.line, started.evidence) == (
        "stable", None, "filled by datetime.now() once per process, at import (config.py:5)")
    assert (turns.kind, turns.samples, turns.evidence) == (
        "stable", ("5",), "5, imported from config.py:7, set once per process, at import")
    system = template.messages[0]
    start = len("Now: {now}\n")
    use = path.read_text().index("{BAKERY}")  # every imported character is at the name's field
    assert set(system.offsets[start : start + len(imported)]) == {use}
    (finding,) = findings(path)  # the request's clock, ahead of the imported text and the history
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(path, "{now}"))


def test_a_module_attribute_and_a_relative_import_read_the_same_text(tmp_path):
    folder = repository(tmp_path)
    write(folder, "__init__.py", "")
    for imported, name in (("from . import config\n", "config.SYSTEM_PROMPT"),
                           ("from .config import SYSTEM_PROMPT\n", "SYSTEM_PROMPT"),
                           ("import config as settings\n", "settings.SYSTEM_PROMPT")):
        path = write(folder, "agent.py", agent(imported, name))
        (template,) = load_templates(str(path))
        assert template.messages[0].content == f"You are the assistant of a bakery.\nStarted: {{now}}\n{RULES}"
        assert findings(path) == []  # the module's clock runs once per process


def test_a_re_export_of_a_package_is_followed_to_the_module_that_binds_it(tmp_path):
    folder = repository(tmp_path)
    (folder / "prompts").mkdir()
    write(folder / "prompts", "__init__.py", "from .texts import SYSTEM\n")
    write(folder / "prompts", "texts.py", f'SYSTEM = "You are the assistant of a bakery. {RULES}"\n')
    path = write(folder, "agent.py", agent("from prompts import SYSTEM\n", 'f"{SYSTEM}\\nNow: {now}"'))
    (template,) = load_templates(str(path))
    assert template.messages[0].content == f"You are the assistant of a bakery. {RULES}\nNow: {{now}}"


def test_outside_the_repository_rebound_or_shadowed_names_are_not_followed(tmp_path):
    write(tmp_path, "config.py", CONFIG)  # above the checkout: not the repository's text
    checkout = tmp_path / "app"
    checkout.mkdir()
    (checkout / ".git").mkdir()
    outside = write(checkout, "agent.py", agent("from config import SYSTEM_PROMPT\n", 'f"{SYSTEM_PROMPT}\\n{now}"'))
    (template,) = load_templates(str(outside))
    assert template.messages[0].content == "{system_prompt}\n{now}"
    folder = repository(tmp_path / "other")
    write(folder, "config.py", CONFIG + "\n\ndef reload():\n    global SYSTEM_PROMPT\n    SYSTEM_PROMPT = input()\n")
    rebound = write(folder, "agent.py", agent("from config import SYSTEM_PROMPT\n", 'f"{SYSTEM_PROMPT}\\n{now}"'))
    (template,) = load_templates(str(rebound))
    assert template.messages[0].content == "{system_prompt}\n{now}"
    # (a label of its own: a text of values only, none of them a prompt, is no prompt: `has_content`)
    shadowed = write(folder, "shadow.py", agent("from config import RULES\n", 'f"Now: {now}\\n{RULES}"').replace(
        "    now = ", "    RULES = history[0]\n    now = "))
    (template,) = load_templates(str(shadowed))
    assert template.messages[0].content == "Now: {now}\n{rules}"


def test_an_imported_template_filled_here_is_measured_once_in_its_own_module(tmp_path):
    """`SYSTEM_PROMPT.format(now=...)` on an imported template: the template's own module is
    measured, with this call's values as its evidence; the caller does not measure it again (two
    findings of one value, the second placed at the imported name)."""
    folder = repository(tmp_path)
    write(folder, "prompts.py", f'SYSTEM_PROMPT = """Now: {{now}}\n{RULES}"""\n')
    caller = write(folder, "chat.py", (
        "from datetime import datetime\n\nfrom openai import OpenAI\n\nfrom prompts import SYSTEM_PROMPT\n\n"
        "client = OpenAI()\n\n\ndef reply(history):\n"
        "    system = SYSTEM_PROMPT.format(now=datetime.now().isoformat())\n"
        '    return client.chat.completions.create(model="m", messages=[{"role": "system", "content": system},'
        " *history])\n"))
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(folder)])
    found = {entry["path"]: entry["findings"] for entry in json.loads(result.stdout)["files"]}
    assert result.exit_code == 1 and not found.get(str(caller))
    (finding,) = found[str(folder / "prompts.py")]
    assert (finding["code"], finding["line"], finding["column"]) == ("PFX001", *where(folder / "prompts.py", "{now}"))
    assert finding["evidence"] == "filled by datetime.now() (agents/chat.py:11)"  # the clock, where the call is
