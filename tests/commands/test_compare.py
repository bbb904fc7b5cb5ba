"""`prefixlint compare` end to end: the JSON contract, inputs, human output and colour."""

from __future__ import annotations

import json
import os
import pty
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner
from tokenizers import Tokenizer

from prefixlint.cli import cli
from tests.realfiles import model_dir, real_file, tiktoken_encoding

A = "What's your refund policy?"
B = "What is your refund policy?"
ENC = tiktoken_encoding("o200k_base")


def run(*args, input=None, env=None):
    return CliRunner().invoke(cli, list(args), input=input, env=env)


def leading_common(a: list[int], b: list[int]) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def compare_json(*args, input=None):
    result = run("compare", "--format", "json", *args, input=input)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_the_json_has_exactly_the_shape_of_the_issue():
    data = compare_json("--text", A, "--text", B)
    assert data["tokenizer"] == "o200k_base"
    assert {"name": "vllm", "block_size": 16}.items() <= data["engine"].items()
    first, second = data["requests"]
    contract = {"source", "tokens", "shared_prefix_tokens", "reusable_tokens", "divergence"}
    assert contract <= first.keys() and contract <= second.keys()
    assert first == first | {"source": "--text #1", "tokens": len(ENC.encode(A)),
                             "shared_prefix_tokens": 0, "reusable_tokens": 0, "divergence": None}
    assert (second["source"], second["tokens"], second["shared_prefix_tokens"]) == ("--text #2", 6, 0)
    assert {"token_index": 0, "char_offset": 0}.items() <= second["divergence"].items()
    # the extra keys
    assert (second["divergence"]["token"], second["divergence"]["other_token"]) == ("What", "What's")
    assert second["divergence"]["other_source"] == "--text #1"
    assert second["shared_prefix_ratio"] == 0.0 and second["reusable_ratio"] == 0.0
    assert data["totals"]["tokens"] == 11


def test_files_stdin_and_text_are_served_in_that_order(tmp_path):
    system = "You are the support bot of Acme Inc. Be brief and polite.\n" * 8
    (tmp_path / "a.txt").write_text(system + "User: hi")
    (tmp_path / "b.txt").write_text(system + "User: hello")
    data = compare_json(str(tmp_path / "a.txt"), "-", str(tmp_path / "b.txt"),
                        "--text", system + "User: hey", input=system + "User: howdy")
    sources = [r["source"] for r in data["requests"]]
    assert sources == [str(tmp_path / "a.txt"), "<stdin>", str(tmp_path / "b.txt"), "--text #1"]
    texts = [system + "User: hi", system + "User: howdy", system + "User: hello", system + "User: hey"]
    ids = [ENC.encode(t) for t in texts]
    for number, request in enumerate(data["requests"]):
        shared = max((leading_common(ids[number], earlier) for earlier in ids[:number]), default=0)
        assert request["tokens"] == len(ids[number])
        assert request["shared_prefix_tokens"] == shared
        assert request["reusable_tokens"] == (min(shared, len(ids[number]) - 1) // 16 * 16 if number else 0)
        assert request["shared_prefix_ratio"] == round(shared / len(ids[number]), 6)
    assert data["requests"][0]["divergence"] is None
    assert data["requests"][1]["divergence"]["char_offset"] == len(system + "User:")


def single_token_words(count: int) -> list[str]:
    """Distinct o200k_base tokens that are a space and a lower-case word, each one token alone."""
    words = []
    for token in range(1000, ENC.n_vocab):
        try:
            piece = ENC.decode_single_token_bytes(token).decode("ascii")
        except (UnicodeDecodeError, KeyError):
            continue
        if piece[:1] == " " and piece[1:].isalpha() and piece[1:].islower() and len(piece) > 3:
            words.append(piece)
            if len(words) == count:
                return words
    raise AssertionError("not enough words")


def test_the_vllm_worked_examples_end_to_end(tmp_path):
    words = single_token_words(2005)
    base, other = words[:2003], words[2003:]
    assert len(ENC.encode("".join(base))) == 2003  # one token per word, checked by tiktoken
    requests = [
        base, base[:2002] + other, base[:2000], [" zebra"] + base[:2000], base[:37], base[:33], base[:32],
    ]
    paths = []
    for number, request in enumerate(requests):
        path = tmp_path / f"{number}.txt"
        path.write_text("".join(request))
        paths.append(str(path))
    data = compare_json(*paths)
    got = [(r["tokens"], r["shared_prefix_tokens"], r["reusable_tokens"]) for r in data["requests"]]
    assert got == [(2003, 0, 0), (2004, 2002, 2000), (2000, 2000, 1984), (2001, 0, 0),
                   (37, 37, 32), (33, 33, 32), (32, 32, 16)]


def test_engine_and_block_size_reach_the_json():
    data = compare_json("--text", A, "--text", B, "--engine", "sglang", "--block-size", "64")
    assert (data["engine"]["name"], data["engine"]["block_size"]) == ("sglang", 64)
    assert compare_json("--text", A, "--tokenizer", "cl100k_base")["tokenizer"] == "cl100k_base"


def test_human_output_shows_the_shared_part_and_both_tokens():
    base = "You are a helpful assistant. Today is 2025-01-02.\nAnswer briefly."
    result = run("compare", "--text", base, "--text", base.replace("02.", "03."))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    k = next(i for i, line in enumerate(lines) if "diverges at token" in line)
    ia, ib = ENC.encode(base), ENC.encode(base.replace("02.", "03."))
    index = leading_common(ia, ib)
    char = len(ENC.decode(ib[:index]))
    assert f"diverges at token {index}: char {char} (line 1, col {char + 1})" in lines[k]
    mine, theirs = ENC.decode([ib[index]]), ENC.decode([ia[index]])
    after = base[char + len(mine):].replace("\n", "\\n")
    assert lines[k + 1].endswith(f"[{mine}]{after}")
    assert f"Today is 2025-01-[{mine}]" in lines[k + 1] and lines[k + 1].lstrip().startswith("--text #2 |")
    assert f"Today is 2025-01-[{theirs}]" in lines[k + 2] and lines[k + 2].lstrip().startswith("--text #1 |")
    assert "\x1b[" not in result.output
    assert "cold: nothing cached yet" in lines[2]


def test_the_end_of_a_cached_request_is_shown():
    result = run("compare", "--text", "hello", "--text", "hello world")
    assert "hello[ world]" in result.stdout and "hello[end of request]" in result.stdout


def test_colour_only_when_asked_or_on_a_terminal():
    assert "\x1b[" not in run("compare", "--text", A, "--text", B).output
    assert "\x1b[" in run("--color", "compare", "--text", A, "--text", B).output
    coloured = run("--color", "compare", "--text", A, "--text", B, "--format", "json").stdout
    assert "\x1b[" not in coloured  # never in JSON


def run_on_a_terminal(args: list[str], env: dict[str, str]) -> str:
    controller, terminal = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "prefixlint", *args], stdout=terminal, stderr=terminal,
                               stdin=subprocess.DEVNULL, env=env)
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # the terminal closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    os.close(controller)
    assert process.returncode == 0
    return b"".join(chunks).decode()


@pytest.mark.parametrize("no_color, flag, coloured", [
    (None, [], True), ("1", [], False), (None, ["--no-color"], False), ("1", ["--color"], True),
])
def test_a_real_terminal_gets_colour_unless_NO_COLOR(no_color, flag, coloured):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    if no_color:
        env["NO_COLOR"] = no_color
    output = run_on_a_terminal([*flag, "compare", "--text", A, "--text", B], env)
    plain = re.sub(r"\x1b\[[0-9;]*m", "", output)
    assert "| [What] is your refund policy?" in plain and "| [What's] your refund policy?" in plain
    assert ("\x1b[" in output) is coloured


def test_a_real_process_prints_the_json():
    done = subprocess.run(
        [sys.executable, "-m", "prefixlint", "compare", "--format", "json", "-", "--text", B],
        input=A.encode(), capture_output=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    data = json.loads(done.stdout)
    assert [r["tokens"] for r in data["requests"]] == [5, 6]
    assert data["requests"][0]["source"] == "<stdin>" and data["requests"][0]["divergence"] is None
    assert data["requests"][1]["divergence"]["token_index"] == 0


def test_a_fresh_install_without_network_works_out_of_the_box(tmp_path):
    """An empty tiktoken cache and every download sent to a closed local port: still works."""
    env = {k: v for k, v in os.environ.items() if k.upper() not in {"NO_PROXY", "TIKTOKEN_CACHE_DIR",
                                                                     "DATA_GYM_CACHE_DIR"}}
    env.update(TIKTOKEN_CACHE_DIR=str(tmp_path / "cache"), HTTPS_PROXY="http://127.0.0.1:9",
               HTTP_PROXY="http://127.0.0.1:9", HF_HUB_OFFLINE="1")
    done = subprocess.run([sys.executable, "-m", "prefixlint", "compare", "--text", A, "--text", B],
                          capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    assert "5 tokens" in done.stdout and "6 tokens" in done.stdout and "[What's]" in done.stdout
    assert len(list((tmp_path / "cache").iterdir())) == 1  # o200k_base, seeded from the package


def test_a_hugging_face_tokenizer_through_the_command(tmp_path):
    directory = model_dir(tmp_path, "llama3/tokenizer.json")
    direct = Tokenizer.from_file(str(real_file("llama3/tokenizer.json")))
    data = compare_json("--text", A, "--text", B, "--tokenizer", str(directory))
    counts = [len(direct.encode(text, add_special_tokens=True).ids) for text in (A, B)]
    assert data["tokenizer"] == str(directory)
    assert [r["tokens"] for r in data["requests"]] == counts
    a, b = (direct.encode(text, add_special_tokens=True).ids for text in (A, B))
    assert data["requests"][1]["shared_prefix_tokens"] == leading_common(a, b)
    assert data["requests"][1]["divergence"]["token"] == direct.decode([b[leading_common(a, b)]])
