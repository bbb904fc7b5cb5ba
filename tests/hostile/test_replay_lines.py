"""Request-log lines that used to end the whole replay (issue 16): each is now a bad line,
counted, reported with its line number and skipped (fatal only with --strict)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli

GOOD = '{"messages": [{"role": "user", "content": "hello there"}]}'
CALL = '{"role": "assistant", "content": "", "tool_calls": [{"id": "1", "type": "function", "function": '
BAD = [
    ("deep", '{"messages": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ("digits", '{"messages": [{"role": "user", "content": "hi"}], "n": ' + "9" * 5000 + "}",
     "a number of 5,000 digits is too large"),
    ("surrogate", '{"messages": [{"role": "user", "content": "a \\ud800 b"}]}', "a lone surrogate"),
    ("text", '{"messages": [{"role": "user", "content": [{"type": "text", "text": 7}]}]}',
     "message 1: a text part's `text` must be a string"),
    ("arguments", '{"messages": [' + CALL + '{"name": "f", "arguments": "{not json"}}]}]}',
     "message 1: tool call arguments are not JSON"),
    ("null call", '{"messages": [{"role": "system", "tool_calls": [null]}]}',  # found by tests/fuzz
     "message 1: each tool call needs `function: {name, arguments}`"),
]


@pytest.mark.parametrize(("name", "line", "message"), BAD, ids=[row[0] for row in BAD])
def test_a_bad_line_is_counted_and_skipped(tmp_path, name, line, message):
    log = tmp_path / "log.jsonl"
    log.write_text(f"{GOOD}\n{line}\n{GOOD}\n")
    result = CliRunner().invoke(cli, ["replay", str(log)])
    assert result.exit_code == 0 and "internal error" not in result.output, result.output
    assert "requests                       2   (1 bad line not counted: see below)" in result.output
    assert f"{log}:2: {message}" in result.output
    strict = CliRunner().invoke(cli, ["replay", "--strict", str(log)])
    assert strict.exit_code == 2 and f"prefixlint: error: {log}:2: {message}" in strict.stderr


def test_a_line_longer_than_the_limit_is_skipped_without_reading_it_whole(tmp_path, monkeypatch):
    from prefixlint.replay import logtext  # where the replay reads lines of bounded length

    monkeypatch.setattr(logtext, "MAX_LINE_BYTES", 1000)
    long = '{"messages": [{"role": "user", "content": "' + "x" * 5000 + '"}]}'
    log = tmp_path / "log.jsonl"
    log.write_text(f"{GOOD}\n{long}\n{GOOD}\n")
    result = CliRunner().invoke(cli, ["replay", str(log)])
    assert result.exit_code == 0, result.output
    assert f"{log}:2: longer than 1,000 bytes; skipped without reading it whole" in result.output
    assert "requests                       2   (1 bad line not counted: see below)" in result.output
