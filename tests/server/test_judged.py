"""The issue's judged scenario, with a bare JSON-RPC client on the real stdio of
`python -m prefixlint server` in a scratch repository; then debouncing, one document
re-measured per change, and a clean shutdown/exit."""

from __future__ import annotations

import re

import pytest

from tests.server.rpc import Client
from tests.server.scratch import INSTRUCTIONS, apply_text_edits, make_repository


def did_change(client: Client, uri: str, version: int, text: str) -> None:
    client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                             "contentChanges": [{"text": text}]})


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    root = make_repository(tmp_path_factory.mktemp("judged"))
    client = Client(root)
    client.initialize(root, {"debounce-ms": 150})
    yield client, root
    if client.process.poll() is None:
        client.process.kill()
        client.process.wait()


def test_timestamp_ahead_of_30_instruction_lines(session):
    client, root = session
    path = root / "prompts" / "chat.yaml"
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                            "text": text}})
    published = client.diagnostics(uri, 1)
    lines = text.split("\n")
    timestamp_line = next(n for n, line in enumerate(lines) if "{{ now }}" in line)
    (pfx001,) = [d for d in published["diagnostics"] if d["code"] == "PFX001"]
    assert pfx001["range"]["start"]["line"] == timestamp_line
    assert pfx001["range"]["start"]["character"] == lines[timestamp_line].index("{{ now }}")

    actions = client.request("textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": pfx001["range"], "context": {"diagnostics": [pfx001]}})
    (quick_fix,) = [a for a in actions if a["kind"] == "quickfix" and a.get("isPreferred")]
    edits = [(e["range"]["start"]["line"], e["range"]["start"]["character"], e["range"]["end"]["line"],
              e["range"]["end"]["character"], e["newText"]) for e in quick_fix["edit"]["changes"][uri]]
    fixed = apply_text_edits(text, edits)
    fixed_lines = fixed.split("\n")
    moved_to = next(n for n, line in enumerate(fixed_lines) if "{{ now }}" in line)
    instructions = [n for n, line in enumerate(fixed_lines) if re.match(r"\s*\d+\. Answer", line)]
    assert len(instructions) == INSTRUCTIONS and moved_to > max(instructions)

    hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                  "position": pfx001["range"]["start"]})
    value = hover["contents"]["value"]
    # The measured numbers the diagnostic's message gives are those the hover shows.
    assert "ends the shared prefix at token " in pfx001["message"]
    shared = int(pfx001["message"].split("ends the shared prefix at token ")[1].split()[0])
    assert f"| {shared:,} (" in value and "after 16-token blocks" in value and "after the fix" in value

    did_change(client, uri, 2, fixed)
    assert [d["code"] for d in client.diagnostics(uri, 2)["diagnostics"]] == []

    broken = root / "prompts" / "broken.yaml"
    client.notify("textDocument/didOpen", {"textDocument": {"uri": broken.as_uri(), "languageId": "yaml",
                                                            "version": 1, "text": "messages: [\n  {role: "}})
    (error,) = client.diagnostics(broken.as_uri(), 1)["diagnostics"]
    assert error["severity"] == 1 and error["source"] == "prefixlint"
    assert client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                 "position": {"line": 0, "character": 0}}) is None  # alive
    never_opened = (root / "prompts" / "elsewhere.yaml").as_uri()
    assert client.request("textDocument/codeAction", {"textDocument": {"uri": never_opened},
                                                      "range": pfx001["range"], "context": {"diagnostics": []}}) is None


def test_typing_is_debounced_and_only_the_edited_document_is_measured(session):
    client, root = session
    one, two = root / "prompts" / "chat.yaml", root / "prompts" / "broken.yaml"
    text = one.read_text(encoding="utf-8")
    seen = len(client.notifications)
    for version in range(3, 8):  # five keystrokes, faster than the 150 ms debounce
        did_change(client, one.as_uri(), version, text.replace("politely", "politely" + "!" * version))
    assert [d["code"] for d in client.diagnostics(one.as_uri(), 7)["diagnostics"]] == ["PFX001"]
    client.request("textDocument/hover", {"textDocument": {"uri": one.as_uri()},
                                          "position": {"line": 0, "character": 0}})  # a round trip: all in
    published = [(n["params"]["uri"], n["params"]["version"]) for n in client.notifications[seen:]
                 if n["method"] == "textDocument/publishDiagnostics"]
    assert published == [(one.as_uri(), 7)]
    assert two.as_uri() not in {uri for uri, _ in published}


def test_shutdown_then_exit_ends_the_server_with_status_0(session):
    client, _ = session
    assert client.close() == 0


def test_initialization_options_win_over_the_project_configuration(tmp_path):
    root = make_repository(tmp_path)  # its pyproject.toml says vllm, whose blocks are 16 tokens
    client = Client(root)
    try:
        client.initialize(root, {"block-size": 64, "colour": "blue"})
        path = root / "prompts" / "chat.yaml"
        uri = path.as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                                "text": path.read_text(encoding="utf-8")}})
        (diagnostic,) = client.diagnostics(uri, 1)["diagnostics"]
        assert "after 64-token blocks" in diagnostic["message"]
        hover = client.request("textDocument/hover", {"textDocument": {"uri": uri},
                                                      "position": diagnostic["range"]["start"]})
        assert "engine `vllm`, 64-token blocks" in hover["contents"]["value"]
        shown = [n["params"]["message"] for n in client.notifications if n["method"] == "window/showMessage"]
        assert len(shown) == 1 and "unknown configuration key 'colour'" in shown[0]
    finally:
        assert client.close() == 0
