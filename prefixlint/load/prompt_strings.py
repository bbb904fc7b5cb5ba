"""Prompt files of any shape (issue 19 item 6): a YAML or JSON file, in no prompt format of its
own, whose string values hold prose with placeholders (`chat: |`, `instruction_template:`,
`content:`, a template nested under the prompt's name beside its input types).

Tried after every format with a declared structure. The file is read as prompts when its
folder or name says it holds prompts (`prompts/`, `system_instructions.yml`,
`agents/*.yaml`: `prompt_evidence.PROMPT_PATH`), whatever folder the command runs from (the
file's own path, resolved, is the evidence); each string value (under any key, at any depth)
of at least `MIN_WORDS` words, or of `KEY_WORDS` under a key named like a prompt's (`role:`,
`system:`, `instructions:`), with a placeholder, is one prompt; in a file without any, each
such constant string is (a file of constant system prompts is measured, and clean). The
placeholder syntax is decided per string (`{{x}}` Jinja/Handlebars, `${x}`, `{x}`), a system
message when its key says `system`. Strings of GitHub Actions expressions (`${{ ... }}`) are
no prompts. A walk reads only the files with a placeholder somewhere (`sniff_walked`): the others can hold no volatile value.
"""

from __future__ import annotations

import re
from pathlib import Path

from prefixlint.load.base import Loader
from prefixlint.load.registry import NotATemplate, unrecognised
from prefixlint.load.template import Message, Template, align

FORMAT = "prompt-strings"
HINT = "a YAML/JSON file of prompt texts is read when its folder or name says so (prompts/, *prompt*, *instruction*)"
#: Words a string needs to be prose, not a label, a path or a command.
MIN_WORDS = 8
#: Words a string needs under a key named like a prompt's (`role: Research specialist. Be concise.`).
KEY_WORDS = 3
_PROMPT_KEY = re.compile(r"prompt|instruction|system|role|persona|backstory|goal|template|content|message", re.IGNORECASE)
_PLACEHOLDER = re.compile(r"\{\{\s*[#>$]?\s*[A-Za-z_][\w.]*\s*\}\}|(?<!\$)\$\{[A-Za-z_][\w.]*\}|(?<![{$])\{[A-Za-z_]\w*\}(?!\})")
_ACTIONS = re.compile(r"\$\{\{")
_FOLDERS = re.compile(r"agents?|tasks?|personas?|roles?", re.IGNORECASE)


def sniff(text: str) -> bool:
    """The last loader of its extensions: `load_all` decides, on the file's folder and name."""
    return True


def sniff_walked(text: str) -> bool:
    """A walk takes YAML with a placeholder by its extension; JSON (data, manifests) only when
    named or configured."""
    return not text.lstrip().startswith(("{", "[")) and _PLACEHOLDER.search(text) is not None


def load(path: str, text: str) -> Template:
    return load_all(path, text)[0]


def load_all(path: str, text: str) -> list[Template]:
    from prefixlint.load.plain_text import placeholder_syntax
    from prefixlint.load.prompt_evidence import PROMPT_PATH
    from prefixlint.load.yaml_source import compose

    where = Path(path).resolve()
    parts = [*where.parent.parts[-2:], where.stem]
    if not any(PROMPT_PATH.search(part) or _FOLDERS.fullmatch(part) for part in parts):
        if not _PLACEHOLDER.search(text):
            raise unrecognised(path)
        raise NotATemplate("not a recognised template: in no prompt format, and nothing says its strings are prompts",
                           path=path, line=1,
                           hint=HINT)
    root = compose(text, path)
    prose = [(key, node) for key, node in _strings(root, None)
             if len(node.value.split()) >= (KEY_WORDS if key and _PROMPT_KEY.search(key) else MIN_WORDS)
             and not _ACTIONS.search(node.value)]
    # the strings with placeholders; a file that has none is a file of constant prompts
    chosen = [(key, node) for key, node in prose if _PLACEHOLDER.search(node.value)] or prose
    templates = []
    for key, node in chosen:
        content = node.value
        start, end = node.start_mark.index, node.end_mark.index
        role = "system" if key and "system" in key.lower() else None
        message = Message(role, content, align(content, text, start, end, node.style), start)
        templates.append(Template(path=path, format=FORMAT, source=text, messages=(message,),
                                  syntax=placeholder_syntax("x.txt", content), is_chat=role is not None))
    if not templates:
        raise NotATemplate("no string with prose in this file", path=path, line=1, hint=HINT)
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
