"""Hostile input bounded by construction (issue 20): each class of input that used to run away,
crash or read where it should not, run as a user runs it (a real process, its worker pool, an
address-space cap of 4 GB as in the attack), with the budgets lowered through their environment
variables so that a case trips in a second or two. For every run: exit 2, one diagnostic per bad
file, no traceback, no "internal error", and the good file beside them still reported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.check.test_check_bad_input import GOOD
from tests.gitrepo import commit, git, init_repo

GOOD_FINDING = "good.md:1:7: PFX003"
#: Budgets small enough for a test; the defaults are 20 s and 1 GiB (docs/reliability.md).
BUDGETS = {"PREFIXLINT_FILE_SECONDS": "6", "PREFIXLINT_RENDER_SECONDS": "2", "PREFIXLINT_FILE_RENDER_SECONDS": "3",
           "PREFIXLINT_FILE_MEMORY_BYTES": str(512 << 20)}
#: The messages of the bounds, one of which each runaway file must end with.
BOUND_MESSAGES = ("exceeded the memory budget of 512 MiB", "exceeded the time budget of 6 s",
                  "rendering took longer than", "took longer than 3 s in all", "is too large", "output is too large",
                  "cannot compile the template: too many statically nested blocks")


def run(root: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "prefixlint", *args]
    if sys.platform.startswith("linux"):
        command = ["prlimit", f"--as={4 << 30}", *command]
    environment = {**os.environ, **BUDGETS, **env}
    environment.pop("PREFIXLINT_DEBUG", None)
    started = time.monotonic()
    done = subprocess.run(command, cwd=root, env=environment, capture_output=True, text=True, timeout=120)
    done.elapsed = time.monotonic() - started  # type: ignore[attr-defined]
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr[-3000:]
    return done


def repo(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    (tmp_path / "good.md").write_text(GOOD)
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="surrogatepass")
    return tmp_path


def errors_of(stderr: str) -> dict[str, str]:
    """File name -> its one diagnostic (asserting there is exactly one per file)."""
    found: dict[str, str] = {}
    for line in stderr.splitlines():
        if line.startswith("prefixlint: error: "):
            where, _, message = line.removeprefix("prefixlint: error: ").partition(": ")
            name = where.split(":")[0]
            assert name not in found, f"two diagnostics for {name}: {found[name]!r}, {message!r}"
            found[name] = message
    return found


def check_class(tmp_path: Path, files: dict[str, str], **env: str) -> dict[str, str]:
    root = repo(tmp_path, files)
    done = run(root, "check", "--offline", "--isolated", *files, "good.md", **env)
    assert done.returncode == 2, (done.returncode, done.stderr[-3000:])
    assert GOOD_FINDING in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    errors = errors_of(done.stderr)
    assert set(errors) == set(files), (sorted(errors), done.stderr[-3000:])
    return errors


# Render bombs the sandbox's size estimates miss: bytes, translate tables, a str joined by a str,
# a list summed into a list, a mapping repeated. Each passes 500 MiB or runs for minutes unbounded.
RENDER_BOMBS = {
    "sum_lists.j2": "{{ ([range(100000)|list] * 300)|sum(start=[]) }}\n",
    "bytes_repeat.j2": "{{ 'a'.encode() * 2000000000 }}\n",
    "translate.j2": "{{ ('a' * 1000).translate({97: 'b' * 10000000}) }}\n",
    "str_join.j2": "{{ ('x' * 1000000).join('a' * 1500) }}\n",
    "filter_join.j2": "{{ range(1500)|join('x' * 1000000) }}\n",
    "dict_repeat.j2": "{% set d = dict(a='x' * 10000000) %}{{ [d] * 1000 }}\n",
    "nested_for.j2": "".join("{%% for i%d in [1] %%}" % i for i in range(45)) + "x" + "{% endfor %}" * 45 + "\n",
}


def test_render_bombs_end_at_a_budget_each_and_the_run_goes_on(tmp_path):
    errors = check_class(tmp_path, RENDER_BOMBS)
    for name, message in errors.items():
        assert any(bound in message for bound in BOUND_MESSAGES), (name, message)
    assert errors["nested_for.j2"] == "cannot compile the template: too many statically nested blocks"


# Work that grows with the input: thousands of volatile values, or hundreds in megabytes of text
# (each value is two renders of the whole prompt), refused up front by the caps.
def test_thousands_of_values_are_refused_by_the_caps_before_any_render(tmp_path):
    many = "".join(f"Line {i}: the order {{{{ order_id_{i} }}}} is stable text here.\n" for i in range(3000))
    big = "".join(f"Item {i}: {{{{ request_id_{i} }}}}\n" + "Stable policy text about fees. " * 300 + "\n"
                  for i in range(60))
    some = "".join(f"Line {i}: the order {{{{ order_id_{i} }}}} is stable text here.\n" for i in range(101))
    # 400 values in 3.7 MB: refused before where each value moves is worked out on the whole text
    # (that alone took minutes)
    huge = "".join(f"Item {i}: {{{{ request_id_{i} }}}}\n" + "Stable policy text about fees. " * 300 + "\n"
                   for i in range(400))
    # a generous time budget: the caps, not the budget, must stop these (on a loaded machine too)
    errors = check_class(tmp_path, {"many.md": many, "big.md": big, "some.md": some, "huge.md": huge},
                         PREFIXLINT_FILE_SECONDS="60")
    assert errors["some.md"] == "too many volatile values to measure: 101 in one prompt (the limit is 100)"
    assert errors["huge.md"] == "too many volatile values to measure: 400 in one prompt (the limit is 100)"
    assert errors["many.md"] == "too many variables to measure: 3,000 in one prompt (the limit is 1,000)"
    # 60 values x 2 renders + 3 of about 110,000 tokens: past 10,000,000
    assert errors["big.md"].startswith("measuring it would tokenize about 1")
    assert errors["big.md"].endswith("; the limit is 10,000,000 per file"), errors["big.md"]


def test_a_lower_cap_is_a_setting_of_the_run(tmp_path):
    text = "".join(f"Value {{{{ order_id_{i} }}}}.\n" for i in range(5)) + "Stable text. " * 20 + "\n"
    errors = check_class(tmp_path, {"five.md": text}, PREFIXLINT_MAX_VALUES="4")
    assert errors["five.md"] == "too many volatile values to measure: 5 in one prompt (the limit is 4)"


# Big inputs: a 9-million-letter line tokenizes for half a minute; program source nested or
# concatenated beyond what Python's parser and a JS scanner handle quickly.
def test_big_and_deep_inputs_end_at_a_budget_or_a_diagnostic(tmp_path):
    files = {
        "letters.txt": "a" * 9_000_000 + "\n",
        "unary.py": "x = " + "-" * 100_000 + "1\n",
        "concat.py": "SYSTEM_PROMPT = (\n" + "".join(f'    "line {i} of the instructions "\n' for i in range(150_000)) + ")\n",
        "nested.js": "const prompt = " + "{a: " * 50_000 + "1" + "}" * 50_000 + ";\n",
    }
    root = repo(tmp_path, files)
    done = run(root, "check", "--offline", "--isolated", *files, "good.md")
    assert done.returncode == 2 and GOOD_FINDING in done.stdout, done.stderr[-3000:]
    errors = errors_of(done.stderr)
    # one 9-million-letter word: refused before tiktoken spends half a minute merging it
    assert errors["letters.txt"] == ("a word of 9,000,000 characters without a space or line break (the limit"
                                     " is 100,000): not text a tokenizer reads in bounded time")
    # each file is either reported or one bounded diagnostic, and the whole run stays bounded
    assert all(f"{name}:" in done.stdout or name in errors for name in files), done.stdout
    assert done.elapsed < 4 * 6 + 20, done.elapsed  # at most one budget per file, plus start-up


# Text no encoder takes, and fix plans that overlap in a LangChain dump with C1 characters
# (both found by the fuzz): one diagnostic or a result, never an internal error.
def test_surrogates_and_odd_offsets_are_the_files_own_problem(tmp_path):
    lc = json.dumps({"lc": 1, "type": "constructor", "id": ["langchain", "prompts", "prompt", "PromptTemplate"],
                     "kwargs": {"template": "{{name}}0:\x950000000:\x810000000:\x81", "input_variables": ["name"],
                                "template_format": "mustache"}})
    files = {"surrogate.ts": 'export const SYSTEM_PROMPT = `You are a helpful assistant \\ud800 for ${userName}.`;\n',
             "mustache.json": lc}
    root = repo(tmp_path, files)
    done = run(root, "check", "--offline", "--isolated", *files, "good.md")
    assert done.returncode == 2 and GOOD_FINDING in done.stdout, done.stderr
    errors = errors_of(done.stderr)
    assert errors == {"surrogate.ts": "the text holds a lone surrogate (U+D800), which is not Unicode text and"
                                      " cannot be tokenized"}
    assert "mustache.json: " in done.stdout  # measured; its fix plan is dropped, not an error


# Configuration a pull request edits: numbers past their maximum, lists past their count, globs
# that would walk the filesystem, tokenizer paths out of the repository.
@pytest.mark.parametrize(("config", "message"), [
    ("history-turns: 30000000\n", "history-turns: must be at most 1,000, not 30,000,000"),
    ("min-stable-tokens: 100000000000\n", "min-stable-tokens: must be at most 1,000,000, not 100,000,000,000"),
    ("block-size: 4194304\n", "block-size: must be at most 1,048,576, not 4,194,304"),
    ("exclude: [" + ", ".join(f"'d{i}/'" for i in range(1001)) + "]\n", "exclude: has 1,001 entries (the limit is 1,000)"),
    ("exclude: ['[z-a]']\n", "'[z-a]' is not a gitignore pattern"),
], ids=["history-turns", "min-stable-tokens", "block-size", "exclude count", "exclude range"])
def test_configuration_numbers_and_counts_have_a_maximum(tmp_path, config, message):
    root = repo(tmp_path, {"sub/.prefixlint.yaml": config, "sub/prompt.md": GOOD})
    done = run(root, "check", "--offline", "sub/prompt.md", "good.md")
    assert done.returncode == 2 and GOOD_FINDING in done.stdout, done.stderr
    assert message in errors_of(done.stderr)["sub/.prefixlint.yaml"], done.stderr  # at the key's line


def test_a_glob_out_of_the_repository_is_refused_without_walking(tmp_path):
    config = "prompts:\n  - file:///*/*/*/*/*/*/*\nproviders: [openai:gpt-4o-mini]\n"
    root = repo(tmp_path, {"promptfooconfig.yaml": config})
    done = run(root, "check", "--offline", "--isolated", "promptfooconfig.yaml", "good.md")
    assert done.returncode == 2 and GOOD_FINDING in done.stdout and done.elapsed < 20, done.stderr
    assert errors_of(done.stderr)["promptfooconfig.yaml"].startswith(
        "cannot read /*/*/*/*/*/*/*: /*/*/*/*/*/*/* resolves outside the repository")


def test_a_glob_inside_the_repository_matches_as_before(tmp_path):
    config = "prompts:\n  - file://prompts/*.txt\nproviders: [openai:gpt-4o-mini]\n"
    root = repo(tmp_path, {"promptfooconfig.yaml": config, "prompts/a.txt": GOOD, "prompts/b.txt": GOOD,
                           "prompts/.hidden.txt": GOOD, "prompts/c.md": GOOD})
    done = run(root, "check", "--offline", "--isolated", "promptfooconfig.yaml")
    assert done.returncode == 1, done.stderr
    assert "prompts/a.txt:1:7: PFX003" in done.stdout and "prompts/b.txt:1:7: PFX003" in done.stdout
    assert ".hidden" not in done.stdout and "c.md" not in done.stdout


@pytest.mark.parametrize("key", ["tokenizer", "chat-template"])
def test_a_configured_path_out_of_the_repository_is_refused(tmp_path, key):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "tokenizer.json").write_text('{"version": "1.0", "model": {"type": "BPE", "vocab": {}, "merges": []}}')
    root = repo(tmp_path / "repo", {"sub/.prefixlint.yaml": f"{key}: {outside / 'tokenizer.json'}\n",
                                    "sub/prompt.md": GOOD})
    done = run(root, "check", "--offline", "sub/prompt.md", "good.md")
    assert done.returncode == 2 and GOOD_FINDING in done.stdout, done.stderr
    # at the key's line, as every error of the configuration
    assert (f"prefixlint: error: sub/.prefixlint.yaml:1: {key}: {key} {outside / 'tokenizer.json'} resolves outside"
            " the repository") in done.stderr
    allowed = run(root, "check", "--offline", "--allow-outside-paths", "sub/prompt.md")
    assert "resolves outside the repository" not in allowed.stderr


# `report --base`: a blob is measured by `git cat-file -s` before a byte of it is read.
def test_a_base_blob_over_the_file_limit_is_refused_by_its_size(tmp_path):
    root = init_repo(tmp_path / "repo", {"prompts/big.md": GOOD + "Stable text. " * 200 + "\n",
                                         "prompts/good.md": GOOD})
    (root / "prompts/big.md").write_text(GOOD)
    commit(root, "smaller")
    base = git(root, "rev-parse", "HEAD~1").stdout.strip()
    done = run(root, "report", "--base", base, "--offline", "--format", "json", "prompts/",
               PREFIXLINT_MAX_FILE_BYTES="1000")
    rows = {row["path"]: row for row in json.loads(done.stdout)["templates"]}
    # [base, working tree]: the base blob refused by its size, the file on disk measured
    size = len((GOOD + "Stable text. " * 200 + "\n").encode())
    assert rows["prompts/big.md"]["errors"] == [f"prompts/big.md: file is too large ({size:,} bytes; the limit is 1,000)", None]
    same = rows["prompts/good.md"]["tokens"]  # big.md's text on disk is good.md's
    assert same[1] > 0 and rows["prompts/big.md"]["tokens"] == [None, same[1]]


def test_a_blob_is_not_read_when_its_size_is_over_the_limit(tmp_path, monkeypatch):
    from prefixlint.errors import PrefixlintError
    from prefixlint.load.gitrev import open_repository

    root = init_repo(tmp_path / "repo", {"big.md": "x" * 5000})
    blob = git(root, "rev-parse", "HEAD:big.md").stdout.strip()
    repository = open_repository(root)
    calls: list[tuple] = []
    real = repository.git
    monkeypatch.setattr(type(repository), "git", lambda self, *args, data=None: calls.append(args) or real(*args))
    with pytest.raises(PrefixlintError) as info:
        repository.blob(blob, "big.md", max_bytes=4999)
    assert str(info.value) == "big.md: file is too large (5,000 bytes; the limit is 4,999)"
    assert calls == [("cat-file", "-s", blob)]  # sized, never read
    assert repository.blob(blob, "big.md", max_bytes=5000) == b"x" * 5000


# The pool changes where a file is checked, never what is reported: the JSON output on the
# samples and the format fixtures (44 results, errors included) is the same byte for byte with
# one worker, two (whose files finish out of order), and none.
def test_results_and_their_order_are_the_same_with_and_without_the_pool():
    root = Path(__file__).resolve().parent.parent.parent
    outputs = {}
    for workers in ("0", "1", "2"):
        done = run(root, "check", "--offline", "--format", "json", "samples/", "tests/fixtures/formats/",
                   PREFIXLINT_WORKERS=workers, PREFIXLINT_FILE_SECONDS="60",
                   PREFIXLINT_FILE_MEMORY_BYTES=str(1 << 30))
        assert done.returncode in (1, 2), done.stderr[-2000:]
        outputs[workers] = done.stdout
    assert outputs["0"] == outputs["1"] == outputs["2"]
    files = json.loads(outputs["0"])["files"]
    assert len(files) > 40 and [f["path"] for f in files][:3] == ["samples/agent_tools.yaml",
                                                                  "samples/chat_template_dated.jinja",
                                                                  "samples/code_review.prompt"]


# The fixes cross from the worker as plain data (their texts written out there, for what the run
# asked: the safe fixes, or with the unsafe ones): `--diff` shows the same with and without it.
@pytest.mark.parametrize("unsafe", [(), ("--unsafe-fixes",)])
def test_the_fixes_are_the_same_with_and_without_the_pool(unsafe):
    root = Path(__file__).resolve().parent.parent.parent
    outputs = {}
    for workers in ("0", "1"):
        done = run(root, "check", "--offline", "--diff", *unsafe, "samples/", PREFIXLINT_WORKERS=workers,
                   PREFIXLINT_FILE_SECONDS="60", PREFIXLINT_FILE_MEMORY_BYTES=str(1 << 30))
        assert done.returncode == 1, done.stderr[-2000:]
        outputs[workers] = (done.stdout, done.stderr)
    assert outputs["0"] == outputs["1"]
    diff, summary = outputs["0"]
    files = diff.count("\n+++ ") + diff.startswith("+++ ")
    assert files >= 5 and f"in {files} files." in summary, summary


def test_standard_input_is_read_up_to_the_file_limit(tmp_path):
    command = [sys.executable, "-m", "prefixlint", "check", "--offline", "-", "--stdin-filename", "x.md"]
    with open("/dev/zero", "rb") as zero:  # endless: it must not be read whole
        done = subprocess.run(command, stdin=zero, capture_output=True, text=True, timeout=60, cwd=tmp_path,
                              env={**os.environ, "PREFIXLINT_MAX_FILE_BYTES": "1000"})
    assert done.returncode == 2
    assert "prefixlint: error: x.md: standard input is too large (more than 1,000 bytes, the limit)" in done.stderr
