"""Template syntax errors say where and how to fix them; the YAML hint names prefixlint's format."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli


@pytest.mark.parametrize("name, text, where, hint", [
    ("a.md", "First line.\nHello {{ name }, you are the assistant.\n", "2:7",
     "`{{` is not closed: close it with `}}`"),
    # Jinja stops on line 3; the `{{` that is not closed opens on line 2, at column 10
    ("d.md", "You are a helpful assistant.\nToday is {{ today .\nMore text here.\n", "2:10",
     "`{{` is not closed: close it with `}}`"),
    ("e.md", "One {{ a }} two {% if x %}\nthree {{ b\nfour {{ c }}\n{% endif %}\n", "2:7",
     "`{{` is not closed: close it with `}}`"),
    ("b.j2", "Hi\n{% if vip %}\nHello {{ name }}\nBye\n", "2:1",
     "the `{% if %}` opened on line 2 is never closed: add `{% endif %}`"),
    ("c.j2", "Hi\n{% for m in items %}\n{{ m }}\n", "2:1",
     "the `{% for %}` opened on line 2 is never closed: add `{% endfor %}`"),
    # the inner block is the one left open, not the last `if` of the file
    ("f.j2", "{% if a %}x{% endif %}\n  {% for m in items %}{% if m %}\n{{ m }}{% endif %}\n", "2:3",
     "the `{% for %}` opened on line 2 is never closed: add `{% endfor %}`"),
    ("g.j2", "Intro\n{% for x in items %}\n{{ x }}\n{% endif %}\n", "2:1",
     "the `{% for %}` opened on line 2 is closed by `{% endif %}` on line 4: close it with `{% endfor %}`"),
    # a YAML message: lines and columns of the file, in the location and in the hint
    ("h.yaml", "messages:\n  - role: system\n    content: |\n      Hi\n      {% for x in y %}\n      Hello\n", "5:7",
     "the `{% for %}` opened on line 5 is never closed: add `{% endfor %}`"),
    ("i.yaml", "messages:\n  - role: system\n    content: |\n      Hello {{ name\n      world\n", "4:13",
     "`{{` is not closed: close it with `}}`"),
    ("chat_template.jinja", "{%- for m in messages %}\n{{ m['content'] }\n{%- endfor %}\n", "2:1",
     "`{{` is not closed: close it with `}}`"),
])
def test_a_syntax_error_names_its_line_column_and_how_to_close_it(tmp_path, name, text, where, hint):
    path = tmp_path / name
    path.write_text(text)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--no-cache", str(path)])
    assert result.exit_code == 2
    assert f"prefixlint: error: {path}:{where}: Jinja syntax error" in result.stderr
    assert f"  hint: {hint}" in result.stderr


def test_an_error_no_hint_explains_keeps_jinjas_line(tmp_path):
    path = tmp_path / "a.md"
    path.write_text("First.\nHi {{ a + }} there\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", "--no-cache", str(path)])
    assert result.exit_code == 2
    assert f"prefixlint: error: {path}:2: Jinja syntax error: unexpected 'end of print statement'" in result.stderr
    assert "hint:" not in result.stderr


def test_the_not_a_template_hint_names_prefixlints_own_yaml_format(tmp_path):
    path = tmp_path / "x.yaml"
    path.write_text("foo: bar\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", str(path)])
    assert result.exit_code == 2
    assert "prefixlint's own YAML format has a top-level `messages:`" in result.stderr
