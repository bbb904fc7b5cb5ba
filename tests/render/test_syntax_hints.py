"""Template syntax errors say where and how to fix them; the YAML hint names prefixlint's format."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli


@pytest.mark.parametrize("name, text, line, hint", [
    ("a.md", "First line.\nHello {{ name }, you are the assistant.\n", 2,
     "`{{` at column 7 is not closed: close it with `}}`"),
    ("b.j2", "Hi\n{% if vip %}\nHello {{ name }}\nBye\n", 2,
     "the `{% if %}` opened on line 2 is never closed: add `{% endif %}`"),
    ("c.j2", "Hi\n{% for m in items %}\n{{ m }}\n", 2,
     "the `{% for %}` opened on line 2 is never closed: add `{% endfor %}`"),
])
def test_a_syntax_error_names_its_line_and_how_to_close_it(tmp_path, name, text, line, hint):
    path = tmp_path / name
    path.write_text(text)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--no-cache", str(path)])
    assert result.exit_code == 2
    assert f"prefixlint: error: {path}:{line}: Jinja syntax error" in result.stderr
    assert f"  hint: {hint}" in result.stderr


def test_the_not_a_template_hint_names_prefixlints_own_yaml_format(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("foo: bar\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", str(path)])
    assert result.exit_code == 2
    assert "prefixlint's own YAML format has a top-level `messages:`" in result.stderr
