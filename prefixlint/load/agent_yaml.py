"""An agent's YAML configuration whose `system_prompt:` key holds the system prompt.

    type: agent
    name: market_scan_agent
    system_prompt: "Date: {{date}}. You are a market scanning agent. ..."
    llm_config: {temperature: 0.5}
    tools: [...]

Agent frameworks (NexAU, and many in-house ones) keep the system prompt as one text value of
the agent's configuration, beside its model settings and tools; placeholders are Jinja2
(`{{date}}`), or str.format (`{date}`) when the text has no Jinja. The prompt is a system
message on its own, so it is measured as a chat server serves it: followed by the conversation
(`prefixlint.check.served`). A `system_prompt` that names a file (`systemprompt.md`, no blank
in it) is not a prompt here: that file is checked on its own.
"""

from __future__ import annotations

import re

from prefixlint.errors import PrefixlintError
from prefixlint.load.base import Loader
from prefixlint.load.plain_text import placeholder_syntax
from prefixlint.load.template import Message, Template, align
from prefixlint.load.yaml_source import compose, line_of, mapping_get

FORMAT = "agent-yaml"
KEYS = ("system_prompt", "system_message")
_KEY = re.compile(r"^(?:system_prompt|system_message)[ \t]*:[ \t]*\S", re.MULTILINE)
HINT = "an agent configuration has a top-level `system_prompt:` text"


def sniff(text: str) -> bool:
    return _KEY.search(text[:200_000]) is not None


def load(path: str, text: str) -> Template:
    root = compose(text, path)
    if root is None or root.id != "mapping":
        raise PrefixlintError("an agent configuration is a YAML mapping", path=path, line=1, hint=HINT)
    node = next((value for value in (mapping_get(root, key) for key in KEYS) if value is not None), None)
    if node is None or node.id != "scalar" or node.tag.endswith(":null"):
        raise PrefixlintError("`system_prompt` must be text", path=path, line=line_of(node or root), hint=HINT)
    content = node.value
    if not any(char.isspace() for char in content.strip()):
        from prefixlint.load.registry import NotATemplate

        raise NotATemplate("`system_prompt` names a file, not a prompt", path=path, line=line_of(node), hint=HINT)
    offsets = align(content, text, node.start_mark.index, node.end_mark.index, node.style)
    syntax = "jinja" if "{{" in content or "{%" in content else placeholder_syntax(path, content)
    return Template(path=path, format=FORMAT, source=text,
                    messages=(Message("system", content, offsets, node.start_mark.index),),
                    syntax=syntax, is_chat=True)


LOADER = Loader(FORMAT, sniff, load, hint=HINT)
