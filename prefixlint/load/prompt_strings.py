"""Prompt files of any shape (issue 19 item 6): a YAML or JSON file, in no prompt format of its
own, whose string values hold prose with placeholders (`chat: |`, `instruction_template:`,
`content:`, a template nested under the prompt's name beside its input types).

Tried after every format with a declared structure. The file is read as prompts when its
folder or name says it holds prompts (`prompts/`, `system_instructions.yml`,
`agents/*.yaml`: `prompt_evidence.PROMPT_PATH`); each string value (under any key, at any depth)
of at least `MIN_WORDS` words with a placeholder is one prompt, its placeholder syntax decided
for that string (`{{x}}` Jinja/Handlebars, `${x}`, `{x}`), a system message when its key says
`system`. Strings of GitHub Actions expressions (`${{ ... }}`) are no prompts.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from prefixlint.load.base import Loader
from prefixlint.load.registry import NotATemplate
from prefixlint.load.template import Message, Template, align

FORMAT = "prompt-strings"
HINT = "a YAML/JSON file of prompt texts is read when its folder or name says so (prompts/, *prompt*, *instruction*)"
#: Words a string needs to be prose, not a label, a path or a command.
MIN_WORDS = 8
_PLACEHOLDER = re.compile(r"\{\{\s*[#>$]?\s*[A-Za-z_][\w.]*\s*\}\}|(?<!\$)\$\{[A-Za-z_][\w.]*\}|(?<![{$])\{[A-Za-z_]\w*\}(?!\})")
_ACTIONS = re.compile(r"\$\{\{")
_FOLDERS = re.compile(r"agents?|tasks?|personas?|roles?", re.IGNORECASE)


def sniff(text: str) -> bool:
    return _PLACEHOLDER.search(text) is not None


def sniff_walked(text: str) -> bool:
    """A walk takes YAML by its extension; JSON (data, manifests) only when named or configured."""
    return not text.lstrip().startswith(("{", "[")) and sniff(text)


def load(path: str, text: str) -> Template:
    return load_all(path, text)[0]


def load_all(path: str, text: str) -> list[Template]:
    from prefixlint.load.plain_text import placeholder_syntax
    from prefixlint.load.prompt_evidence import PROMPT_PATH
    from prefixlint.load.yaml_source import compose

    where = PurePath(path)
    parts = [*where.parent.parts[-2:], where.stem]
    if not any(PROMPT_PATH.search(part) or _FOLDERS.fullmatch(part) for part in parts):
        raise NotATemplate("not a recognised template: in no prompt format, and nothing says its strings are prompts",
                           path=path, line=1,
                           hint=HINT)
    root = compose(text, path)
    templates = []
    for key, node in _strings(root, None):
        content = node.value
        if len(content.split()) < MIN_WORDS or not _PLACEHOLDER.search(content) or _ACTIONS.search(content):
            continue
        start, end = node.start_mark.index, node.end_mark.index
        role = "system" if key and "system" in key.lower() else None
        message = Message(role, content, align(content, text, start, end, node.style), start)
        templates.append(Template(path=path, format=FORMAT, source=text, messages=(message,),
                                  syntax=placeholder_syntax("x.txt", content), is_chat=role is not None))
    if not templates:
        raise NotATemplate("no string with prose and placeholders in this file", path=path, line=1, hint=HINT)
    return templates


def _strings(node, key: str | None):
    """(the key it is under, scalar node) for every string value, depth first, in file order."""
    if node is None:
        return
    if node.id == "scalar":
        if node.tag.endswith(":str") and key is not None:
            yield key, node
    elif node.id == "mapping":
        for key_node, value in node.value:
            yield from _strings(value, str(key_node.value) if key_node.id == "scalar" else key)
    elif node.id == "sequence":
        for item in node.value:
            yield from _strings(item, key)


LOADER = Loader(FORMAT, sniff, load, hint=HINT, walked=sniff_walked, many=load_all, declared=False)
