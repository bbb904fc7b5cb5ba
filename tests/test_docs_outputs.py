"""Every marked output block of README.md and docs/*.md is what its command prints today
(scripts/regen_docs.py: `python scripts/regen_docs.py` rewrites the drifted ones)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("regen_docs", ROOT / "scripts" / "regen_docs.py")
assert _spec and _spec.loader
regen = importlib.util.module_from_spec(_spec)
sys.modules["regen_docs"] = regen
_spec.loader.exec_module(regen)

BLOCKS = [block for page in regen.documents() for block in regen.blocks(page)]


@pytest.mark.parametrize("block", BLOCKS, ids=[block.name for block in BLOCKS])
def test_the_documented_output_is_the_real_output(block):
    if block.missing():
        pytest.skip(f"needs {', '.join(block.missing())}")
    diff = regen.drift(block)
    assert not diff, "run `python scripts/regen_docs.py` to regenerate:\n" + "\n".join(diff)


def test_every_output_the_readme_shows_is_regenerated():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    shown = [n + 1 for n, line in enumerate(lines) if line == "```console"]
    marked = {block.line for block in BLOCKS if block.path.name == "README.md"}
    assert len(shown) >= 3 and set(shown) == marked
    assert {"check.md", "configuration.md", "core.md", "formats.md", "reliability.md", "replay.md",
            "transcript.md", "workflow.md"} <= {block.path.name for block in BLOCKS}


def test_the_examples_run_on_files_the_repository_ships():
    """A marked block's working directory is in the repository, and every model folder it names
    is shipped with its tokenizer (docs/examples/check/models, scripts/example_tokenizer.py)."""
    for block in BLOCKS:
        assert block.cwd.is_dir() and block.cwd.resolve().is_relative_to(ROOT), block.name
        for command in block.commands:
            words = command.joined().split()
            for flag, value in zip(words, words[1:]):
                if flag == "--tokenizer" and "/" in value and not value.startswith(("Qwen/", "meta-llama/")):
                    assert (block.cwd / value / "tokenizer.json").is_file(), (block.name, value)


def _page(tmp_path: Path, body: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text(body, encoding="utf-8")
    return page


PY = "python -c \"print('one'); print('two'); print('three'); print('four')\""


def test_a_marked_block_is_rewritten_with_the_real_output_and_an_unmarked_one_is_not(tmp_path):
    page = _page(tmp_path, f"text\n<!-- output: -->\n```console\n$ {PY}\nstale\n```\n\n```console\n$ {PY}\nkept\n```\n")
    (block,) = regen.blocks(page)
    assert (block.line, block.start, block.end) == (3, 3, 5)
    changed = [line for line in regen.drift(block)[2:] if line[:1] in "+-"]
    assert changed == ["-stale", "+one", "+two", "+three", "+four"]
    assert regen.rewrite(page) == 1
    assert page.read_text().splitlines() == ["text", "<!-- output: -->", "```console", f"$ {PY}", "one", "two",
                                             "three", "four", "```", "", "```console", f"$ {PY}", "kept", "```"]
    assert regen.rewrite(page) == 0 and regen.drift(regen.blocks(page)[0]) == []


def test_an_excerpt_keeps_as_many_first_and_last_lines_as_it_shows(tmp_path):
    page = _page(tmp_path, f"<!-- output: -->\n```console\n$ {PY}\nx\n...\nz\n```\n"
                           f"<!-- output: -->\n```text\n$ {PY}\n…\ny\nz\n```\n")
    regen.rewrite(page)
    lines = page.read_text().splitlines()
    assert lines[3:6] == ["one", "...", "four"]
    assert lines[10:13] == ["…", "three", "four"]


def test_each_command_of_a_block_gets_its_own_output_from_its_working_directory(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "f.txt").write_text("inside\n")
    page = _page(tmp_path, "<!-- output: -->\n```console\n$ python -c \"print(1)\"  # a comment\n"
                           "$ python -c \\\n    \"print(2)\"\n```\n")
    (block,) = regen.blocks(page)
    assert [command.argv()[1:] for command in block.commands] == [["-c", "print(1)"], ["-c", "print(2)"]]
    assert block.regenerate() == ["$ python -c \"print(1)\"  # a comment", "1",
                                  "$ python -c \\", "    \"print(2)\"", "2"]
    command = regen.Command(["$ python -c \"print(open('f.txt').read().strip())\""])
    assert regen.run(command, tmp_path / "sub") == ["inside"]


def test_echo_status_shows_the_exit_status_of_the_command_before_it(tmp_path):
    page = _page(tmp_path, "<!-- output: -->\n```console\n$ python -c \"raise SystemExit(3)\"\n$ echo $?\n"
                           "$ python -c \"print(1)\"\n$ echo $?\n```\n")
    assert regen.blocks(page)[0].regenerate() == ['$ python -c "raise SystemExit(3)"', "$ echo $?", "3",
                                                 '$ python -c "print(1)"', "1", "$ echo $?", "0"]


def test_stderr_is_shown_where_it_was_written_and_a_heavy_block_is_named(tmp_path):
    code = "import sys; print('out1'); print('err', file=sys.stderr); print('out2')"
    page = _page(tmp_path, f"<!-- output: needs=no_such_module_xyz,json -->\n```console\n$ python -c \"{code}\"\n```\n")
    (block,) = regen.blocks(page)
    assert block.needs == ("no_such_module_xyz", "json") and block.missing() == ["no_such_module_xyz"]
    assert regen.run(block.commands[0], tmp_path) == ["out1", "err", "out2"]
    assert regen.rewrite(page) == 0  # not run without its dependency


def test_a_pipe_or_an_assignment_runs_through_bash_with_this_interpreter(tmp_path):
    piped = regen.Command(['$ python -c "print(3); print(4)" | tail -1'])
    assert piped.shell() and regen.run(piped, tmp_path) == ["4"]
    assigned = regen.Command(["$ GREETING=hi python -c \"import os, sys; print(os.environ['GREETING'], sys.executable)\""])
    assert assigned.shell() and regen.run(assigned, tmp_path) == [f"hi {sys.executable}"]
    assert regen.run_status(regen.Command(['$ python -c "raise SystemExit(3)" | cat']), tmp_path)[1] == 0
    plain = regen.Command(['$ python -c "print(1)"  # a | comment'])
    assert not plain.shell() and plain.argv() == [sys.executable, "-c", "print(1)"]


def test_a_marker_without_a_block_is_an_error_naming_the_line(tmp_path):
    page = _page(tmp_path, "a\n<!-- output: -->\ntext\n")
    with pytest.raises(SystemExit, match=r"page.md:2: an output marker must be followed by a ``` fence"):
        regen.blocks(page)
