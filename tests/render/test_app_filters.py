"""A template file that uses filters its application registers (`env.filters["xml_text"] = ...`)
is measured with those filters taken out, not refused."""

from __future__ import annotations

import json

from click.testing import CliRunner

from prefixlint.cli import cli

RULES = "".join(f"{n}. Keep every answer short and say which file it comes from.\n" for n in range(12))


def _check(tmp_path, text: str):
    (tmp_path / "system.j2").write_text(text)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", str(tmp_path / "system.j2")])
    return result.exit_code, json.loads(result.output)


def test_a_value_behind_an_application_filter_is_measured_where_it_stands(tmp_path):
    code, report = _check(tmp_path, "You are the agent.\nTime: {{ now | xml_text }}\n"
                                    "{% filter shout %}Read the rules.{% endfilter %}\n" + RULES)
    assert report["errors"] == []
    (finding,) = report["files"][0]["findings"]
    assert (code, finding["code"], finding["line"], finding["column"], finding["variable"]) == (1, "PFX001", 2, 7, "now")


def test_a_filter_jinja_knows_is_kept(tmp_path):
    code, report = _check(tmp_path, "You are the agent.\n{{ 'rules' | upper }}: {{ now | default('today') }}\n" + RULES)
    (finding,) = report["files"][0]["findings"]
    assert (finding["line"], finding["column"], finding["variable"]) == (2, 24, "now")
    assert finding["shared_prefix_tokens"] > 5  # "RULES: " rendered ahead of the value, by `upper`
