"""Mustache (pystache) and Handlebars (dotpromptz-handlebars) rendering with spans: every
substitution's span holds exactly the value, placeholders sit where they are written, block
lines are removed as the engines remove them, and bad templates are located errors."""

from __future__ import annotations

import pytest

from prefixlint.errors import PrefixlintError
from prefixlint.load.template import Template, identity_message
from prefixlint.render.engine_spans import EngineTemplate


def engine(syntax: str, text: str) -> EngineTemplate:
    return EngineTemplate(Template(path="t", format="test", source=text, messages=(identity_message(None, text, 0),),
                                   syntax=syntax))


@pytest.mark.parametrize("syntax", ["mustache", "handlebars"])
def test_spans_hold_the_values_and_placeholders_their_positions(syntax):
    loop = "{{#each docs}}- {{title}}\n{{/each}}" if syntax == "handlebars" else "{{#docs}}- {{title}}\n{{/docs}}"
    text = f"Hello {{{{name}}}}!\n{loop}Bye {{{{{{raw}}}}}}."
    compiled = engine(syntax, text)
    assert set(compiled.variables) == {"name", "docs", "raw"}
    (message,) = compiled.render({"name": "Ana & Bo", "docs": [{"title": "A<1>"}, {"title": "B"}], "raw": "<x>"}, {})
    assert message.text == "Hello Ana & Bo!\n- A<1>\n- B\nBye <x>."  # no HTML escaping
    pieces = [(compiled.placeholders[s.placeholder].text, message.text[s.start : s.end]) for s in message.spans]
    assert pieces == [("{{name}}", "Ana & Bo"), ("{{title}}", "A<1>"), ("{{title}}", "B"), ("{{{raw}}}", "<x>")]
    for placeholder in compiled.placeholders:
        lines = text.split("\n")
        assert lines[placeholder.line - 1][placeholder.column - 1 :].startswith(placeholder.text)


def test_handlebars_helpers_and_comments():
    text = "{{!-- {{not_a_placeholder}} --}}Data: {{json profile}}{{! note }}"
    compiled = engine("handlebars", text)
    assert compiled.variables == ("profile",)
    (message,) = compiled.render({"profile": {"plan": "pro"}}, {})
    assert message.text == 'Data: {"plan": "pro"}'


@pytest.mark.parametrize(("syntax", "text", "where", "words"), [
    ("handlebars", "ok\n  {{#if x}}\nnever closed", (2, 3), "unclosed block {{#if}}"),
    ("mustache", "a {{#a}}\nb {{/b}}", (2, 3), "{{/b}} does not close an open block"),
    ("handlebars", "x\n{{user.__proto__}}", (2, 1), "private attribute"),
])
def test_bad_templates_are_located(syntax, text, where, words):
    with pytest.raises(PrefixlintError) as caught:
        engine(syntax, text)
    assert (caught.value.line, caught.value.column) == where and words in caught.value.message


def test_project_helper_in_a_subexpression_gets_a_neutral_stand_in():
    """`(includes tools "git")` calls a helper the project defines (oh-my-pi's system prompt):
    it is not a variable, and the template renders; a condition on undeclared inputs shows its
    body (the text the block may add is measured), as for any `{{#unless}}`."""
    text = '{{#unless (includes tools "git")}}git, {{/unless}}npm at {{dateTime}}'
    compiled = engine("handlebars", text)
    assert set(compiled.variables) == {"tools", "dateTime"}
    (message,) = compiled.render({"tools": ["git"], "dateTime": "noon"}, {})
    assert message.text == "git, npm at noon"
