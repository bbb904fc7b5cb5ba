"""Undeclared inputs render as stand-ins that ordinary template code can use (issue 11, item 7),
while every way to Python internals through them stays refused."""

import pytest

from prefixlint.errors import PrefixlintError
from prefixlint.load import plain_text
from prefixlint.render.compile import compile_template
from prefixlint.render.values import Sample


def render(text: str, **values) -> str:
    compiled = compile_template(plain_text.load("a.j2", text))
    return compiled.render(values, {})[0].text


@pytest.mark.parametrize("text, expected", [
    ("{% for host, port in info.hosts.items() %}{{ host }}:{{ port }};{% endfor %}", "web:web;web:web;"),
    ("{% for k in info.keys() %}{{ k }},{% endfor %}", "web,web,"),
    ("{% for v in info.values() %}{{ v }},{% endfor %}", "web,web,"),
    ("{{ info.get('port', 80) }}", "web"),
    ("{{ info['hosts']['a'] }}", "web"),
    ("{{ info.hosts | length }}", "3"),
    ("{% for x in info %}[{{ x.name }}]{% endfor %}", "[web][web]"),
    ("{{ info.upper() }} {{ info.strip() }} {{ info.split('e') | join('-') }}", "WEB web w-b"),
    ("{{ info.describe_hosts() }}", "web"),  # a method the stand-in lacks gives its text back
])
def test_stand_ins_support_ordinary_code(text, expected):
    assert render(text, info=Sample("web")) == expected


@pytest.mark.parametrize("expression", [
    "info.__class__", "info.hosts.__class__.__mro__", "info.items.__globals__", "info.get.__self__.__class__",
    "info.items().__class__.__base__", "info.describe().__init__.__globals__", "info.__getattr__('x')",
    "info.unsafe_callable.__class__", "info.format.__globals__",
    "info.items.__func__.__globals__['__builtins__']", "(info|attr('__class__'))",
])
def test_stand_ins_refuse_python_internals(expression):
    compiled = compile_template(plain_text.load("a.j2", f"line\n{{{{ {expression} }}}}"))
    with pytest.raises(PrefixlintError) as info:
        compiled.render({"info": Sample("web")}, {})
    assert info.value.line == 2
    assert "sandbox" in info.value.message or "cannot render" in info.value.message


@pytest.mark.parametrize("name", ["unsafe_callable", "alters_data", "_secret", "__wrapped__"])
def test_probe_attributes_are_absent(name):
    with pytest.raises(AttributeError):
        getattr(Sample("x"), name)


def test_openhands_runtime_info_renders():
    text = ("{% if runtime_info.available_hosts %}Hosts:\n{% for host, port in runtime_info.available_hosts.items() -%}\n"
            "* {{ host }} (port {{ port }})\n{% endfor %}{% endif %}")
    assert render(text, runtime_info=Sample("runtime info")) == (
        "Hosts:\n* runtime info (port runtime info)\n* runtime info (port runtime info)\n")
