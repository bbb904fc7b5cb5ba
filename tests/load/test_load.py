"""Loading templates: the native YAML format, plain text, the registry, and positions.

Every character of a message's content must map back to where it is written in the file,
whatever YAML scalar style holds it.
"""

from __future__ import annotations

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from prefixlint.errors import PrefixlintError
from prefixlint.load import native_yaml, plain_text
from prefixlint.load.registry import LOADERS, load_template
from prefixlint.load.yaml_source import MAX_NODES, compose

STYLES = [None, "'", '"', "|", ">"]


def positions(template, message, needle):
    index = message.content.index(needle)
    return template.position(message.offsets[index])


def test_native_yaml_messages_variables_and_overrides():
    text = (
        "tokenizer: cl100k_base\nengine: sglang\n"
        "variables:\n  now: {kind: per_request, samples: ['2025-01-01T00:00:00Z']}\n  name: Ana\n  tags: [a, b]\n  empty:\n"
        "messages:\n  - role: system\n    content: |\n      Time: {{ now }}\n      Rules.\n"
        "  - role: user\n    content: \"Hi, I am {{ name }}\"\n"
    )
    t = native_yaml.load("p.yaml", text)
    assert (t.tokenizer, t.engine, t.is_chat, t.declares_variables) == ("cl100k_base", "sglang", True, True)
    assert [m.role for m in t.messages] == ["system", "user"]
    assert t.messages[0].content == "Time: {{ now }}\nRules.\n"
    assert t.variables["now"].kind == "per_request" and t.variables["now"].samples == ("2025-01-01T00:00:00Z",)
    assert t.variables["name"].samples == ("Ana",) and t.variables["tags"].samples == ("a", "b")
    assert t.variables["empty"].samples == ()
    assert positions(t, t.messages[0], "{{ now }}") == (11, 13)
    assert positions(t, t.messages[1], "{{ name }}") == (14, 24)


def test_single_prompt_is_not_a_chat():
    t = native_yaml.load("p.yaml", "prompt: >\n  folded {{ x }}\n  text\n")
    assert not t.is_chat and t.messages[0].role is None
    assert t.messages[0].content == "folded {{ x }} text\n"
    assert positions(t, t.messages[0], "{{ x }}") == (2, 10)
    assert positions(t, t.messages[0], "text") == (3, 3)


@settings(max_examples=150, deadline=None)
# Found by hypothesis: a doubled quote at the end of a single-quoted line was paired with the
# first half of its own escape.
@example(words=["0", "''", "0"], separators=[" ", "\n"] + [" "] * 23, at=0, style=None, indent="    ")
@given(
    words=st.lists(st.text(alphabet="abcXYZ019.,:?!-'\"", min_size=1, max_size=8), min_size=1, max_size=25),
    separators=st.lists(st.sampled_from([" ", " ", "\n", "  "]), min_size=25, max_size=25),
    at=st.integers(min_value=0, max_value=25),
    style=st.sampled_from(STYLES),
    indent=st.sampled_from(["", "  ", "    "]),
)
def test_every_character_maps_back_to_the_file(words, separators, at, style, indent):
    pieces = [w + s for w, s in zip(words, separators)]
    pieces.insert(min(at, len(pieces)), "{{ x }} ")
    content = "".join(pieces).strip(" \n") or "x"
    dumped = yaml.dump({"prompt": content}, default_style=style, allow_unicode=True, width=60)
    if indent:  # the same scalar, nested one level deeper
        dumped = "meta: 1\nwrapper:\n" + "".join(indent + line + "\n" for line in dumped.splitlines())
        node = compose(dumped, "p.yaml").value[1][1]
        prompt_node = node.value[0][1]
    else:
        prompt_node = compose(dumped, "p.yaml").value[0][1]
    message = native_yaml._scalar_message(None, prompt_node, dumped, "p.yaml")
    assert message.content == content
    assert len(message.offsets) == len(content)
    assert list(message.offsets) == sorted(message.offsets)
    written = prompt_node.style  # PyYAML may quote a scalar it was asked to write plain
    for i, char in enumerate(content):
        escaped = (written == '"' and char in '"\\') or (written == "'" and char == "'")
        if not char.isspace() and not escaped:
            assert dumped[message.offsets[i]] == char, (i, char, written)
    start = content.index("{{ x }}")
    assert dumped[message.offsets[start] : message.offsets[start] + 2] == "{{"


def test_quoted_scalar_with_escapes_keeps_placeholder_positions():
    text = 'prompt: "Line\\tone \\"quoted\\"\\nLine two {{ x }} end"\n'
    t = native_yaml.load("p.yaml", text)
    assert t.messages[0].content == 'Line\tone "quoted"\nLine two {{ x }} end'
    assert positions(t, t.messages[0], "{{ x }}") == (1, text.index("{{ x }}") + 1)


def test_alias_bomb_is_refused_without_expanding():
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 9)]
    with pytest.raises(PrefixlintError, match="alias bomb") as info:
        compose("\n".join(lines) + "\nprompt: x\n", "bomb.yaml")
    assert info.value.line == 1


def test_a_few_aliases_are_fine():
    text = "common: &c {kind: per_day}\nvariables:\n  today: *c\n  date: *c\nprompt: '{{ today }} {{ date }}'\n"
    t = native_yaml.load("p.yaml", text)
    assert t.variables["today"].kind == t.variables["date"].kind == "per_day"
    assert MAX_NODES >= 10_000


@pytest.mark.parametrize(("text", "fragment", "line"), [
    ("prompt: [\n", "malformed YAML", 2),
    ("prompt: x\nmessages: []\n", "not both or neither", 1),
    ("messages:\n  - just text\n", "mapping with `role`", 2),
    ("messages:\n  - role: system\n    content: [a]\n", "expected text", 3),
    ("variables: 3\nprompt: x\n", "must be a mapping", 1),
])
def test_native_yaml_errors_are_located(text, fragment, line):
    with pytest.raises(PrefixlintError, match=fragment.replace("[", r"\[")) as info:
        native_yaml.load("p.yaml", text)
    assert info.value.line == line


@pytest.mark.parametrize(("name", "text", "syntax"), [
    ("a.md", "Hello {{ name }}", "jinja"),
    ("a.md", "Hello {{name}} (Handlebars)", "jinja"),
    ("a.txt", "{% if x %}y{% endif %}", "jinja"),
    ("a.txt", "Hello ${name}, {braces} stay", "dollar"),
    ("a.md", "Hello {name}, today is {date:%Y}", "format"),
    ("a.md", 'Reply as JSON: {{"answer": "..."}} to {question}', "format"),
    ("a.md", "{# comment #}Hello {name}", "jinja"),
    ("a.md", "No placeholders, JSON {\"a\": 1}", "jinja"),
    ("a.j2", "Hello {name}", "jinja"),
])
def test_plain_text_placeholder_syntax(name, text, syntax):
    t = plain_text.load(name, text)
    assert t.syntax == syntax and not t.is_chat and not t.declares_variables
    assert t.messages[0].content == text and t.messages[0].offsets == tuple(range(len(text)))


@pytest.mark.parametrize("text, line", [
    ("Answer the question.\nQuestion: {{ .payload.question }}\n", 2),
    ('{{ define "config" }}model: x{{ end }}\nBe brief.\n', 1),
    ("Intro\n\n{{- range .Items }}- {{ . }}\n{{ end }}", 3),
])
def test_a_go_template_is_refused_with_its_reason_and_line(text, line):
    from prefixlint.load.registry import NotATemplate

    with pytest.raises(NotATemplate, match="a Go text/template") as raised:
        plain_text.load("prompt.md", text)
    assert raised.value.line == line


@pytest.mark.parametrize("text", ["{{#items}}{{.}}{{/items}}", "Hello {{ name }}.", "{{ user.name }} asks"])
def test_mustache_and_jinja_are_not_taken_for_go(text):
    assert plain_text.load("prompt.md", text).messages[0].content == text


def test_registry_reads_by_extension_and_sniffs(tmp_path):
    assert {".yaml", ".yml", ".md", ".txt", ".j2", ".jinja", ".jinja2"} <= set(LOADERS)
    (tmp_path / "p.yml").write_text("prompt: hi\n")
    assert load_template(str(tmp_path / "p.yml")).format == "native-yaml"
    (tmp_path / "other.yaml").write_text("name: ci\non: push\n")
    with pytest.raises(PrefixlintError, match="not a recognised template"):
        load_template(str(tmp_path / "other.yaml"))
    (tmp_path / "x.csv").write_text("a,b\n")
    with pytest.raises(PrefixlintError, match="not a template file"):
        load_template(str(tmp_path / "x.csv"))


def test_semantic_kernel_settings_opening_with_comments(tmp_path):
    """Chat Copilot's appsettings.json opens with `//` lines before its `{`: still Semantic
    Kernel settings; the prompt is the texts of the object holding `{{TimeSkill.Now}}`."""
    path = tmp_path / "appsettings.json"
    path.write_text('//\n// # Application settings\n/* block */\n{\n  "Prompts": {\n'
                    '    "SystemDescription": "Be concise. Current date: {{TimeSkill.Now}}.",\n'
                    '    "SystemResponse": "Answer the last message."\n  }\n}\n')
    template = load_template(str(path))
    assert template.format == "semantic-kernel-json"
    assert template.messages[0].content == "Be concise. Current date: {{TimeSkill.Now}}.\n\nAnswer the last message."
