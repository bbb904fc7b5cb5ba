"""Prompt files of any shape (issue 19 item 6): string values with prose and placeholders under any key."""

from __future__ import annotations

import json

import pytest

from prefixlint.load.registry import NotATemplate, load_templates

RULES = "\n".join(f"  Rule {i}: answer in full sentences and cite the source document." for i in range(3))


def test_strings_under_any_key_each_with_its_own_syntax(tmp_path):
    path = tmp_path / "prompts" / "bot.yml"
    path.parent.mkdir()
    text = (f"chat:\n  system_template: |\n    You are a helpful bot. The user is {{user_name}}.\n{RULES}\n"
            "  fixpy: |\n    Fix the following Python code and explain the change in two sentences: {{ code }}\n"
            "label: Say hello {name}\nworkflow: run the tests with ${{ matrix.python }} on every supported version\n")
    path.write_text(text)
    first, second = load_templates(str(path))
    assert (first.syntax, first.messages[0].role, first.is_chat) == ("format", "system", True)
    assert first.messages[0].content.startswith("You are a helpful bot. The user is {user_name}.")
    offset = first.messages[0].offsets[first.messages[0].content.index("{user_name}")]
    assert text[offset:offset + 11] == "{user_name}"  # each character at its place in the file
    assert (second.syntax, second.messages[0].role) == ("jinja", None)
    # a short label and a CI expression are no prompts


def test_json_strings_and_no_evidence_no_prompt(tmp_path):
    folder = tmp_path / "instructions"
    folder.mkdir()
    data = {"tasks": [{"content": "Summarise the ticket below for the on-call engineer, then list actions: ${ticket}"}]}
    (folder / "support.json").write_text(json.dumps(data, indent=2))
    (template,) = load_templates(str(folder / "support.json"))
    assert (template.syntax, template.format) == ("dollar", "prompt-strings")
    (tmp_path / "settings.yaml").write_text("greeting: Hello {user} and welcome to the app, we are happy you are here\n")
    with pytest.raises(NotATemplate, match="nothing says its strings are prompts"):
        load_templates(str(tmp_path / "settings.yaml"))
