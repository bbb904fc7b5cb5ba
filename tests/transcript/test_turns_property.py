"""Invariants of the per-turn measurement, on generated conversations through a real template."""

from __future__ import annotations

from datetime import datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.engines.profiles import get_profile
from prefixlint.load.transcript import Transcript, split_conversation
from prefixlint.render.templates import read_chat_template
from prefixlint.tokenize import load_tokenizer
from prefixlint.transcript.render import render_turns
from prefixlint.transcript.reuse import measure_turns
from tests.realfiles import real_file

WORDS = st.text(alphabet="abcdefghij klmnop,.?!", min_size=1, max_size=30).map(lambda s: "w" + s.strip())


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(WORDS, WORDS), min_size=1, max_size=4), st.booleans())
def test_a_template_that_keeps_history_loses_nothing(exchanges, generated):
    """Qwen2.5's template appends each turn after the last: with texts that start with a word,
    every turn shares exactly what the previous request and its reply cached; and always
    reusable <= shared <= prompt."""
    tokenizer = load_tokenizer(str(real_file("qwen3/tokenizer.json")))
    template = read_chat_template(str(real_file("template/qwen2.5")))
    messages = []
    for question, answer in exchanges:
        messages += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    messages.append({"role": "user", "content": "wthanks"})
    requests = split_conversation(messages, [None] * len(messages), None)
    turns = render_turns(Transcript("generated", requests), tokenizer=tokenizer, chat_template=template,
                         now=datetime(2025, 1, 1), generated=generated)
    for reuse in measure_turns(turns, tokenizer, get_profile("vllm")):
        assert reuse.reusable_tokens <= reuse.shared_prefix_tokens <= reuse.prompt_tokens
        assert reuse.shared_prefix_tokens == reuse.previous_cached_tokens
        assert reuse.divergence is None
