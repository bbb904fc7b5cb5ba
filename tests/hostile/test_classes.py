"""Classes of hostile input never described in issue 20, each checked as a user runs it (a real
process with its worker pool and result cache): what a directory walk meets (a FIFO, a socket,
/dev/zero, a symlink loop or dangling link, a directory named like a template, text that is not
UTF-8, UTF-16 with a BOM, NUL bytes) is skipped with its reason; the same named on the command line
is one diagnostic; enormous literals and words are one diagnostic; the good file is reported."""

from __future__ import annotations

import json
import os
import socket

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint import limits
from prefixlint.check.caps import refuse_long_words
from prefixlint.errors import PrefixlintError
from tests.check.test_check_bad_input import GOOD
from tests.hostile.test_bounded import GOOD_FINDING, check_class, errors_of, repo, run


def _hostile_folder(root):
    prompts = root / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "good.md").write_text(GOOD)
    os.mkfifo(prompts / "fifo.md")
    os.symlink("/dev/zero", prompts / "zero.md")
    os.symlink("loop2.md", prompts / "loop1.md")
    os.symlink("loop1.md", prompts / "loop2.md")
    os.symlink("nowhere.md", prompts / "dangling.md")
    (prompts / "dir.md").mkdir()
    (prompts / "latin1.md").write_bytes("Caf\xe9 {{ user_name }}\n".encode("latin-1"))
    (prompts / "utf16.md").write_bytes("\ufeffHello {{ user_name }}, you are the assistant.\n".encode("utf-16"))
    (prompts / "nul.md").write_bytes(b"Hello {{ user_name }}\x00 and more\n")
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(prompts / "sock.md"))
    return prompts, server


def test_a_walk_skips_what_is_no_prompt_file_with_its_reason(tmp_path):
    root = repo(tmp_path, {})
    prompts, server = _hostile_folder(root)
    try:
        done = run(root, "check", "--offline", "--format", "json", "prompts/")
    finally:
        server.close()
    assert done.returncode == 1, done.stderr[-2000:]  # the good file's finding; nothing else fails
    report = json.loads(done.stdout)
    assert [f["path"] for f in report["files"]] == ["prompts/good.md"]
    reasons = {row["path"]: row["reason"] for row in report["skipped"]}
    regular = "not a regular file (a device, FIFO or socket)"
    assert reasons["prompts/fifo.md"] == reasons["prompts/sock.md"] == reasons["prompts/zero.md"] == regular
    assert reasons["prompts/loop1.md"] == reasons["prompts/loop2.md"] == "a symlink loop"
    assert reasons["prompts/dangling.md"] == "cannot read: No such file or directory"
    assert reasons["prompts/latin1.md"] == "not valid UTF-8: byte 0xe9 at byte offset 3"
    assert reasons["prompts/nul.md"] == reasons["prompts/utf16.md"] == "binary file (it contains NUL bytes), not a prompt"


@pytest.mark.parametrize("cache", ["cache", "no cache"])
def test_a_fifo_or_a_device_named_on_the_command_line_is_refused_not_waited_for(tmp_path, cache):
    # the result cache keys on a file's bytes: it read a FIFO (blocking the run) and /dev/zero
    # (until memory ran out) before the file was checked
    root = repo(tmp_path, {})
    os.mkfifo(root / "fifo.md")
    os.symlink("/dev/zero", root / "zero.md")
    env = {"PREFIXLINT_CACHE_DIR": str(tmp_path / "cache")} if cache == "cache" else {"PREFIXLINT_NO_CACHE": "1"}
    done = run(root, "check", "--offline", "fifo.md", "zero.md", "good.md", **env)
    assert done.returncode == 2 and GOOD_FINDING in done.stdout, done.stderr[-2000:]
    assert errors_of(done.stderr) == {"fifo.md": "not a regular file (a device, FIFO or socket); refused",
                                      "zero.md": "not a regular file (a device, FIFO or socket); refused"}


def test_enormous_literals_and_words_are_one_diagnostic_each(tmp_path):
    files = {
        # Jinja reads an integer literal with int(): past Python's 4,300 digits (found by the fuzz)
        "int.txt": "Ticket received at {{" + "9" * 5000 + "}} for {{ ticket }}\n",
        "word.md": "Hello {{ user_name }}. " + "x" * 200_000 + "\n",
    }
    errors = check_class(tmp_path, files)
    assert errors["int.txt"] == "a number of 5,000 digits is too large (Python converts at most 4,300)"
    assert errors["word.md"] == ("a word of 200,000 characters without a space or line break (the limit is"
                                 " 100,000): not text a tokenizer reads in bounded time")


def test_a_malformed_tokenizer_json_is_one_diagnostic(tmp_path):
    root = repo(tmp_path, {})
    (root / "tokenizer.json").write_text('{"model": {"type": "BPE", "vocab": ' + "[" * 100_000 + "]" * 100_000 + "}}")
    done = run(root, "check", "--offline", "-t", "tokenizer.json", "good.md")
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.startswith("prefixlint: error: tokenizer.json: not a Hugging Face tokenizer.json: recursion"
                                  " limit exceeded"), done.stderr[-2000:]


LIMIT = 12


@settings(max_examples=80, deadline=None, derandomize=True)
@given(st.lists(st.tuples(st.integers(0, 30), st.sampled_from([" ", "\n", "\t", "\u3000", "\x1c"])), max_size=8))
def test_a_word_is_refused_exactly_when_it_is_longer_than_the_limit(words):
    text = "".join("w" * length + space for length, space in words)
    previous, limits.MAX_WORD_CHARS = limits.MAX_WORD_CHARS, LIMIT
    try:
        long = [len(word) for word in text.split() if len(word) > LIMIT]  # str.split: Python's whitespace
        try:
            assert refuse_long_words(text) == text
            assert not long, (text, long)
        except PrefixlintError as exc:
            assert long and exc.message.startswith(f"a word of {long[0]:,} characters"), (text, exc.message)
    finally:
        limits.MAX_WORD_CHARS = previous
