"""`replay --workers N` gives exactly the report of one process; bad input around --ray."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.replay import parallel

SYSTEMS = ["Current time: 2025-03-01 10:00:{:02d}. You are the support assistant of ACME Rockets.",
           "You answer questions about ACME products. Be brief and cite the manual."]


def mixed_log(tmp_path, n=600):
    """Chat and completions lines over several 256-line chunks, with timestamps, users,
    salts, responses, a blank line, a bad line and an unknown role."""
    lines = []
    for i in range(n):
        if i == 100:
            lines.append("")
        elif i == 300:
            lines.append("{not json")
        elif i == 450:
            lines.append(json.dumps({"messages": [{"role": "customer", "content": "hi"}]}))
        elif i % 5 == 0:
            lines.append(json.dumps({"prompt": f"Complete: order {i % 7} ships on day", "user": f"u{i % 11}"}))
        else:
            request = {"model": "m", "user": f"u{i % 13}",
                       "messages": [{"role": "system", "content": SYSTEMS[i % 2].format(i % 60)},
                                    {"role": "user", "content": f"Where is order {i % 17}?"}]}
            if i % 9 == 0:
                request["cache_salt"] = f"tenant-{i % 2}"
            lines.append(json.dumps({"timestamp": 1_740_000_000 + i, "request": request,
                                     "response": {"choices": [{"message": {"content": f"It ships on day {i % 5}."},
                                                               "finish_reason": "stop"}]}}))
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def replay(*args):
    result = CliRunner().invoke(cli, ["replay", *args])
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize("extra", [[], ["--replicas", "3", "--router", "all", "--cache-tokens", "2000"]])
def test_workers_report_equals_one_process(tmp_path, extra):
    log = mixed_log(tmp_path)
    one = replay(log, "--format", "json", "--now", "2025-03-01T12:00:00", *extra)
    two = replay(log, "--format", "json", "--now", "2025-03-01T12:00:00", "--workers", "2", *extra)
    assert json.loads(two.stdout) == json.loads(one.stdout)
    assert one.stderr == two.stderr  # the same warnings, in the same order
    data = json.loads(one.stdout)
    assert data["requests"] == 597 and [b["line"] for b in data["bad_lines"]] == [301, 451]


def _die(first_line, lines):
    os._exit(3)


def test_a_dying_worker_stops_the_replay(tmp_path, monkeypatch):
    monkeypatch.setattr(parallel, "_prepare", _die)
    result = CliRunner().invoke(cli, ["replay", mixed_log(tmp_path, 300), "--workers", "2"])
    assert result.exit_code == 2 and result.stdout == ""
    assert "a --workers process died" in result.stderr and "reports nothing" in result.stderr
    assert "Traceback" not in result.output


def test_ray_not_installed(tmp_path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    result = CliRunner().invoke(cli, ["replay", mixed_log(tmp_path, 3), "--ray"])
    assert result.exit_code == 2 and "pip install 'prefixlint[ray]'" in result.stderr


def test_unreachable_ray_address_fails_fast(tmp_path, monkeypatch):
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:1")  # nothing listens on port 1
    result = CliRunner().invoke(cli, ["replay", mixed_log(tmp_path, 3), "--ray"])
    assert result.exit_code == 2 and "RAY_ADDRESS 127.0.0.1:1: no Ray cluster answers there" in result.stderr
    assert "Traceback" not in result.output


def test_ray_needs_a_file(tmp_path):
    result = CliRunner().invoke(cli, ["replay", str(tmp_path / "missing.jsonl"), "--ray"])
    assert result.exit_code == 2 and "missing.jsonl: no such file" in result.stderr
