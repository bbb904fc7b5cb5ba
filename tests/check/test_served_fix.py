"""The fix a system prompt's value is promised is the one it gets, as the server is given it
(issue 11 item 4 with issue 15): a system prompt on its own is promised the user's message and
gets no fix; a message added after the conversation is served after the user's message the
conversation ends with. Numbers recomputed from requests written out by hand (o200k_base)."""

from __future__ import annotations

from prefixlint.check.served import serve
from prefixlint.load.template import SLOT_ROLE
from prefixlint.match.prefix import shared_prefix
from prefixlint.render.history import CURRENT, History
from prefixlint.render.spans import RenderedMessage
from tests.check.test_history import MOMENTS, POLICY, check, write

SOURCE = f'''from datetime import datetime

from anthropic import Anthropic

SYSTEM = """Current time: {{now}}
{POLICY}"""


def answer(client: Anthropic, history):
    return client.messages.create(model="claude", system=SYSTEM.format(now=datetime.now().isoformat()), messages=history)
'''


def test_a_system_message_after_the_slot_comes_after_the_users_message():
    system, slot, added = (RenderedMessage("system", "S", ()), RenderedMessage(SLOT_ROLE, "", ()),
                           RenderedMessage("system", "Today is 2026-12-01.", ()))
    served = serve((system, slot, added), History())
    assert [(m.role, m.text) for m in served] == [
        ("system", "S"), (SLOT_ROLE, ""), ("user", CURRENT), ("system", "Today is 2026-12-01.")]


def test_a_system_only_source_prompt_is_promised_the_users_message_not_its_literals_end(tmp_path, enc):
    (finding,) = check(write(tmp_path, "support.py", SOURCE), "--isolated")["findings"]
    assert finding["fix"] is None and "the user's message" in finding["fix_unavailable"]
    # promised: the line in the user's message, after the history
    a, b = (enc.served(POLICY, CURRENT + f"\nCurrent time: {t}") for t in MOMENTS)
    assert (finding["fixed_shared_prefix_tokens"], finding["fixed_tokens"]) == (shared_prefix(a, b), len(a))
    # not the in-place move to the end of the literal: still ahead of the history
    c, d = (enc.served(POLICY + f"Current time: {t}\n") for t in MOMENTS)
    assert shared_prefix(c, d) < shared_prefix(a, b) - finding["history_tokens"]
