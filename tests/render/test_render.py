"""Rendering with spans: every substituted character maps back to its placeholder, in Jinja
(sandboxed) and in the str.format and ${x} styles."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.errors import PrefixlintError
from prefixlint.load import native_yaml, plain_text
from prefixlint.render.compile import compile_template
from prefixlint.render.conversation import join


def render(name, text, values, functions=None):
    compiled = compile_template(plain_text.load(name, text))
    return compiled, compiled.render(values, functions or {})[0]


def test_jinja_spans_positions_names_and_calls():
    text = "Hi {{ name|upper }}!\n{% for d in docs %}- {{- d }}\n{% endfor %}At {{ strftime_now('%H:%M') }}."
    compiled, out = render("a.j2", text, {"name": "ana", "docs": ["x", "yy"]}, {"strftime_now": lambda f: "09:30"})
    assert out.text == "Hi ANA!\n-x\n-yy\nAt 09:30."
    assert [(s.placeholder, out.text[s.start:s.end]) for s in out.spans] == [(0, "ANA"), (1, "x"), (1, "yy"), (2, "09:30")]
    p0, p1, p2 = compiled.placeholders
    assert (p0.line, p0.column, p0.text, p0.names) == (1, 4, "{{ name|upper }}", ("name",))
    assert (p1.line, p1.column, p1.text, p1.names) == (2, 22, "{{- d }}", ())
    assert (p2.line, p2.column, p2.calls, p2.call_args) == (3, 16, ("strftime_now",), ("%H:%M",))
    assert compiled.variables == ("docs", "name") and compiled.functions == ("strftime_now",)


def test_handlebars_style_and_two_on_one_line():
    compiled, out = render("a.md", "{{a}}{{b}} and {{ a }}", {"a": "1", "b": "22"})
    assert out.text == "122 and 1"
    assert [(p.column, p.text) for p in compiled.placeholders] == [(1, "{{a}}"), (6, "{{b}}"), (16, "{{ a }}")]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet="ab \n.", max_size=6), st.sampled_from(["x", "y"])), min_size=1, max_size=8),
       st.text(alphabet="XYZ \n", min_size=0, max_size=5), st.text(alphabet="PQ", min_size=1, max_size=5))
def test_spans_cover_exactly_the_substituted_values(parts, x, y):
    text = "".join(f"{literal}{{{{ {name} }}}}" for literal, name in parts)
    compiled, out = render("p.md", text, {"x": x, "y": y})
    values = {"x": x, "y": y}
    assert len(out.spans) == len(parts)
    rebuilt, cursor = [], 0
    for span, (_literal, name) in zip(out.spans, parts):
        assert out.text[span.start:span.end] == values[name]
        rebuilt.append(out.text[cursor:span.start])
        cursor = span.end
        placeholder = compiled.placeholders[span.placeholder]
        assert text[placeholder.offset:].startswith(f"{{{{ {name} }}}}")
    assert rebuilt == [literal for literal, _ in parts]


def test_format_and_dollar_styles():
    compiled, out = render("a.txt", 'Today {date}; {{"a": 1}}; {user.name}; {n:>3}!',
                           {"date": "Mon", "user": {"name": "Li"}, "n": 7})
    assert out.text == 'Today Mon; {"a": 1}; Li;   7!'
    assert [(p.column, p.names) for p in compiled.placeholders] == [(7, ("date",)), (27, ("user",)), (40, ("n",))]
    assert [out.text[s.start:s.end] for s in out.spans] == ["Mon", "Li", "  7"]
    compiled, out = render("a.txt", "Q: ${question}\nA: ${answer}", {"question": "why?", "answer": "because"})
    assert out.text == "Q: why?\nA: because"
    assert [(p.line, p.column) for p in compiled.placeholders] == [(1, 4), (2, 4)]


def test_format_style_refuses_private_attributes():
    with pytest.raises(PrefixlintError, match="private attribute") as info:
        compile_template(plain_text.load("a.txt", "ok\n{x.__class__}"))
    assert (info.value.line, info.value.column) == (2, 1)


@pytest.mark.parametrize("expression", [
    "''.__class__.__mro__", "x.__class__", "cycler.__init__.__globals__", "lipsum.__globals__['os']",
    "self.__init__.__globals__", "[].append(1)", "{}.update(a=1)",
])
def test_sandbox_refuses_internals_and_mutation(expression):
    compiled = compile_template(plain_text.load("a.j2", f"line\n{{{{ {expression} }}}}"))
    with pytest.raises(PrefixlintError) as info:
        compiled.render({"x": "s"}, {})
    assert info.value.line == 2
    assert "sandbox" in info.value.message or "cannot render" in info.value.message


def test_undefined_variable_reports_its_line_in_the_file():
    text = "variables:\n  a: {}\nprompt: |\n  one\n  {{ a.missing }}\n"
    compiled = compile_template(native_yaml.load("p.yaml", text))
    with pytest.raises(PrefixlintError, match="has no attribute 'missing'") as info:
        compiled.render({"a": "text"}, {})
    assert info.value.line == 5


def test_syntax_error_line_maps_into_the_file():
    text = "variables: {}\nmessages:\n  - role: system\n    content: |\n      fine\n      {{ oops( }}\n"
    with pytest.raises(PrefixlintError, match="Jinja syntax error") as info:
        compile_template(native_yaml.load("p.yaml", text))
    assert info.value.line == 6


def test_conversation_join_offsets():
    from prefixlint.render.spans import RenderedMessage

    messages = [RenderedMessage("system", "Rules.", ()), RenderedMessage("user", "Hi", ())]
    text, starts = join(messages, is_chat=True)
    assert text == ("<|im_start|>system<|im_sep|>Rules.<|im_end|><|im_start|>user<|im_sep|>Hi<|im_end|>"
                    "<|im_start|>assistant<|im_sep|>")
    assert [text[s:s + 2] for s in starts] == ["Ru", "Hi"]
    assert join(messages[:1], is_chat=False) == ("Rules.", (0,))


@pytest.mark.parametrize(("expression", "fragment"), [
    ("'x' * 10**9", "too large"),
    ("[1, 2] * 100000000", "too large"),
    ("7 ** 100000000", "too large"),
    ("range(10**9) | list", "cannot render"),
])
def test_sandbox_bounds_resources(expression, fragment):
    compiled = compile_template(plain_text.load("a.j2", f"ok\n{{{{ {expression} }}}}"))
    with pytest.raises(PrefixlintError, match=fragment) as info:
        compiled.render({}, {})
    assert info.value.line == 2


def test_runaway_loop_is_stopped(monkeypatch):
    from prefixlint import sandbox

    monkeypatch.setattr(sandbox, "RENDER_SECONDS", 0.2)
    text = "ok\n{% for i in range(99999) %}{% for j in range(99999) %}{% endfor %}{% endfor %}"
    compiled = compile_template(plain_text.load("a.j2", text))
    with pytest.raises(PrefixlintError, match="longer than 0.2 s"):
        compiled.render({}, {})


def test_jinja_globals_are_not_variables():
    compiled, out = render("a.j2", "{% for i in range(2) %}{{ i }}{% endfor %} {{ dict(a=1).a }}", {})
    assert compiled.variables == () and compiled.functions == ()
    assert out.text == "01 1"


def test_generated_samples_stand_in_for_structures():
    from prefixlint.render.values import Sample, variable_value

    history = variable_value("chat_history", (), "paragraph", 0, volatile=True)
    assert isinstance(history, Sample)
    text = "{% for item in chat_history %}[{{ item.inputs.question }}|{{ item['answer'] }}|{{ item.title }}]{% endfor %}"
    _, out = render("a.j2", text, {"chat_history": history})
    assert out.text == f"[{history}|{history}|{history}]" * 2
    assert history.upper() == str(history).upper() and len(history) == len(str(history))


def test_prompt_flow_role_lines_make_a_conversation():
    from prefixlint.render.conversation import split_roles

    text = "Preamble.\n# system:\nRules {{ a }}.\n\n# user:\n{{ q }}\n"
    template = plain_text.load("flow.jinja2", text)
    assert template.is_chat and template.role_markers
    rendered = compile_template(template).render({"a": "A", "q": "Q?"}, {})[0]
    messages = split_roles(rendered)
    assert [(m.role, m.text) for m in messages] == [("system", "Preamble."), ("system", "Rules A."), ("user", "Q?")]
    assert [[m.text[s.start:s.end] for s in m.spans] for m in messages] == [[], ["A"], ["Q?"]]


def test_placeholders_after_raw_blocks_and_comments_keep_their_columns():
    text = '{% raw %}{{ x }}{% endraw %} {# {{ y }} #} {{ "{{" }} {{ z }}'
    compiled, out = render("a.j2", text, {"z": "Z"})
    assert out.text == "{{ x }}  {{ Z"
    assert [(p.column, text[p.offset:].startswith(p.text)) for p in compiled.placeholders] == [(44, True), (55, True)]
