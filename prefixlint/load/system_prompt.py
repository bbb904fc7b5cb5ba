"""Which templates are system prompts.

A chat server serves a system prompt followed by the conversation, so `check` measures it that
way (`prefixlint.check.served`). A template is a system prompt when
- its loader says so: messages that are all `role: system` (native YAML, Prompty, Dotprompt and
  Semantic Kernel system sections, LangChain `("system", ...)`), a string the code passes as a
  system prompt (`system=`, `instructions=`, `SystemMessage(...)`, `{"role": "system"}`) or assigns
  to a name starting with `system` (`SYSTEM_PROMPT`, `systemPrompt`);
- its file is named like one: `system.txt`, `system_prompt.md`, `systemprompt.md`,
  `custom-system-prompt.md` (`system`, or `system` and `prompt` in its name), or its folder is
  named `system` or `system_prompts` (`prompts/chat/system/base.j2`); not for a module of program source, whose loader decides;
- the code that reads the file sends it as the system message of a request
  (`prefixlint.load.file_sends`); not when it sends it as the user's prompt, whatever its name;
- the configuration lists it: `system-prompts = ["prompts/agent.md", "agents/*/system.j2"]`
  (gitignore-style patterns, relative to the configuration file's folder, as `exclude`).
A single prompt recognised by its name or the configuration becomes one system message.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import PurePath

from prefixlint.load.template import Template

#: File names of system prompts (without their extensions): `system`, `*system*prompt*`.
SYSTEM_FILE = re.compile(r"^(?:system|.*system.*prompt.*)$", re.IGNORECASE)
#: Folders whose templates are system prompts.
SYSTEM_FOLDERS = frozenset({"system", "system_prompt", "system_prompts", "system-prompts", "systemprompts"})


def named_like_system_prompt(path: str) -> bool:
    """Whether the file's name or folder says it is a system prompt."""
    where = PurePath(os.path.abspath(path))
    return bool(SYSTEM_FILE.match(where.name.split(".")[0])) or where.parent.name.lower() in SYSTEM_FOLDERS


def as_system_prompt(template: Template, listed: bool = False) -> Template:
    """The template measured as a system prompt when its name says so or the configuration lists
    it (`listed`): a single prompt becomes one system message. A conversation keeps its roles."""
    from prefixlint.load.registry import loader_for

    # In program source the code says which prompts are system prompts, not the module's name (a
    # `system_prompts.py` may hold user prompts too).
    if template.sent_as in ("user", "prompt") and not listed:  # the code sends it as the user's prompt
        return template
    listed = listed or template.sent_as == "system"
    if template.is_chat or not (listed or (named_like_system_prompt(template.path)
                                           and not loader_for(template.format).program_source)):
        return template
    messages = tuple(replace(message, role="system") for message in template.messages)
    return replace(template, messages=messages, is_chat=True)
