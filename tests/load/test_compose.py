"""Template composition (issue 19 item 3): includes, extends/blocks and partials, inside the repository."""

from __future__ import annotations

from prefixlint.load.compose import MAX_DEPTH, compose, compose_origins
from prefixlint.load.registry import load_template


def make(root, name, text):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_include_is_inlined_and_points_at_its_tag(tmp_path):
    (tmp_path / ".git").mkdir()
    make(tmp_path, "prompts/partials/rules.txt", "Cite your sources.\n")
    main = make(tmp_path, "prompts/main.j2", 'Hi {{ user }}.\n{% include "partials/rules.txt" %}\nBye.\n')
    text, offsets = compose(str(main), main.read_text())
    assert text == "Hi {{ user }}.\nCite your sources.\n\nBye.\n"
    tag = main.read_text().index("{%")
    assert offsets[:15] == tuple(range(15))  # the file's own text at its own offsets
    assert set(offsets[15:15 + len("Cite your sources.\n")]) == {tag}
    assert offsets[-5:] == tuple(range(len(main.read_text()) - 5, len(main.read_text())))
    template = load_template(str(main))
    assert template.messages[0].content == text and len(template.messages[0].offsets) == len(text)


def test_extends_puts_the_childs_blocks_into_the_base(tmp_path):
    (tmp_path / ".git").mkdir()
    make(tmp_path, "p/base.txt",
         "Today is {{ date }}.\n{% block body %}default{% endblock %}\n{% block tail %}End.{% endblock %}\n")
    child = make(tmp_path, "p/cmd.txt", '{% extends "base.txt" %}\nignored\n{% block body %}Write the post.{% endblock %}\n')
    text, offsets = compose(str(child), child.read_text())
    assert text == "Today is {{ date }}.\nWrite the post.\nEnd.\n"
    start = text.index("Write")
    assert offsets[start] == child.read_text().index("Write")  # the child's block at its own place


def test_handlebars_partial_and_what_is_left_as_written(tmp_path, monkeypatch):
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    make(tmp_path, "repo/t/footer.hbs", "Thanks.")
    make(tmp_path, "secret.txt", "outside")
    main = make(tmp_path, "repo/t/main.md", "Hello {{name}}. {{> footer}} {{> missing}} {% include '../../secret.txt' %}")
    text, _ = compose(str(main), main.read_text())
    # outside the repository and missing names stay as written
    assert text == "Hello {{name}}. Thanks. {{> missing}} {% include '../../secret.txt' %}"


def test_a_template_that_includes_itself_stops_at_the_depth_limit(tmp_path):
    (tmp_path / ".git").mkdir()
    loop = make(tmp_path, "loop.j2", 'a{% include "loop.j2" %}')
    text, offsets = compose(str(loop), loop.read_text())
    assert text == "a" * (MAX_DEPTH + 1) + '{% include "loop.j2" %}'
    assert len(offsets) == len(text)


BASE = "You are the editor of a recipe site.\n\nToday is {{ today }}.\n\n{% block body %}{% endblock %}\n"
RULES = "".join(f"Rule {i}: keep every recipe's quantities in grams and its steps numbered.\n" for i in range(8))


def test_the_base_templates_own_text_keeps_where_it_is_written(tmp_path):
    (tmp_path / ".git").mkdir()
    base = make(tmp_path, "prompts/base.txt", BASE)
    child = make(tmp_path, "prompts/edit.txt", '{% extends "base.txt" %}\n{% block body %}' + RULES + "{% endblock %}\n")
    text, offsets, origins = compose_origins(str(child), child.read_text())
    assert text == BASE.replace("{% block body %}{% endblock %}", RULES)
    run, tail = origins  # the base's text up to its block, and the newline after the block
    assert (run.start, run.end, run.path, run.offset) == (0, BASE.index("{% block"), str(base), 0)
    assert (tail.start, tail.end, tail.offset) == (len(text) - 1, len(text), len(BASE) - 1)
    assert set(offsets[: run.end]) == {0}  # for fixes and suppressions: the child's `{% extends %}` tag
    template = load_template(str(child))
    at = text.index("{{ today }}")
    assert template.origin(0, at) == (str(base), 3, 10)  # `Today is {{ today }}.` is line 3 of the base
    assert template.origin(0, text.index("Rule 0")) is None  # the child's own block


def test_a_finding_on_the_base_names_the_base_and_its_line(tmp_path, monkeypatch):
    import json

    from click.testing import CliRunner

    from prefixlint.cli import cli

    (tmp_path / ".git").mkdir()
    make(tmp_path, "prompts/base.txt", BASE)
    make(tmp_path, "prompts/edit.txt", '{% extends "base.txt" %}\n{% block body %}' + RULES + "{% endblock %}\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--no-cache", "--format", "json", "prompts/edit.txt"])
    (entry,) = json.loads(result.stdout)["files"]
    assert entry["path"] == "prompts/edit.txt"  # the prompt measured
    (finding,) = entry["findings"]
    assert (finding["path"], finding["line"], finding["column"], finding["end_column"]) == ("prompts/base.txt", 3, 10, 21)
    assert finding["code"] == "PFX001" and finding["fix"] is None
    assert "written in base.txt, which edit.txt extends" in finding["fix_unavailable"]
    assert finding["message"].endswith("Measured in edit.txt, which extends base.txt.")
    text = CliRunner().invoke(cli, ["check", "--isolated", "--no-cache", "prompts/edit.txt"]).stdout
    assert text.startswith("prompts/base.txt:3:10: PFX001 {{ today }}")
