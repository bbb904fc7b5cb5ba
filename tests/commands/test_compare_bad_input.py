"""Bad input to `prefixlint compare`: one clear line naming the file (and line), exit 2, no traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli


def run(*args, input=None):
    return CliRunner().invoke(cli, ["compare", *args], input=input)


def assert_diagnostic(result, *expected: str) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    errors = [line for line in result.stderr.splitlines() if line.startswith("prefixlint: error:")]
    assert errors, result.stderr
    text = result.stderr
    for part in expected:
        assert part in text, (part, text)
    return text


def test_an_empty_file(tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    assert_diagnostic(run(str(path)), f"prefixlint: error: {path}: file is empty")


def test_a_binary_file(tmp_path):
    path = tmp_path / "logo.png"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    # the first NUL byte follows two newlines (\r\n, then \n): line 3
    assert_diagnostic(run(str(path)), f"prefixlint: error: {path}:3: binary file")


def test_invalid_utf8_gives_line_and_column(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("first line\nnaïve café\n".encode("latin-1"))
    # line 2, column 3: the "ï" (0xef in Latin-1) after "na"
    assert_diagnostic(run(str(path)), f"prefixlint: error: {path}:2:3: not valid UTF-8: byte 0xef",
                      "hint: save the file as UTF-8")


def test_a_50_mb_file_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.txt"
    with open(path, "wb") as f:
        f.truncate(50 * 1024 * 1024)  # sparse: instant, no disk used
    assert_diagnostic(run(str(path)), f"prefixlint: error: {path}: file is too large (50.0 MiB; the limit is 10 MiB)")


def test_too_much_on_standard_input():
    result = run("-", input=b"a" * (10 * 1024 * 1024 + 1))
    assert_diagnostic(result, "prefixlint: error: <stdin>: input is larger than 10 MiB")


def test_a_missing_file_and_a_directory(tmp_path):
    assert_diagnostic(run(str(tmp_path / "nope.txt")), f"{tmp_path / 'nope.txt'}: no such file")
    assert_diagnostic(run(str(tmp_path)), f"{tmp_path}: is a directory, not a file")


def test_several_bad_files_are_all_reported_and_the_good_ones_served(tmp_path):
    (tmp_path / "empty.txt").write_bytes(b"")
    (tmp_path / "blob.bin").write_bytes(b"ab\x00cd")
    (tmp_path / "bad.txt").write_bytes(b"ok\n\xff\n")
    (tmp_path / "good.txt").write_text("What's your refund policy?")
    files = [str(tmp_path / name) for name in ("empty.txt", "blob.bin", "good.txt", "bad.txt")]
    result = run(*files, "--text", "What is your refund policy?", "--format", "json")
    text = assert_diagnostic(result, f"{files[0]}: file is empty", f"{files[1]}:1: binary file",
                             f"{files[3]}:2:1: not valid UTF-8", "3 of 4 files could not be read")
    assert str(tmp_path / "good.txt") + ":" not in text
    data = json.loads(result.stdout)
    assert [r["source"] for r in data["requests"]] == [files[2], "--text #1"]


def test_an_unknown_tokenizer_says_what_was_tried_and_how_to_fix_it():
    text = assert_diagnostic(run("--text", "hi", "--tokenizer", "gpt-17-ultra"),
                             "unknown tokenizer 'gpt-17-ultra'")
    for tried in ("tiktoken encoding", "OpenAI model name", "Mistral name", "existing path", "hub id"):
        assert tried in text
    assert "hint:" in text and "tokenizer.json" in text and "hf download" in text
    assert len([line for line in text.splitlines() if line.startswith("prefixlint: error:")]) == 1


def test_a_hub_id_missing_offline_names_the_download_command(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    text = assert_diagnostic(run("--text", "hi", "--tokenizer", "acme/tiny-model-404", "--offline"),
                             "'acme/tiny-model-404'", "not in the Hugging Face cache",
                             "hf download acme/tiny-model-404 tokenizer.json tokenizer_config.json")
    assert str(tmp_path / "hub") in text


def test_a_file_that_is_not_a_tokenizer(tmp_path):
    path = tmp_path / "notes.json"
    path.write_text("[1, 2, 3]")
    assert_diagnostic(run("--text", "hi", "--tokenizer", str(path)), f"{path}: not a Hugging Face tokenizer.json")


def test_an_unknown_engine():
    assert_diagnostic(run("--text", "hi", "--engine", "vllm2"), "unknown engine 'vllm2'", "hint: choose one of:",
                      "sglang")


@pytest.mark.parametrize("args, expected", [
    (["--block-size", "0"], "Invalid value for '--block-size': 0 is not in the range x>=1"),
    (["--block-size", "-16"], "Invalid value for '--block-size'"),
    (["--block-size", "sixteen"], "'sixteen' is not a valid integer"),
    (["--engine", "trtllm", "--block-size", "48"], "--block-size: trtllm needs a power-of-two block size"),
    (["--engine", "openai", "--block-size", "128"], "--block-size does not apply to openai"),
])
def test_bad_block_sizes(args, expected):
    result = run("--text", "hi", *args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert expected in result.stderr


def test_usage_errors():
    assert run().exit_code == 2 and "give at least one request" in run().stderr
    result = run("-", "-", input="x")
    assert result.exit_code == 2 and "only once" in result.stderr
    result = run("--text", "")
    assert result.exit_code == 2 and "--text #1 is empty" in result.stderr


def test_a_real_process_reports_bad_input_without_a_traceback(tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(256)))
    done = subprocess.run([sys.executable, "-m", "prefixlint", "compare", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith(f"prefixlint: error: {path}:1: binary file")
    assert "Traceback" not in done.stderr and done.stdout == ""
