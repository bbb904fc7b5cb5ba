"""The `prefixlint` process exits without interpreter teardown: same output, same exit status."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli, exit_now

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
FILES = [str(SAMPLES / "support_bot.yaml"), str(SAMPLES / "agent_tools.yaml"), str(SAMPLES / "support_bot_fixed.yaml")]


@pytest.mark.parametrize("args, status", [
    (["check", "--isolated", "--format", "json", *FILES], 1),  # findings: 1, and a long output to flush
    (["check", "--isolated", "--exit-zero", *FILES], 0),
    (["check", "--isolated", str(SAMPLES / "no-such-file.md")], 2),
    (["rule", "PFX001"], 0),
])
def test_the_process_prints_and_exits_as_the_command_does_in_process(args, status):
    expected = CliRunner().invoke(cli, args)
    done = subprocess.run([sys.executable, "-m", "prefixlint", *args], capture_output=True, text=True)
    assert (done.returncode, expected.exit_code) == (status, status)
    assert done.stdout == expected.stdout
    assert done.stderr == expected.stderr


def test_under_a_tracer_the_interpreter_exits_as_usual():
    sys.settrace(lambda *args: None)
    try:
        with pytest.raises(SystemExit) as raised:
            exit_now(SystemExit(3))
    finally:
        sys.settrace(None)
    assert raised.value.code == 3
