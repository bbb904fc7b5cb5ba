"""Hugging Face chat templates on their own: a `.jinja` chat template, or `tokenizer_config.json`.

A chat template is not a prompt with variables: it is how the server turns every request's
messages into text. `prefixlint check` runs the chat-template rules on it (PFX101: the
template writes the date; PFX102: it rewrites earlier turns), by rendering probe
conversations with the template itself (`prefixlint.rules.chat_template`).

Recognised by content: a `.jinja`/`.j2`/`.jinja2` file that loops over `messages` or reads
`add_generation_prompt`; a `.json` file that is a mapping with a `chat_template` (a string, or
named templates with a `default`). Any other `.jinja` file is plain template text. The
template's characters keep their file offsets (inside the JSON string for a config), so a
finding's template line maps to the line and column of the file.
"""

from __future__ import annotations

import re
from pathlib import PurePath

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Loader
from prefixlint.load.template import Message, Template, identity_message
from prefixlint.tokenize.huggingface import config_chat_template

FORMAT = "hf-chat-template"
_CHAT = re.compile(r"\{%-?\s*for\s+\w+\s+in\s+(?:loop_)?messages\b|\badd_generation_prompt\b")
HINT = "a tokenizer_config.json with a `chat_template`"


def sniff(text: str) -> bool:
    if re.match(r"\s*[\[{]\s*[\"\[{]", text) and _json(text) is not None:  # JSON: only a config with a template
        return '"chat_template"' in text and _config_template(text) is not None
    return bool(_CHAT.search(text))


def _json(text: str):
    """The JSON value of `text`, None when it is not JSON (or outside the reader's bounds)."""
    from prefixlint.load.json_source import load_json

    try:
        return load_json(text, None)
    except PrefixlintError:
        return None


def _config_template(text: str):
    return config_chat_template(_json(text))


def load(path: str, text: str) -> Template:
    if PurePath(path).suffix.lower() != ".json":
        message = identity_message(None, text, 0)
        return Template(path=path, format=FORMAT, source=text, messages=(message,), syntax="jinja")
    from prefixlint.load.json_source import compose_json, node_offsets
    from prefixlint.load.yaml_source import mapping_get

    root = compose_json(text, path)
    source = _config_template(text)
    node = mapping_get(root, "chat_template") if root is not None else None
    if source is None or node is None:
        raise PrefixlintError("no `chat_template` in this JSON file", path=path, line=1)
    if node.id == "sequence":  # named templates: find the default one's `template` node
        for item in node.value:
            name = mapping_get(item, "name")
            if name is not None and name.value == "default":
                node = mapping_get(item, "template")
    offsets = node_offsets(node, text) if node.id == "scalar" else (node.start_mark.index,) * len(source)
    message = Message(None, source, offsets, node.start_mark.index)
    return Template(path=path, format=FORMAT, source=text, messages=(message,), syntax="jinja")


LOADER = Loader(FORMAT, sniff, load, hint=HINT, chat_template=True)
