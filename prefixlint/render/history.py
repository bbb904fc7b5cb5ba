"""The conversation history a request is measured with: earlier turns, the same in every render.

A conversation slot (chat history, `{{history}}`, a messages placeholder, a loop over
`history`) changes every turn, but only by appending: the turns already in it are exactly what
the previous request ended with, so they are reusable prefix as long as nothing ahead of them
changed. A system prompt on its own is served the same way: the chat server puts the
conversation after it. prefixlint renders the history with the same earlier turns in both
requests of a measurement, so a volatile value in the system prompt costs the reuse of the
whole history, on every turn.

The history is `history-turns` turns (default 4; configuration key), each one user message and
the assistant's reply, of the lengths a support chat has (a sentence or two asked, a paragraph
answered), taken in order from `EXCHANGES` (repeated beyond its end). `History` is a list of
`{role, content}` turns (templates loop over it: `{% for m in history %}{{ m.role }}:
{{ m.content }}`) whose `str()` is the turns framed as messages (a template that prints it
whole: `{{ history }}`, `{history}`, `{{$history}}`). `CURRENT` is the user's message of the
turn being served: the last user message, where a fix moves a per-request value.
"""

from __future__ import annotations

import re

#: Earlier turns of a plausible support chat: (the user's message, the assistant's reply).
EXCHANGES = (
    ("Hi, I ordered a laptop last week and it still has not shipped. Order number 48213.",
     "Thanks for the order number. Order 48213 is packed and waiting for the carrier: the warehouse"
     " finished it on Monday, but the carrier missed its pickup slot, so it will leave with Thursday's"
     " collection instead. It should ship within two business days, and you will get the tracking link"
     " by e-mail as soon as the carrier scans the parcel. If it has not shipped by Friday evening,"
     " tell me and I will ask the warehouse to send it by express delivery at no extra cost."),
    ("Can I still change the delivery address to my office? I am not at home during the day.",
     "Yes. Until the parcel ships you can change the address yourself under Orders > 48213 > Delivery,"
     " or tell me the new address here and I will update it for you. Please include the company name"
     " and, if there is one, the floor or the reception desk, because the carrier needs someone to sign"
     " for a laptop: parcels worth more than 500 euros are never left at a door. Once the order has"
     " shipped, the address can only be changed with the carrier, which takes a day longer."),
    ("It's Harbour Point, 3rd floor reception, 12 Quay Street, Dublin 2. Same postcode as before?",
     "I have changed the delivery address of order 48213 to Harbour Point, 3rd floor reception, 12 Quay"
     " Street, Dublin 2. The postcode is different from your home address: Dublin 2 instead of Dublin 6,"
     " and I have updated it too. You will get a confirmation e-mail in a few minutes. Delivery to a"
     " business address is made between 9:00 and 17:00 on working days, so the reception desk will need"
     " to sign for it; the carrier will try twice before returning the parcel to our depot."),
    ("Great, thanks. Does the laptop come with a charger for Ireland, or do I need an adapter?",
     "It comes with a USB-C charger and a detachable cable with a Type G plug, the one used in Ireland"
     " and the United Kingdom, so you do not need an adapter. The charger works from 100 to 240 volts,"
     " so when you travel you only need a plug adapter, not a voltage converter. If you would like a"
     " second charger for the office, the same 65-watt model is in our accessories section; orders"
     " placed before 15:00 ship the same day, and it can go in a separate parcel to the new address."),
    ("Can I return it if the keyboard layout is not what I expect?",
     "Yes. You can return the laptop within 30 days of delivery for any reason, as long as it comes back"
     " with all its accessories and in its original box. Start the return under Orders > 48213 > Return:"
     " you will get a prepaid label, and the refund goes to the card you paid with within five working"
     " days of the parcel reaching us. The product page lists the layout as UK English; if you need"
     " another one, tell me before it ships and I can check whether we can exchange it in time."),
    ("No, UK English is what I want. Is the extended warranty worth it?",
     "It depends on how you use it. The laptop has a two-year manufacturer's warranty that covers"
     " hardware faults. The extended warranty adds a third year and accidental damage, such as a"
     " dropped laptop or a spilled drink, with one repair or replacement per year and a courier that"
     " collects the laptop from your address. It costs 89 euros and can be added until 30 days after"
     " delivery, so you do not need to decide today; I can send you its terms by e-mail if you like."),
)
#: How many turns a history has unless the configuration says otherwise (`history-turns`).
DEFAULT_TURNS = 4
#: The user's message of the turn being served: the last user message of the request.
CURRENT = "One more thing: will I get an invoice with my company's VAT number on it?"


def turns(count: int = DEFAULT_TURNS) -> tuple[tuple[str, str], ...]:
    """The (role, content) messages of `count` turns, in order (repeated beyond `EXCHANGES`)."""
    pairs = [EXCHANGES[number % len(EXCHANGES)] for number in range(count)]
    return tuple(message for ask, reply in pairs for message in (("user", ask), ("assistant", reply)))


#: The default history's messages.
TURNS = turns()


def frame(role: str, content: str) -> str:
    """One message framed as `prefixlint.render.conversation.join` frames messages (ChatML)."""
    return f"<|im_start|>{role}<|im_sep|>{content}<|im_end|>"


class History(list):
    """Earlier turns as a list of `{role, content}` dicts; printed whole, the framed messages."""

    def __init__(self, turns=TURNS) -> None:
        super().__init__({"role": role, "content": content} for role, content in turns)

    @classmethod
    def of(cls, count: int = DEFAULT_TURNS) -> "History":
        return cls(turns(count))

    @property
    def messages(self) -> tuple[tuple[str, str], ...]:
        return tuple((turn["role"], turn["content"]) for turn in self)

    def __str__(self) -> str:
        return "".join(frame(turn["role"], turn["content"]) for turn in self)

    def appended(self) -> "History":
        """The same turns and the next exchange after them: the conversation one turn later."""
        ask, reply = EXCHANGES[len(self) // 2 % len(EXCHANGES)]
        return History((*self.messages, ("user", ask), ("assistant", reply)))


def slot_text(history: History | None = None) -> str:
    """What a slot message renders to: the earlier turns, each framed as a message."""
    return str(History() if history is None else history)


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


class Fields(dict):
    """A mapping whose every field is one text (`inputs.question`, `inputs.chat_input`)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def __missing__(self, key):
        return self.text

    def __str__(self) -> str:
        return self.text


def flow_turns(turns=TURNS) -> list[dict]:
    """Prompt flow's `chat_history`: each earlier turn as `{inputs, outputs}`, whatever the names
    of the flow's input and output (`item.inputs.question`, `item.outputs.answer`)."""
    pairs = [(turns[i][1], turns[i + 1][1]) for i in range(0, len(turns) - 1, 2)]
    return [{"inputs": Fields(ask), "outputs": Fields(reply)} for ask, reply in pairs]


#: A template that reads Prompt flow's turn shape (`item.inputs.question`).
_FLOW_SHAPE = re.compile(r"\.\s*(?:inputs|outputs)\b")


def history_value(name: str, history: History | None = None, source: str = ""):
    """The value of a conversation-slot variable: the same earlier turns (`history`, else the
    default ones) in every render, in the shape the template reads (`source`: its text):
    `{role, content}` messages, Prompt flow's `{inputs, outputs}` or promptfoo's `{input, output}`
    turns.

    A loop over a history-like name (see `prefixlint.load.template.loop_slots`) renders these turns,
    never per-request text."""
    history = History() if history is None else history
    if name == "_conversation":
        return promptfoo_turns(history.messages)
    return flow_turns(history.messages) if _FLOW_SHAPE.search(source) else history
