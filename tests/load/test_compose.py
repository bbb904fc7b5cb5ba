"""Template composition (issue 19 item 3): includes, extends/blocks and partials, inside the repository."""

from __future__ import annotations

from prefixlint.load.compose import MAX_DEPTH, compose
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
