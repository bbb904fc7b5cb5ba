"""Writes that cannot lose data (issue 24 item 5): a full disk or a kill during the write leaves
the original whole, the mode is kept, a link outside the repository is refused, and `--fix`
on standard input prints the fixed text and touches no file."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.errors import PrefixlintError
from prefixlint.fix.atomic import replace_atomically

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "samples" / "support_bot.yaml"


def test_the_new_text_replaces_the_file_and_keeps_its_mode(tmp_path):
    path = tmp_path / "p.txt"
    path.write_text("old\n")
    os.chmod(path, 0o640)
    replace_atomically(str(path), b"new\n")
    assert path.read_bytes() == b"new\n"
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert os.listdir(tmp_path) == ["p.txt"]  # no temporary file left


def test_a_full_disk_leaves_the_original_whole(tmp_path, monkeypatch):
    path = tmp_path / "p.txt"
    path.write_bytes(b"x" * 34437)
    real = os.write
    calls = []

    def full(fd, data):
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(fd, bytes(data)[:4096])  # a short write first, then the disk is full

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(PrefixlintError) as caught:
        replace_atomically(str(path), b"y" * 40000)
    assert "No space left on device" in str(caught.value) and caught.value.path == str(path)
    monkeypatch.setattr(os, "write", real)
    assert path.read_bytes() == b"x" * 34437
    assert os.listdir(tmp_path) == ["p.txt"]


def _fix_in_subprocess(tmp_path, limit_code: str):
    work = tmp_path / "repo"
    work.mkdir()
    (work / ".git").mkdir()
    target = work / SAMPLE.name
    target.write_bytes(SAMPLE.read_bytes())
    script = textwrap.dedent(f"""
        import os, resource, signal, sys
        {limit_code}
        from prefixlint.cli import main
        sys.argv = ["prefixlint", "check", "--fix", "--offline", {str(target)!r}]
        main()
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=work, capture_output=True, text=True, timeout=300)
    return target, done


def test_rlimit_fsize_during_fix_leaves_the_file_whole(tmp_path):
    """`prlimit --fsize=4096`, as the issue ran it: the write fails, exit 2 naming the file."""
    target, done = _fix_in_subprocess(tmp_path, "signal.signal(signal.SIGXFSZ, signal.SIG_IGN); "
                                                "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))")
    assert target.read_bytes() == SAMPLE.read_bytes()
    assert done.returncode == 2, done.stderr
    assert str(target.name) in done.stderr and "the file is as it was" in done.stderr
    assert sorted(os.listdir(target.parent)) == [".git", target.name]


def test_a_kill_during_the_write_leaves_the_file_whole(tmp_path):
    """Killed (SIGKILL) after part of the new text is written: the original is untouched."""
    kill = ("import prefixlint.fix.atomic as a; w = os.write\n"
            "def dying(fd, data):\n"
            "    w(fd, bytes(data)[:100]); os.kill(os.getpid(), signal.SIGKILL)\n"
            "a.os.write = dying")
    target, done = _fix_in_subprocess(tmp_path, kill.replace("\n", "\n        "))
    assert done.returncode == -9
    assert target.read_bytes() == SAMPLE.read_bytes()


def test_a_link_to_a_file_outside_the_repository_is_refused(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "support_bot.yaml").write_bytes(SAMPLE.read_bytes())
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    (repo / "link.yaml").symlink_to(outside / "support_bot.yaml")
    with pytest.raises(PrefixlintError, match="outside the repository"):
        replace_atomically(str(repo / "link.yaml"), b"new")
    assert (outside / "support_bot.yaml").read_bytes() == SAMPLE.read_bytes()


def test_fix_on_stdin_prints_the_fixed_text_and_touches_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    on_disk = tmp_path / "x.yaml"
    on_disk.write_text("something else entirely\n")
    text = SAMPLE.read_text()
    result = CliRunner().invoke(cli, ["check", "--fix", "-", "--stdin-filename", "x.yaml", "--offline"], input=text)
    assert on_disk.read_text() == "something else entirely\n"
    out = result.stdout
    assert "Current time: {{ now }}" not in out.split("- role: user")[0]  # moved out of the system message
    assert out.count("{{ now }}") == 1 and out.rstrip().endswith('Current time: {{ now }}"')
    assert len(out.splitlines()) == len(text.splitlines()) - 2  # the line and its blank line left the system prompt
