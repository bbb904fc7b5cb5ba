"""A message added after the conversation, for a prompt with no user message (issue 15).

When a system prompt is followed only by the conversation history, a value moved to the end
of the system prompt would still come before the history; the fix adds a short system message
after the conversation instead, where the file's syntax can hold one. Today: a LangChain
`ChatPromptTemplate.from_messages([...])` list in Python whose last item is the conversation
(`("placeholder", "{messages}")` or `MessagesPlaceholder("history")`), and whose moved text is
written verbatim in its literal (a template string, not an f-string's evaluated value).
"""

from __future__ import annotations

import json
import re

from prefixlint.fix.edits import Edit

#: The conversation item of a `from_messages` list, up to its closing parenthesis.
_SLOT_ITEM = re.compile(r"""(?:"[^"\n]*"|'[^'\n]*')\s*(?:,[^()\n]*)?\)""")


class CannotAdd(Exception):
    pass


def added_message(template, messages, plan) -> Edit:
    """The insertion of `("system", "<moved text>")` after the conversation item."""
    if template.format != "python":
        raise CannotAdd("no user message to move it into, and this file cannot hold a message after the conversation")
    slot = messages[-1]
    at = slot.files[0] if slot.files else slot.end
    item = _SLOT_ITEM.match(template.source, at)
    if item is None:
        raise CannotAdd("no user message to move it into, and the conversation is not a LangChain message list item")
    texts = []
    for (number, start, end), (lead, tail) in zip(plan.origins, plan.wraps):
        message = messages[number]
        stop = message.files[end] if end < len(message.files) else message.end
        written = template.source[message.files[start] : stop].rstrip(" \t\n\\")
        if written != message.text[start:end]:
            raise CannotAdd("the moved text is not written verbatim in its literal (an f-string's value)")
        texts.append(lead + message.text[start:end] + tail)
    content = json.dumps("\n".join(t.rstrip("\n") for t in texts), ensure_ascii=False)
    return Edit(item.end(), item.end(), f', ("system", {content})')
