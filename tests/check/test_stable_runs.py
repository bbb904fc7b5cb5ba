"""Issue 19 item 8: with no history after a value, only a whole run of stable text after it is
worth moving it past. The labels between its later values move with them, so they do not add up;
a message's end does not cut a run (fixed earlier turns written in a message list are one run)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.tokenize import load_tokenizer

INTRO = ("You are a helpful assistant for the Contoso outdoor store. You answer questions about orders,"
         " returns and the gear we sell, always politely.\n\nWhat you remember about the user:\n")
LABELS = ("\n\nHere is the relevant part of the past conversation:\n", "\n\nThe user now asks the following question:\n")
LONG_TAIL = ("\n\nAnswer in two sentences at most, cite the order number when there is one, and never promise"
             " a refund the manager did not approve.\n")


def template(tail: str) -> str:
    return INTRO + "{{ memory }}" + LABELS[0] + "{{ context_snippets }}" + LABELS[1] + "{{ query }}" + tail


def findings(tmp_path, text: str) -> list[dict]:
    path = tmp_path / "answer.txt"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(cli, ["check", "--offline", "--isolated", "--output-format", "json", str(path)])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)["files"][0]["findings"]


def test_labels_between_values_do_not_add_up_to_a_block(tmp_path):
    encode = load_tokenizer("o200k_base").encode
    tail = "\n\nAnswer briefly.\n"
    runs = [len(encode(text)) for text in (*LABELS, tail)]
    # together they are more than one 16-token block; none of them is one
    assert len(encode("".join((*LABELS, tail)))) >= 16 and max(runs) < 16, runs
    assert findings(tmp_path, template(tail)) == []


def test_a_run_of_instructions_after_the_values_is_worth_it(tmp_path):
    encode = load_tokenizer("o200k_base").encode
    assert len(encode(LONG_TAIL)) >= 16
    found = [(f["code"], f["line"], f["column"]) for f in findings(tmp_path, template(LONG_TAIL))]
    assert found[0] == ("PFX003", 4, 1)  # {{ memory }}: the line after "What you remember about the user:"


PART = ("Check the spelling, the grammar and the register of the answer against the level of the course,"
        " and explain every mistake in one short sentence a beginner understands.")


def test_a_value_nothing_shows_is_constant_cuts_a_run_as_a_volatile_one_does(tmp_path):
    """Text after `{{ target_word }}` (filled by nothing the file shows) is reused only if that
    value repeats: it does not count as the gain of moving the question past it."""
    encode = load_tokenizer("o200k_base").encode
    before, after = f"\n\n{PART}\nThe word to practise is ", f".\n{PART}\n"
    assert len(encode(before)) < 48 and len(encode(after)) < 48 and len(encode(before + "bicycle" + after)) > 64
    text = "Question: {{ query }}" + before + "{{ target_word }}" + after
    path = tmp_path / "tutor.txt"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "prefixlint.toml").write_text("[tool.prefixlint]\nmin-stable-tokens = 48\n")
    options = ["check", "--offline", "--config", str(tmp_path / "prefixlint.toml"), "--output-format", "json", str(path)]
    result = CliRunner().invoke(cli, options)
    assert result.exit_code == 0, result.output  # neither run reaches 48 tokens
    # named like a deployment constant, the same value is stable: one run, worth the move
    path.write_text(text.replace("target_word", "company_name"), encoding="utf-8")
    result = CliRunner().invoke(cli, options)
    found = [(f["code"], f["line"], f["column"]) for f in json.loads(result.stdout)["files"][0]["findings"]]
    assert found == [("PFX005", 1, 11)]
