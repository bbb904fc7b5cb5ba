"""prefixlint server through pytest-lsp's real LSP client (one server for the module)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import published
from tests.server.scratch import INSTRUCTIONS, apply_text_edits, chat_yaml

pytestmark = pytest.mark.asyncio(loop_scope="module")


def cli_findings(path: Path, text: str | None = None):
    """What `prefixlint check` reports for the file (its text as given), to compare with, and
    its safe fixes written out as `check --fix` asks for them."""
    from prefixlint.check.runner import check_files
    from prefixlint.check.settings import SettingsBuilder

    results = check_files([str(path)], SettingsBuilder(), texts={str(path): text} if text is not None else None,
                          fixes=(False,))
    return [f for r in results for f in r.findings], results


def open_document(client: LanguageClient, path: Path, text: str, version: int = 1, language: str = "yaml") -> str:
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id=language, version=version, text=text)))
    return uri


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangeWholeDocument(text=text)]))


def edits_of(action: types.CodeAction, uri: str) -> list[tuple]:
    return [(e.range.start.line, e.range.start.character, e.range.end.line, e.range.end.character, e.new_text)
            for e in action.edit.changes[uri]]


def placeholder_at(text: str, placeholder: str = "{{ now }}") -> tuple[int, int]:
    line = next(n for n, item in enumerate(text.split("\n")) if placeholder in item)
    return line, text.split("\n")[line].index(placeholder)


async def hover_on_a_good_file(client: LanguageClient, name: str) -> types.Hover:
    """The hover on the timestamp of a good file the test opens itself (no test relies on another's documents)."""
    path = client.scratch / "prompts" / name
    uri = open_document(client, path, chat_yaml())
    await published(client, uri, 1)
    found = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri=uri), types.Position(*placeholder_at(chat_yaml()))))
    assert found is not None
    return found


async def test_open_gives_the_findings_of_check_on_the_placeholder_range(client: LanguageClient):
    path = client.scratch / "prompts" / "chat.yaml"
    text = path.read_text(encoding="utf-8")
    uri = open_document(client, path, text)
    params = await published(client, uri, 1)
    (diagnostic,) = params.diagnostics
    line, column = placeholder_at(text)
    assert (diagnostic.range.start.line, diagnostic.range.start.character) == (line, column)
    assert (diagnostic.range.end.line, diagnostic.range.end.character) == (line, column + len("{{ now }}"))
    assert diagnostic.code == "PFX001" and diagnostic.severity == types.DiagnosticSeverity.Error
    assert diagnostic.source == "prefixlint"
    (finding,), _ = cli_findings(path)
    assert diagnostic.message == finding.message  # the measured message of `check`
    docs = Path(diagnostic.code_description.href.removeprefix("file://"))
    assert docs.name == "PFX001.yaml" and "timestamp-before-stable" in docs.read_text(encoding="utf-8")


async def test_hover_on_the_placeholder_shows_the_measured_reuse(client: LanguageClient):
    path = client.scratch / "prompts" / "chat.yaml"
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    line, column = placeholder_at(text)
    found = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri=uri), types.Position(line=line, character=column + 4)))
    (finding,), (result,) = cli_findings(path)
    value = found.contents.value
    fixed_tokens = finding.extra["fixed_tokens"]
    share = 100 * finding.shared_prefix_tokens / finding.tokens
    assert f"| now, of {finding.tokens:,} | {finding.shared_prefix_tokens:,} ({share:.1f}%)" in value
    assert f"{finding.reusable_tokens:,} ({100 * finding.reusable_tokens / finding.tokens:.1f}%)" in value
    assert f"| after the fix, of {fixed_tokens:,} | {finding.extra['fixed_shared_prefix_tokens']:,} (" in value
    assert f"{finding.fixed_reusable_tokens:,} ({100 * finding.fixed_reusable_tokens / fixed_tokens:.1f}%)" in value
    assert "changes every request" in value and "tokenizer `o200k_base`" in value and "engine `vllm`" in value
    assert "16-token blocks" in value
    # The numbers are those of a real measurement: little reuse now, most of the file after the fix.
    assert finding.reusable_tokens < 32 < 10 * 32 < finding.fixed_reusable_tokens
    assert (found.range.start.line, found.range.start.character) == (line, column)
    nothing = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri=uri), types.Position(line=0, character=2)))
    assert nothing is None  # `messages:` is no placeholder


async def test_hover_on_a_volatile_value_after_the_stable_content_says_why_it_is_no_finding(client):
    path = client.scratch / "prompts" / "chat.yaml"
    text = path.read_text(encoding="utf-8")
    line, column = placeholder_at(text, "{{ question }}")
    found = await client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(uri=path.as_uri()), types.Position(line=line, character=column + 3)))
    assert "Not a finding here: 0 stable tokens follow it" in found.contents.value


async def test_quick_fix_moves_the_timestamp_after_the_instructions_and_the_finding_clears(client):
    path = client.scratch / "prompts" / "chat.yaml"
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    line, column = placeholder_at(text)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri=uri), types.Range(types.Position(line, column), types.Position(line, column)),
        types.CodeActionContext(diagnostics=[])))
    preferred = [a for a in actions if a.is_preferred]
    assert len(preferred) == 1 and preferred[0].kind == types.CodeActionKind.QuickFix
    assert "PFX001" in preferred[0].title and "unsafe" not in preferred[0].title
    fixed = apply_text_edits(text, edits_of(preferred[0], uri))
    lines = fixed.split("\n")
    timestamp = next(n for n, item in enumerate(lines) if "{{ now }}" in item)
    last_instruction = next(n for n, item in enumerate(lines) if item.strip().startswith(f"{INSTRUCTIONS}."))
    assert timestamp > last_instruction
    assert fixed == _expected_fix(text)
    change(client, uri, 2, fixed)
    params = await published(client, uri, 2)
    assert [d.code for d in params.diagnostics] == []
    change(client, uri, 3, text)  # back, for the other tests
    assert [d.code for d in (await published(client, uri, 3)).diagnostics] == ["PFX001"]


def _expected_fix(text: str) -> str:
    """The fix as `check --fix` writes it, made with the fix module directly."""
    from prefixlint.fix.write import fixed_text

    _, results = cli_findings(Path("prompts/chat.yaml").absolute(), text)
    return fixed_text(results[0])[1]


async def test_fix_all_and_suppression_actions_each_clear_the_finding(client: LanguageClient):
    path = client.scratch / "prompts" / "second.yaml"
    text = chat_yaml(20)
    uri = open_document(client, path, text)  # never written to disk: the editor's text is checked
    assert not path.exists()
    assert [d.code for d in (await published(client, uri, 1)).diagnostics] == ["PFX001"]
    line, column = placeholder_at(text)
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri=uri), types.Range(types.Position(line, 0), types.Position(line, 0)),
        types.CodeActionContext(diagnostics=[])))
    by_kind = {}
    for action in actions:
        by_kind.setdefault(action.kind, []).append(action)
    (fix_all,) = by_kind["source.fixAll.prefixlint"]
    (suppress,) = [a for a in actions if a.title.startswith("Suppress PFX001")]
    # Inside a YAML block scalar `#` is prompt text: the comment must be the Jinja one.
    ((*_, comment),) = edits_of(suppress, uri)
    assert comment == " {# prefixlint: disable PFX001 #}"
    for version, action in ((2, fix_all), (3, suppress)):
        change(client, uri, version, apply_text_edits(text, edits_of(action, uri)))
        assert [d.code for d in (await published(client, uri, version)).diagnostics] == []
    only = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri=uri), types.Range(types.Position(0, 0), types.Position(0, 0)),
        types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix])))
    assert only is None  # nothing left to fix in version 3


async def test_suppression_in_a_plain_yaml_string_uses_the_yaml_comment(client: LanguageClient):
    path = client.scratch / "prompts" / "inline.yaml"
    steps = " ".join(f"Step {n}: check the order, the invoice and the delivery address." for n in range(30))
    text = f'messages:\n  - role: system\n    content: "Now: {{{{ now }}}}. {steps}"\n  - role: user\n' \
           '    content: "{{ question }}"\n'
    uri = open_document(client, path, text)
    assert [d.code for d in (await published(client, uri, 1)).diagnostics] == ["PFX001"]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri=uri), types.Range(types.Position(2, 0), types.Position(2, 0)),
        types.CodeActionContext(diagnostics=[])))
    (suppress,) = [a for a in actions if a.title.startswith("Suppress PFX001")]
    ((*_, comment),) = edits_of(suppress, uri)
    assert comment == " # prefixlint: disable-line PFX001"
    change(client, uri, 2, apply_text_edits(text, edits_of(suppress, uri)))
    assert [d.code for d in (await published(client, uri, 2)).diagnostics] == []


async def test_a_malformed_document_gets_a_diagnostic_and_the_server_goes_on(client: LanguageClient):
    path = client.scratch / "prompts" / "broken.yaml"
    text = "messages:\n  - role: system\n    content: [unclosed {{ now }}\n  - role: user\n"
    uri = open_document(client, path, text)
    (diagnostic,) = (await published(client, uri, 1)).diagnostics
    assert diagnostic.severity == types.DiagnosticSeverity.Error and diagnostic.code is None
    assert 2 <= diagnostic.range.start.line <= 3  # where the YAML parser stops
    # Still answering: a hover on a good file, and a fixed text checks clean again.
    assert "PFX001" in (await hover_on_a_good_file(client, "after-broken.yaml")).contents.value
    change(client, uri, 2, chat_yaml().replace("{{ now }}", "March 2025"))  # repaired, and no volatile value left
    assert list((await published(client, uri, 2)).diagnostics) == []


async def test_closing_a_document_clears_its_diagnostics(client: LanguageClient):
    path = client.scratch / "prompts" / "closed.yaml"
    uri = open_document(client, path, chat_yaml())
    assert len((await published(client, uri, 1)).diagnostics) == 1
    client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    assert list((await published(client, uri, None)).diagnostics) == []


RULES = "\n".join(f"{n}. Answer the customer's question about order {n} politely, precisely and briefly."
                  for n in range(1, 31))
# The prompts in code are built per call, in a function: a module-level f-string or template
# literal is evaluated once per process, which is no finding.
IN_CODE = {
    "agent.py": f'from datetime import datetime\n\n\ndef system_prompt():\n'
                f'    return f"""Current time: {{datetime.now().isoformat()}}\n\n{RULES}\n"""\n',
    "agent.ts": f"export function systemPrompt(): string {{\n"
                f"  return `Current time: ${{new Date().toISOString()}}\n\n{RULES}\n`;\n}}\n",
    "agent.md": f"Current time: {{{{ now }}}}  \u00e9\U0001F600 \n\n{RULES}\n",
}
SAMPLES = sorted(p for p in (Path(__file__).resolve().parents[2] / "samples").iterdir() if p.is_file())


def expected(path: Path, text: str) -> list[tuple]:
    """check's findings as LSP (code, start, end): 0-based lines, UTF-16 columns, computed here."""
    findings, _ = cli_findings(path, text)
    lines = text.split("\n")

    def units(line: int, column: int) -> int:
        return len(lines[line - 1][: column - 1].encode("utf-16-le")) // 2

    return [(f.code, (f.line - 1, units(f.line, f.column)),
             (f.end_line - 1, units(f.end_line, f.end_column)) if f.end_column else
             (f.line - 1, units(f.line, len(lines[f.line - 1]) + 1))) for f in findings]


@pytest.mark.parametrize("name", sorted(IN_CODE) + [p.name for p in SAMPLES])
async def test_every_format_gets_the_findings_of_check_at_their_positions(client: LanguageClient, name):
    if name in IN_CODE:
        path, text = client.scratch / "code" / name, IN_CODE[name]
    else:
        path = next(p for p in SAMPLES if p.name == name)
        text = path.read_text(encoding="utf-8")
    language = {".py": "python", ".ts": "typescript", ".md": "markdown"}.get(path.suffix, "plaintext")
    uri = open_document(client, path, text, language=language)
    got = [(d.code, (d.range.start.line, d.range.start.character), (d.range.end.line, d.range.end.character))
           for d in (await published(client, uri, 1)).diagnostics]
    assert got == expected(path, text)
    for diagnostic in client.diagnostics[uri]:  # each flagged value's hover shows its measurement
        if diagnostic.data.get("variable"):
            found = await client.text_document_hover_async(types.HoverParams(
                types.TextDocumentIdentifier(uri=uri), diagnostic.range.start))
            assert f"{diagnostic.code} `{diagnostic.data['name']}`" in found.contents.value
    if name in IN_CODE:
        assert [code for code, *_ in got] == ["PFX001"]


@pytest.mark.parametrize("name, comment", [("agent.py", "# prefixlint: disable-file PFX001\n"),
                                           ("agent.ts", "// prefixlint: disable-file PFX001\n")])
async def test_a_line_inside_a_string_literal_is_suppressed_for_the_file(client: LanguageClient, name, comment):
    path = client.scratch / "code" / name
    uri = path.as_uri()
    text = IN_CODE[name]
    if uri not in client.diagnostics:  # not opened by the test above (run alone)
        open_document(client, path, text)
        await published(client, uri, 1)
    (diagnostic,) = client.diagnostics[uri]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri=uri), diagnostic.range, types.CodeActionContext(diagnostics=[diagnostic])))
    (suppress,) = [a for a in actions if a.title.startswith("Suppress PFX001")]
    assert "in this file" in suppress.title
    assert edits_of(suppress, uri) == [(0, 0, 0, 0, comment)]
    change(client, uri, 2, apply_text_edits(text, edits_of(suppress, uri)))
    assert list((await published(client, uri, 2)).diagnostics) == []


async def test_a_changed_configuration_re_checks_the_open_documents(client: LanguageClient):
    path = client.scratch / "prompts" / "configured.yaml"
    config = client.scratch / "pyproject.toml"
    before = config.read_text(encoding="utf-8")
    uri = open_document(client, path, chat_yaml())
    assert [d.code for d in (await published(client, uri, 1)).diagnostics] == ["PFX001"]
    try:
        config.write_text(before + 'ignore = ["PFX001"]\n', encoding="utf-8")
        client.published.clear()
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]))
        assert [d.code for d in (await published(client, uri, 1)).diagnostics] == []
    finally:
        config.write_text(before, encoding="utf-8")
        client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
            [types.FileEvent(uri=config.as_uri(), type=types.FileChangeType.Changed)]))
    assert [d.code for d in (await published(client, uri, 1)).diagnostics] == ["PFX001"]


async def test_a_render_past_its_time_limit_is_a_diagnostic_and_the_server_answers(client: LanguageClient):
    path = client.scratch / "prompts" / "endless.j2"
    text = ("Current time: {{ now }}\n"
            "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\n")
    uri = open_document(client, path, text, language="jinja")
    (diagnostic,) = (await published(client, uri, 1)).diagnostics
    assert "rendering took longer than 1 s" in diagnostic.message and diagnostic.range.start.line == 1
    deep = client.scratch / "prompts" / "deep.j2"
    deep_uri = open_document(client, deep, "{% macro f(n) %}{{ f(n) }}{% endmacro %}{{ f(1) }} {{ now }}\n")
    (diagnostic,) = (await published(client, deep_uri, 1)).diagnostics
    assert "nests too deeply" in diagnostic.message
    assert "PFX001" in (await hover_on_a_good_file(client, "after-endless.yaml")).contents.value


async def test_an_unsafe_fix_is_marked_and_never_preferred(client: LanguageClient):
    # `Today is ${today}.` is cut from the persona's line (unsafe); the iteration line moves whole (safe)
    path = Path(__file__).resolve().parents[1] / "fixtures" / "sources" / "research_agent.ts"
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    if uri not in client.diagnostics:
        open_document(client, path, text, language="typescript")
        await published(client, uri, 1)
    findings = {f.code: f for f in cli_findings(path)[0]}
    applicability = {code: f.extra["fix"]["applicability"] for code, f in findings.items() if f.extra.get("fix")}
    assert applicability == {"PFX001": "unsafe", "PFX004": "safe"}
    assert sorted(d.code for d in client.diagnostics[uri]) == ["PFX001", "PFX004"]
    for diagnostic in client.diagnostics[uri]:
        actions = await client.text_document_code_action_async(types.CodeActionParams(
            types.TextDocumentIdentifier(uri=uri), diagnostic.range,
            types.CodeActionContext(diagnostics=[diagnostic])))
        (fix,) = [a for a in actions if a.title.endswith(f"({diagnostic.code})") or f"({diagnostic.code}) [" in a.title]
        unsafe = applicability[diagnostic.code] == "unsafe"
        assert ("[unsafe: splits a sentence]" in fix.title) is unsafe and bool(fix.is_preferred) is not unsafe


@pytest.mark.parametrize("directive_line, expected_line", [
    ('    content: "{{ question }}"  # prefixlint: disable-line PFX002', '    content: "{{ question }}"'),
    ("# prefixlint: disable-file PFX003", None),
])
async def test_an_unused_suppression_is_removed_by_its_quick_fix(client: LanguageClient, directive_line, expected_line):
    text = chat_yaml()
    lines = text.split("\n")
    user = lines.index('    content: "{{ question }}"')
    if expected_line is None:
        lines.insert(0, directive_line)
        wanted = lines[1:]
    else:
        lines[user] = directive_line
        wanted = lines[:user] + [expected_line] + lines[user + 1:]
    text = "\n".join(lines)
    path = client.scratch / "prompts" / f"unused{len(directive_line)}.yaml"
    uri = open_document(client, path, text)
    (unused,) = [d for d in (await published(client, uri, 1)).diagnostics if d.code == "PFX000"]
    assert list(unused.tags) == [types.DiagnosticTag.Unnecessary]
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(uri=uri), unused.range, types.CodeActionContext(diagnostics=[unused])))
    (remove,) = [a for a in actions if a.title == "Remove the unused suppression (PFX000)"]
    fixed = apply_text_edits(text, edits_of(remove, uri))
    assert fixed == "\n".join(wanted)
    change(client, uri, 2, fixed)
    assert [d.code for d in (await published(client, uri, 2)).diagnostics] == ["PFX001"]


async def test_a_changed_text_places_findings_at_the_editors_columns_and_lines(client: LanguageClient):
    path = client.scratch / "prompts" / "typed.md"
    text = f"Current time: {{{{ now }}}}\n\n{RULES}\n"
    uri = open_document(client, path, text, language="markdown")
    assert (await published(client, uri, 1)).diagnostics[0].range.start == types.Position(0, 14)
    # The client sends a changed document whole (the server asks for full sync).
    for version, changed, where in (
            (2, "\U0001F600é" + text, types.Position(0, 17)),  # an emoji is 2 UTF-16 units, é one
            (3, "Intro\x0cstill line one. " + text, types.Position(0, 36))):  # a form feed ends no line
        change(client, uri, version, changed)
        (diagnostic,) = (await published(client, uri, version)).diagnostics
        assert diagnostic.code == "PFX001" and diagnostic.range.start == where


async def test_a_document_past_the_size_limit_is_one_diagnostic_and_not_measured(client: LanguageClient):
    path = client.scratch / "prompts" / "huge.yaml"
    text = chat_yaml(1500)  # about 130,000 bytes; the server under test allows 100,000
    assert len(text.encode("utf-8")) > 100_000
    uri = open_document(client, path, text)
    (diagnostic,) = (await published(client, uri, 1)).diagnostics
    assert diagnostic.message.startswith(f"file is too large ({len(text.encode('utf-8')):,} bytes; the limit is 100,000)")
    assert diagnostic.range.start.line == 0


async def test_saving_checks_the_document_again(client: LanguageClient):
    path = client.scratch / "prompts" / "saved.yaml"
    uri = open_document(client, path, chat_yaml())
    assert [d.code for d in (await published(client, uri, 1)).diagnostics] == ["PFX001"]
    client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    again = await published(client, uri, 1)
    assert [d.code for d in again.diagnostics] == ["PFX001"] and again.version == 1


async def test_changed_settings_from_the_client_re_check_the_open_documents(client: LanguageClient):
    path = client.scratch / "prompts" / "settings.yaml"
    uri = open_document(client, path, chat_yaml())
    assert "after 16-token blocks" in (await published(client, uri, 1)).diagnostics[0].message
    try:
        client.published.clear()
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"prefixlint": {"path": "prefixlint", "initializationOptions": {"block-size": 32,
                                                                                      "debounce-ms": 50}}}))
        assert "after 32-token blocks" in (await published(client, uri, 1)).diagnostics[0].message
    finally:
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            settings={"debounce-ms": 50}))
    assert "after 16-token blocks" in (await published(client, uri, 1)).diagnostics[0].message
