"""`check --diff`, `--fix`, `--unsafe-fixes`: the diff, the written file, the exit status, the
JSON fix, and the clean refusals (changed on disk, read-only, an encoding it cannot keep)."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.errors import PrefixlintError
from prefixlint.fix.write import write_fixed

RULES = ("You are the support assistant of Northwind Cloud, and you answer billing questions.\n"
         "Cite the policy section you rely on, and never promise a refund outside the policy.\n")
PROMPT = "Request {{ request_id }}\n" + RULES + "Question: {{ question }}\n"
SENTENCE = ("Hello {{ user_name }}. You are talking to the support assistant of Northwind Cloud today."
            " Answer billing questions, cite the policy section you rely on, and never promise refunds.\n"
            "Question: {{ question }}\n")


def run(tmp_path, *args):
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        return CliRunner().invoke(cli, ["check", "--isolated", "--offline", *args])
    finally:
        os.chdir(cwd)


def write(tmp_path, text, name="prompt.txt"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_diff_prints_a_unified_diff_and_changes_nothing(tmp_path):
    path = write(tmp_path, PROMPT)
    result = run(tmp_path, "--diff", "prompt.txt")
    assert result.exit_code == 1
    assert result.stdout == (
        "--- prompt.txt\n+++ prompt.txt\n@@ -1,4 +1,4 @@\n"
        "-Request {{ request_id }}\n"
        " You are the support assistant of Northwind Cloud, and you answer billing questions.\n"
        " Cite the policy section you rely on, and never promise a refund outside the policy.\n"
        " Question: {{ question }}\n"
        "+Request {{ request_id }}\n"
    )
    assert "Would fix 1 finding in 1 file." in result.stderr
    assert path.read_text(encoding="utf-8") == PROMPT


def test_fix_writes_the_file_and_exits_0_when_nothing_remains(tmp_path):
    path = write(tmp_path, PROMPT)
    result = run(tmp_path, "--fix", "prompt.txt")
    assert result.exit_code == 0, result.output
    assert path.read_text(encoding="utf-8") == RULES + "Question: {{ question }}\nRequest {{ request_id }}\n"
    assert "Fixed 1 finding." in result.stderr


def test_the_json_fix_is_rufflike(tmp_path):
    write(tmp_path, PROMPT)
    result = run(tmp_path, "--format", "json", "prompt.txt")
    (finding,) = json.loads(result.stdout)["files"][0]["findings"]
    assert finding["fix"] == {
        "applicability": "safe", "message": "Move the line to the end",
        "edits": [  # the first line cut; the same line after the last one (line 5, column 1)
            {"start": {"line": 1, "column": 1}, "end": {"line": 2, "column": 1}, "content": ""},
            {"start": {"line": 5, "column": 1}, "end": {"line": 5, "column": 1},
             "content": "Request {{ request_id }}\n"},
        ],
    }


def test_a_fix_that_splits_a_sentence_needs_unsafe_fixes(tmp_path):
    path = write(tmp_path, SENTENCE)
    result = run(tmp_path, "--fix", "prompt.txt")
    assert result.exit_code == 1 and path.read_text(encoding="utf-8") == SENTENCE
    assert "PFX003 Hello" not in result.stdout  # no [*]: the fix is unsafe
    assert "1 hidden fix can be enabled with the `--unsafe-fixes` option" in result.stdout
    result = run(tmp_path, "--fix", "--unsafe-fixes", "prompt.txt")
    assert result.exit_code == 0, result.output
    assert path.read_text(encoding="utf-8") == (  # the sentence, and the space after it, cut
        "You are talking to the support assistant of Northwind Cloud today."
        " Answer billing questions, cite the policy section you rely on, and never promise refunds.\n"
        "Question: {{ question }}\nHello {{ user_name }}.\n")


def test_a_read_only_file_is_refused(tmp_path):
    path = write(tmp_path, PROMPT)
    path.chmod(0o444)
    result = run(tmp_path, "--fix", "prompt.txt")
    assert result.exit_code == 2
    assert "prompt.txt: not fixed: the file is read-only" in result.stderr
    assert path.read_text(encoding="utf-8") == PROMPT


def test_a_file_changed_on_disk_or_not_utf8_is_refused(tmp_path):
    path = write(tmp_path, "changed since\n")
    with pytest.raises(PrefixlintError, match="changed on disk"):
        write_fixed(str(path), "as read\n", "fixed\n")
    path.write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(PrefixlintError, match="not UTF-8"):
        write_fixed(str(path), "café\n", "fixed\n")
    assert path.read_bytes() == "caf\xe9\n".encode("latin-1")


def test_bom_and_line_endings_are_kept(tmp_path):
    path = tmp_path / "prompt.txt"
    path.write_bytes(b"\xef\xbb\xbf" + PROMPT.replace("\n", "\r\n").encode("utf-8"))
    assert run(tmp_path, "--fix", "prompt.txt").exit_code == 0
    assert path.read_bytes() == b"\xef\xbb\xbf" + (RULES + "Question: {{ question }}\nRequest {{ request_id }}\n"
                                                   ).replace("\n", "\r\n").encode("utf-8")


def test_a_value_inside_a_for_block_has_no_fix(tmp_path):
    write(tmp_path, "{% for doc in documents %}\nSource: {{ doc }}\n{% endfor %}\n" + RULES + RULES
          + "Question: {{ question }}\n")
    result = run(tmp_path, "--format", "json", "prompt.txt")
    findings = json.loads(result.stdout)["files"][0]["findings"]
    (moving,) = [f for f in findings if f["code"] == "PFX005"]
    assert moving["fix"] is None and "block" in moving["fix_unavailable"]
    assert run(tmp_path, "--diff", "prompt.txt").exit_code == 0  # nothing to change
