"""A prompt file filled with `render(**values)` (the keys of the dict written for it) and a value
computed from the object's own evolving state (`self.charge -= used` in a method)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from prefixlint.cli import cli

RULES = "\n".join(f"{n}. Decide for the household alone and explain the decision in one plain sentence." for n in range(12))
SYSTEM = "You are the household's energy agent.\nCurrent charge: {{ charge_pct }}% of the battery.\n" + RULES + "\n"

AGENT = '''from datetime import datetime

from jinja2 import Environment, FileSystemLoader


class Agent:
    def __init__(self, persona):
        self.persona = persona
        self.charge = 0.5
        self.env = Environment(loader=FileSystemLoader("prompts"))

    def set_persona(self, persona):
        self.persona = persona

    def discharge(self, used):
        self.charge -= used

    def prompt(self):
        values = {
            "charge_pct": int(self.charge * 100),
            "persona": self.persona,
            "today": datetime.now().date().isoformat(),
        }
        return self.env.get_template("system.j2").render(**values)
'''


def _findings(tmp_path, system: str = SYSTEM, agent: str = AGENT) -> dict[str, dict]:
    (tmp_path / ".git").mkdir()
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "system.j2").write_text(system)
    (tmp_path / "agent.py").write_text(agent)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(tmp_path / "prompts" / "system.j2")])
    assert result.exit_code in (0, 1), result.output
    return {f["variable"]: f for f in json.loads(result.output)["files"][0]["findings"]}


def test_a_value_computed_from_state_a_method_updates_is_per_request(tmp_path):
    charge = _findings(tmp_path)["charge_pct"]
    # `charge_pct` says nothing by its name; the code updates `self.charge` in discharge()
    assert (charge["code"], charge["severity"], charge["line"], charge["column"]) == ("PFX005", "error", 2, 17)
    assert charge["evidence"] == "self.charge, which discharge() changes (agent.py:16)"


def test_the_keys_of_the_spread_dict_are_the_fill_and_a_value_a_method_only_sets_is_not_state(tmp_path):
    system = "You are {{ persona }}. Today is {{ today }}.\n" + RULES + "\n"
    found = _findings(tmp_path, system)
    today = found["today"]
    assert (today["code"], today["line"], today["column"]) == ("PFX001", 1, 33)
    assert today["evidence"] == "filled by datetime.now() (agent.py:22)"
    # set_persona() sets `self.persona` anew, it does not evolve it: the name is the evidence left
    assert found.get("persona", {}).get("evidence", "its name (persona)") == "its name (persona)"


def test_without_the_update_the_state_is_no_evidence(tmp_path):
    found = _findings(tmp_path, agent=AGENT.replace("self.charge -= used", "print(used)"))
    assert "charge_pct" not in found
