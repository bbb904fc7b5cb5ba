"""Template objects in Python strings (issue 19): `jinja2.Template("...{{ x }}...")` has Jinja
placeholders filled at its `.render(x=...)` site, `string.Template` has `$x` fields filled at
`.substitute(...)`. Positions are worked out from the module's text here."""

from __future__ import annotations

import keyword

from hypothesis import given
from hypothesis import strategies as st

from prefixlint.load.registry import load_templates

RULES = "\n".join(f"Rule {i}: answer from the handbook and name the section you used." for i in range(12))


def placeholders(template) -> dict[int, str]:
    return dict(template.placeholder_texts)


def test_a_jinja_template_in_a_python_string_has_its_placeholders_filled_at_render():
    text = ("import datetime\nfrom jinja2 import Template\n\n"
            f'HELPER_PROMPT = Template("""You help the team.\n{{%- if notes %}}\nNotes: {{{{ notes }}}}\n{{%- endif %}}\n'
            f'{RULES}\nToday is {{{{ today }}}}\n""")\n\n\n'
            "def build(user):\n"
            "    return HELPER_PROMPT.render(today=datetime.date.today().isoformat(), notes=user.notes)\n")
    (template,) = load_templates("helper.py", text)
    found = placeholders(template)
    assert sorted(found.values()) == ["{{ notes }}", "{{ today }}"]
    assert {text.index("{{ notes }}"), text.index("{{ today }}")} == set(found)
    today = template.variables["today"]
    assert (today.kind, today.line) == ("per_day", text[: text.index(".render(")].count("\n") + 1)
    assert today.evidence == "filled by datetime.date.today()"
    assert "notes" not in template.variables  # user.notes: no evidence in the module, named by its word
    # the block tags stay text of the prompt; no brace is read as a str.format escape
    content = template.messages[0].content
    assert "{%- if notes %}" in content.replace("{{", "{").replace("}}", "}")


def test_from_string_is_jinja_and_string_template_is_dollar_by_the_imports():
    text = ("import jinja2\nfrom string import Template\n\n"
            'ENV = jinja2.Environment()\nA_PROMPT = ENV.from_string("Hello {{ name }}, you asked about {{ topic }}.")\n'
            'B_PROMPT = Template("Hello $name, braces {{ stay }} text here.")\n')
    first, second = load_templates("mixed.py", text)
    assert sorted(placeholders(first).values()) == ["{{ name }}", "{{ topic }}"]
    assert list(placeholders(second).values()) == ["$name"]
    assert placeholders(second) == {text.index("$name"): "$name"}


def test_a_string_template_substituted_from_settings_is_stable_with_its_evidence():
    text = ("from string import Template\n\n"
            'SUPPORT_PROMPT = Template("""You answer for $company. Be brief and kind to everyone.""")\n\n\n'
            "def system(settings):\n    return SUPPORT_PROMPT.substitute(company=settings.company_name)\n")
    (template,) = load_templates("support.py", text)
    company = template.variables["company"]
    assert company.kind == "stable" and company.line == 7
    assert company.evidence.startswith("filled by settings.company_name")


_NAMES = st.from_regex(r"[a-z][a-z_]{0,10}", fullmatch=True).filter(lambda n: not keyword.iskeyword(n))


@given(st.lists(_NAMES, min_size=1, max_size=4, unique=True), st.sampled_from(["", "-"]))
def test_every_jinja_field_is_found_at_its_position(names, trim):
    body = " and ".join(f"{{{{{trim} {name} | trim {trim}}}}}" for name in names)
    text = f'from jinja2 import Template\nMY_TEMPLATE = Template("Please look at {body} now.")\n'
    (template,) = load_templates("prop.py", text)
    found = placeholders(template)
    expected, at = {}, 0
    for name in names:
        at = text.index("{{" + trim + " " + name + " ", at)
        expected[at] = text[at : text.index("}}", at) + 2]
    assert found == expected


def test_a_message_list_assigned_to_a_prompt_name_is_one_chat_with_its_dollar_fields():
    """`prompt_template = [{"role": "system", ...}, few-shot turns, {"role": "user", "content":
    "Query: ${query}"}]`, substituted later with string.Template: a chat whose last user message
    holds `${query}`."""
    text = (f'guide = """{RULES}"""\nshot_in = "Query: when was the library founded?"\n'
            'shot_out = "founded, established, opened"\n\n'
            'prompt_template = [\n    {"role": "system", "content": guide},\n'
            '    {"role": "user", "content": shot_in},\n    {"role": "assistant", "content": shot_out},\n'
            '    {"role": "user", "content": "Query: ${query}"},\n]\n')
    (template,) = load_templates("expansion.py", text)
    assert [m.role for m in template.messages] == ["system", "user", "assistant", "user"]
    assert placeholders(template) == {text.index("${query}"): "${query}"}
    assert template.messages[0].offsets[0] == text.index("Rule 0")


def test_each_text_of_a_prompt_dict_is_a_prompt_of_its_own():
    text = ('TASK_PROMPTS = {\n    "summarize": "Summarize the following text in two sentences:\\n\\n",\n'
            '    "qa": "Answer from the context.\\nContext: {context}\\nQuestion: {question}",\n    "limit": 3,\n}\n')
    first, second = load_templates("tasks.py", text)
    assert (first.prompt_name, second.prompt_name) == ("TASK_PROMPTS['summarize']", "TASK_PROMPTS['qa']")
    assert first.messages[0].offsets[0] == text.index("Summarize")
    assert sorted(placeholders(second).values()) == ["{context}", "{question}"]
