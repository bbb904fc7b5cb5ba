"""The conversation so far written as text in one prompt (`Chat History: {chat_history}`):
earlier turns that the next request of the conversation repeats, then one more turn (issue 19,
held-out files of i19s). A value ahead of it costs the history on every turn; the history's own
growth costs only what comes after it. Every number is recomputed here from the request written
out by hand in the ChatML approximation `check` uses for o200k_base (markers tokenized on their
own, also inside a text: `prefixlint.render.framing`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.load.classify import builtin_catalog, classify_variable
from prefixlint.match.prefix import shared_prefix
from prefixlint.render.history import TURNS, History
from prefixlint.render.values import GENERATED
from prefixlint.tokenize import load_tokenizer
from tests.load.test_formats import chatml, encode_pieces

FIXTURES = Path(__file__).resolve().parents[1] / "corpus" / "fixtures"
PARAGRAPH = GENERATED["paragraph"]  # a per-request text in the two requests
USER = ["<|im_start|>", "user", "<|im_sep|>"]
_MARKER = re.compile(r"(<\|im_start\|>|<\|im_sep\|>|<\|im_end\|>)")


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer("o200k_base")


def encode_text(tok, text: str) -> list[int]:
    """A text as the approximation tokenizes it: each ChatML marker on its own."""
    return encode_pieces(tok, [p for p in _MARKER.split(text) if p])


def run(path: Path, monkeypatch) -> dict:
    monkeypatch.chdir(path.parent)
    result = CliRunner().invoke(cli, ["check", "--isolated", "--no-cache", "--format", "json", path.name])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.output)["files"][0]


def test_retrieved_context_ahead_of_the_history_text(tok, monkeypatch):
    report = run(FIXTURES / "python/py19s-context-before-history/prompts.py", monkeypatch)
    [finding] = report["findings"]
    assert (finding["code"], finding["variable"], finding["line"], finding["column"]) == ("PFX005", "context", 5, 1)
    lead = "\n[Passages]\n"  # the template's text up to {context}, in the user message it is sent as
    first = encode_pieces(tok, USER) + encode_text(tok, lead + PARAGRAPH[0])
    later = encode_pieces(tok, USER) + encode_text(tok, lead + PARAGRAPH[1])
    assert finding["shared_prefix_tokens"] == shared_prefix(first, later) == 18
    # the earlier turns after it, from the first turn's text to the last one's end
    assert finding["history_tokens"] == len(encode_pieces(tok, chatml(TURNS)[3:-1])) == 644
    assert "ahead of the conversation breaks the reuse of the 644-token history on every turn" in finding["message"]
    assert "history_assumed" not in finding  # the template holds the history itself
    # {chat_history} and {question} have only the short closing lines after them
    assert report["volatile"]["chat_history"]["stable_tokens_after"] < 64


def test_camel_case_history_in_a_typescript_template(monkeypatch):
    report = run(FIXTURES / "typescript/ts19s-context-before-history/prompt.ts", monkeypatch)
    [finding] = report["findings"]
    assert (finding["code"], finding["variable"], finding["line"], finding["column"]) == ("PFX005", "context", 10, 8)
    assert finding["history_tokens"] == 630  # the same turns; the camel-case name `chatHistory`
    assert finding["shared_prefix_tokens"] < 40 < finding["fixed_shared_prefix_tokens"]


def test_history_ahead_of_rules_costs_the_rules_not_the_turns(tok, monkeypatch):
    """The history grows at its end: the next request shares the old turns, then differs where
    the new turn starts, so the rules after it are computed again on every turn."""
    path = FIXTURES / "python/py19s-history-before-rules/prompts.py"
    report = run(path, monkeypatch)
    [finding] = report["findings"]
    assert (finding["code"], finding["variable"], finding["line"], finding["column"]) == ("PFX005", "chat_history", 4, 1)
    lead = "Conversation with the customer so far:\n"
    rules = "\n\nYou are the quality reviewer"
    first = encode_pieces(tok, USER) + encode_text(tok, lead + str(History()) + rules)
    later = encode_pieces(tok, USER) + encode_text(tok, lead + str(History().appended()) + rules)
    assert finding["shared_prefix_tokens"] == shared_prefix(first, later) == 683
    assert finding["tokens"] - finding["shared_prefix_tokens"] > 150  # the rules and the notes, lost each turn


def test_condensed_question_after_the_history_is_clean(tmp_path, monkeypatch):
    prompt = tmp_path / "condense.py"
    prompt.write_text(
        'CONDENSE_PROMPT = """Given the following conversation and a follow up question, rephrase the follow up\n'
        'question to be a standalone question, in its original language.\n\n'
        'Chat History:\n{chat_history}\nFollow Up Input: {question}\nStandalone question:"""\n', encoding="utf-8")
    assert run(prompt, monkeypatch)["findings"] == []


@pytest.mark.parametrize(("name", "conversation"), [
    ("chat_history", True), ("chatHistory", True), ("history", True), ("conversation_history", True),
    ("previous_chat_history", True), ("formatted_chat_history", True),
    # a user's records or a rewritten text, not the turns appended
    ("purchase_history", False), ("search_history", False), ("conversation_summary", False),
    ("conversationSummary", False), ("order_history", False),
])
def test_which_names_are_the_conversation_text(name, conversation):
    v = classify_variable(builtin_catalog(), name, None)
    assert (v.generate == "conversation") is conversation
    assert v.volatile  # still a value that changes: its own growth costs what follows it


CONV = '''from openai import OpenAI

client = OpenAI()

ANSWER = """Documents:
{docs}

Answer from the documents above only. Quote the sentence you rely on, and say so when the
documents do not hold the answer; never guess a price, a date or a name they do not give.

Earlier in this conversation:
{past}

Question: {q}"""


def answer(question, history, retriever):
    docs = "\\n\\n".join(d.page_content for d in retriever.invoke(question))
    past = FILL
    prompt = ANSWER.format(docs=docs, past=past, q=question)
    return client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": prompt}])
'''


@pytest.mark.parametrize("fill", ['"\\n".join(f"{m[\'role\']}: {m[\'content\']}" for m in history)',
                                  "get_buffer_string(history[-20:])",
                                  'memory.load_memory_variables({})["history"]'])
def test_the_history_by_what_fills_it_whatever_its_name(tmp_path, monkeypatch, fill):
    """`{past}` says nothing; the code that fills it prints the turns of the conversation."""
    from prefixlint.load.registry import load_templates

    path = tmp_path / "qa.py"
    path.write_text(CONV.replace("FILL", fill), encoding="utf-8")
    (template,) = load_templates(str(path))
    past = template.variables["past"]
    assert past.kind == "appended" and past.line == 19  # `past = ...` in answer()
    assert past.evidence.startswith("filled by ")
    assert past.evidence.endswith("the conversation so far, one more turn each request")
    [finding] = run(path, monkeypatch)["findings"]
    assert (finding["code"], finding["variable"], finding["line"], finding["column"]) == ("PFX005", "docs", 6, 1)
    assert finding["history_tokens"] == 644


def test_a_text_made_from_the_history_is_not_the_history(tmp_path, monkeypatch):
    """A summary of the turns is rewritten each turn: per-request text, and the documents ahead
    of it have only the short rules before it (in the user's message: not worth a finding)."""
    path = tmp_path / "qa.py"
    path.write_text(CONV.replace("FILL", "summarize(history)"), encoding="utf-8")
    report = run(path, monkeypatch)
    assert report["findings"] == [] and report.get("history_tokens") is None
