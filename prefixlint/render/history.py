"""The conversation slot's value: earlier turns of a plausible conversation, the same in every render.

A conversation slot (chat history, `{{history}}`, a messages placeholder) changes every turn,
but only by appending: the turns already in it are exactly what the previous request ended
with, so they are reusable prefix as long as nothing ahead of them changed. prefixlint renders
the slot with the same earlier turns in both requests of a measurement; a volatile value in
the system message ahead of the slot then costs the reuse of the whole history.

`History` is a list of `{role, content}` turns (templates loop over it: `{% for m in history %}
{{ m.role }}: {{ m.content }}`) whose `str()` is the turns framed as messages (a template that
prints it whole: `{{ history }}`, `{history}`, `{{$history}}`).
"""

from __future__ import annotations


TURNS = (
    ("user", "Hi, I ordered a laptop last week and it still has not shipped. Order number 48213."),
    ("assistant", "Thanks for the order number. Order 48213 is packed and waiting for the carrier; it"
                  " should ship within two business days, and you will get the tracking link by e-mail."),
    ("user", "Can I still change the delivery address to my office?"),
    ("assistant", "Yes. Until it ships you can change the address under Orders > 48213 > Delivery, or"
                  " tell me the new address and I will update it for you."),
)


def frame(role: str, content: str) -> str:
    """One message framed as `prefixlint.render.conversation.join` frames messages (ChatML)."""
    return f"<|im_start|>{role}<|im_sep|>{content}<|im_end|>"


class History(list):
    """Earlier turns as a list of `{role, content}` dicts; printed whole, the framed messages."""

    def __init__(self, turns=TURNS) -> None:
        super().__init__({"role": role, "content": content} for role, content in turns)

    def __str__(self) -> str:
        return "".join(frame(turn["role"], turn["content"]) for turn in self)


def slot_text() -> str:
    """What a slot message renders to: the earlier turns, each framed as a message."""
    return str(History())


class JsList(list):
    """A list that also answers `.length`, as templates written for JavaScript engines read it
    (promptfoo's Nunjucks: `turn.input[turn.input.length - 1].content`)."""

    @property
    def length(self) -> int:
        return len(self)


def promptfoo_turns(turns=TURNS) -> list[dict]:
    """promptfoo's `_conversation`: each earlier turn as `{input, output}`, `input` being the
    messages sent then (the user's message last), `output` the reply."""
    pairs = [(turns[i][1], turns[i + 1][1]) for i in range(0, len(turns) - 1, 2)]
    return [{"input": JsList([{"role": "user", "content": ask}]), "output": reply} for ask, reply in pairs]


def history_value(name: str):
    """The value of a conversation-slot variable: the same earlier turns in every render.

    A hook for the history measurement: a loop over a history-like name (see
    `prefixlint.load.template.loop_slots`) renders these turns, never per-request text."""
    return promptfoo_turns() if name == "_conversation" else History()
