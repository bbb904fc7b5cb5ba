"""Whether every use of a system prompt sends it alone: the part `python_turns.sent_alone` and
`ts_turns.sent_alone` share. Each language says, for one use, the line of the request of one
system and one user message it builds, the name of the function that returns the prompt (its
callers then decide), or None (a conversation after it, or a use that cannot be seen through)."""

from __future__ import annotations

import re
from typing import Callable, Iterable, Sequence

#: Words of a name whose value is a conversation: a user message built from one is no single turn.
_CONVERSATION_WORDS = ("history", "conversation", "messages", "memory", "transcript", "chat", "turns", "dialog")
#: A template's field filled later: `{history}`, `{{ history }}`, `{{$history}}`.
_FIELD = re.compile(r"\{\{?\s*\$?(\w+)")


def reads_a_conversation(names: Iterable[str], texts: Iterable[str] = ()) -> bool:
    """Whether a message's content reads a conversation: one of its `names` (`chat_history`,
    `chatMessages`), or a field of one of its `texts` (`"{history}\\n{question}"`), says so."""
    found = [*names, *(field for text in texts for field in _FIELD.findall(text))]
    return any(word in name.lower() for name in found for word in _CONVERSATION_WORDS)


def first_site_if_all_alone(modules: Iterable[tuple[str, bool, Sequence[int | str | None]]],
                            follow: Callable[[str], str | None]) -> str | None:
    """`"agent.py:42"`: the first request of the first module with one, when every use of every
    module (`(file name, is the prompt's own module, verdicts in order)`) sends the prompt alone;
    a function name in the prompt's own module is answered by `follow` (where its callers send
    it); None as soon as one use does not, or when no use is found."""
    sites: list[str] = []
    for shown, own, verdicts in modules:
        for verdict in verdicts:
            if isinstance(verdict, str) and own:
                inner = follow(verdict)
                if inner is None:
                    return None
                sites.append(inner)
            elif isinstance(verdict, int):
                sites.append(f"{shown}:{verdict}")
            else:
                return None
    return sites[0] if sites else None
