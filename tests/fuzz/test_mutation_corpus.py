"""A derandomized mutation fuzz of every sample and fixture (issue 20 item 6): case N is seed file
N mod S with a few mutations drawn from `random.Random(N)`, so a failing case number reproduces
exactly. The suite runs 300 cases; `PREFIXLINT_MUTATION_CASES=5000` runs thousands (and
`PREFIXLINT_MUTATION_START` moves the window). The cases are checked in batches, as a folder of
files is checked: every case must be reported (a result or one diagnostic) with no internal
error and no traceback, the good file beside them too, and the batch must stay within the
budgets of its files (time: at most one file's budget per file; memory: the worker's cap)."""

from __future__ import annotations

import json
import os
import random
import resource
import tempfile
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.sandbox import workers
from tests.check.test_check_bad_input import GOOD
from tests.fuzz.strategies import HOSTILE, SEEDS

CASES = int(os.environ.get("PREFIXLINT_MUTATION_CASES", "0") or 0) or 300
START = int(os.environ.get("PREFIXLINT_MUTATION_START", "0") or 0)
BATCH = 50
#: Budgets of a file in these runs: small, so a runaway case costs seconds.
FILE_SECONDS = 8.0
MEMORY_BYTES = 768 << 20


def mutated(case: int) -> tuple[str, bytes]:
    """Case `case`: (file name, content)."""
    seed = SEEDS[case % len(SEEDS)]
    rng = random.Random(case)
    data = bytearray(seed.read_bytes())
    for _ in range(rng.randint(1, 6)):
        at, span = rng.randint(0, len(data)), rng.randint(0, 64)
        choice = rng.random()
        if choice < 0.5:
            insert = rng.choice(HOSTILE).encode("utf-8", "surrogatepass")
        elif choice < 0.8:
            insert = bytes(rng.randrange(256) for _ in range(rng.randint(1, 12)))
        else:
            insert = data[at:at + span] * rng.randint(2, 50)
        operation = rng.choice(["insert", "replace", "delete"])
        if operation == "insert":
            data[at:at] = insert
        elif operation == "replace":
            data[at:at + span] = insert
        else:
            del data[at:at + span]
    return f"c{case}_{seed.name}", bytes(data)


def test_mutations_are_reproducible_and_change_the_seed():
    assert mutated(7) == mutated(7) and mutated(7) != mutated(8)
    name, data = mutated(3)
    assert name == f"c3_{SEEDS[3].name}" and data != SEEDS[3].read_bytes()


@pytest.mark.parametrize("first", range(START, START + CASES, BATCH), ids=lambda first: f"cases {first}-")
def test_mutated_samples_and_fixtures(first, monkeypatch):
    from prefixlint import limits, sandbox

    monkeypatch.setattr(sandbox, "RENDER_SECONDS", 1.0)
    monkeypatch.setattr(sandbox, "FILE_RENDER_SECONDS", 2.0)
    monkeypatch.setattr(limits, "REGEX_SECONDS", 0.2)
    monkeypatch.setattr(workers, "FILE_SECONDS", FILE_SECONDS)
    monkeypatch.setattr(workers, "FILE_MEMORY_BYTES", MEMORY_BYTES)
    cases = [mutated(case) for case in range(first, min(first + BATCH, START + CASES))]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / ".git").mkdir()
        (root / "good.md").write_text(GOOD)
        for name, data in cases:
            (root / name).write_bytes(data)
        names = [name for name, _ in cases]
        started, previous = time.monotonic(), os.getcwd()
        os.chdir(root)
        try:
            result = CliRunner().invoke(cli, ["check", "--offline", "--isolated", "--format", "json", *names,
                                              "good.md"])
        finally:
            os.chdir(previous)
        elapsed = time.monotonic() - started
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2), result.output[-3000:]
    assert "Traceback" not in result.output and "internal error" not in result.output, _failing(result.output)
    files = {entry["path"]: entry for entry in json.loads(result.stdout)["files"]}
    assert any(f["code"] == "PFX003" and f["line"] == 1 for f in files["good.md"]["findings"]), files["good.md"]
    missing = [name for name in names if name not in files and not _through_a_config(name, files)]
    assert not missing, missing
    assert elapsed < len(cases) * FILE_SECONDS + 30, elapsed
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < 3 * 1024 * 1024  # the parent stays small


def _through_a_config(name: str, files: dict) -> bool:
    return any(entry.get("config") == name for entry in files.values())


def _failing(output: str) -> str:
    lines = [line for line in output.splitlines() if "internal error" in line or "Traceback" in line]
    return "\n".join(lines[:5])
