"""compare, transcript and replay give the same numbers on the same requests: all three serve
them through prefixlint.engines (one simulator per engine, one serve loop)."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.cli import cli
from prefixlint.engines.profiles import get_profile
from prefixlint.engines.serve import Prompt, serve_prompts
from prefixlint.load.transcript import Transcript, split_conversation
from prefixlint.render.templates import read_chat_template
from prefixlint.tokenize import load_tokenizer
from prefixlint.transcript.render import render_turns
from prefixlint.transcript.reuse import measure_turns
from tests.realfiles import real_file

WORDS = st.text(alphabet="abcdefghij klmnop,.?!", min_size=1, max_size=40).map(lambda s: "w" + s.strip())
TOKENIZER = str(real_file("qwen3/tokenizer.json"))
TEMPLATE = str(real_file("template/qwen2.5"))
NOW = datetime(2025, 1, 1)


def _conversation(exchanges, edit):
    """A conversation whose turns sometimes rewrite an earlier message (`edit`): divergences."""
    messages = []
    for question, answer in exchanges:
        messages += [{"role": "user", "content": question}, {"role": "assistant", "content": answer}]
    messages.append({"role": "user", "content": "wthanks"})
    requests = split_conversation(messages, [None] * len(messages), None)
    if edit is not None and len(requests) > 1:
        first = requests[-1].messages[0]
        edited = [{**first, "content": first["content"] + edit}, *requests[-1].messages[1:]]
        requests[-1] = dataclasses.replace(requests[-1], messages=edited)
    return requests


def _replay_cached(tmp_path, turns, generated: bool, engine: str) -> int:
    lines = []
    for turn in turns:
        request = {"messages": [dict(m) for m in turn.messages]}
        if generated and turn.request.reply is not None:
            reply = {k: v for k, v in turn.request.reply.items() if k in ("role", "content")}
            lines.append({"request": request, "response": {"choices": [{"message": reply, "finish_reason": "stop"}]}})
        else:
            lines.append(request)
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(map(json.dumps, lines)) + "\n")
    result = CliRunner().invoke(cli, ["replay", str(log), "--tokenizer", TOKENIZER, "--chat-template", TEMPLATE,
                                      "--now", NOW.isoformat(), "--engine", engine, "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["cached_tokens"]


@settings(max_examples=8, deadline=None)
@given(st.lists(st.tuples(WORDS, WORDS), min_size=1, max_size=4), st.one_of(st.none(), WORDS),
       st.sampled_from(["vllm", "sglang"]), st.booleans())
def test_compare_transcript_and_replay_agree(tmp_path_factory, exchanges, edit, engine, generated):
    tokenizer = load_tokenizer(TOKENIZER)
    template = read_chat_template(TEMPLATE)
    profile = get_profile(engine)
    requests = _conversation(exchanges, edit)
    turns = render_turns(Transcript("generated", requests), tokenizer=tokenizer, chat_template=template,
                         now=NOW, generated=generated)
    by_transcript = [reuse.reusable_tokens for reuse in measure_turns(turns, tokenizer, profile)]
    assert sum(by_transcript) == _replay_cached(tmp_path_factory.mktemp("log"), turns, generated, engine)
    if not generated:  # compare serves prompts only
        prompts = [Prompt(str(t.number), t.prompt.text, t.prompt_ids) for t in turns]
        assert [s.reusable_tokens for s in serve_prompts(prompts, tokenizer, profile)] == by_transcript
