"""Code actions on a checked document: each finding's fix, fix all, and a suppression comment.

A finding's fix is the one `check --fix` writes (its JSON `fix`): a safe fix is the preferred
quick fix, an unsafe one (it splits a sentence) says so in its title and is never preferred.
"Fix all" is `check --fix` on this document's text (safe fixes only), as one edit. The
suppression action appends a comment that `prefixlint.rules.suppress` reads to the finding's
line; which comment form is right depends on where the line is (`#` ends a YAML line but is
prompt text inside a block scalar, where the Jinja form is dropped by the renderer instead),
so each form is tried on the text and the first whose check no longer reports the finding,
with the prompt's measured tokens unchanged, is offered; none, when no form does.
"""

from __future__ import annotations

from typing import Any, Callable

from lsprotocol import types

from prefixlint.server.diagnostics import finding_diagnostic
from prefixlint.server.documents import Checked

FIX_ALL_KIND = "source.fixAll.prefixlint"


def code_actions(uri: str, checked: Checked, wanted: types.Range, only: list[str] | None,
                 recheck: Callable[[str], Checked], docs_url: str | None = None) -> list[types.CodeAction]:
    """The actions for the findings on the lines of `wanted`, and fix all; `recheck(text)`
    checks an edited text of the document (to choose the suppression comment)."""
    actions: list[types.CodeAction] = []
    first, last = wanted.start.line + 1, wanted.end.line + 1
    for finding in checked.findings:
        if finding.line > last or (finding.end_line or finding.line) < first:
            continue  # not on the lines asked about
        diagnostic = finding_diagnostic(checked, finding, docs_url)
        fix = finding.extra.get("fix")
        if fix:
            actions.append(_quick_fix(uri, checked, finding, fix, diagnostic))
        if finding.code == "PFX000":
            remove = _removal(uri, checked, finding, diagnostic, recheck)
            if remove is not None:
                actions.append(remove)
        else:
            suppress = _suppression(uri, checked, finding, diagnostic, recheck)
            if suppress is not None:
                actions.append(suppress)
    fix_all = fix_all_action(uri, checked)
    if fix_all is not None:
        actions.append(fix_all)
    if only:
        actions = [a for a in actions if a.kind is not None and any(a.kind == k or a.kind.startswith(k + ".") for k in only)]
    return actions


def text_edits(checked: Checked, edits: list[dict]) -> list[types.TextEdit]:
    """`check`'s JSON edits (1-based line and column, end exclusive) as LSP text edits."""
    out = []
    for edit in edits:
        start = checked.index.position(edit["start"]["line"], edit["start"]["column"])
        end = checked.index.position(edit["end"]["line"], edit["end"]["column"])
        out.append(types.TextEdit(types.Range(types.Position(*start), types.Position(*end)), edit["content"]))
    return out


def _quick_fix(uri, checked, finding, fix, diagnostic) -> types.CodeAction:
    safe = fix.get("applicability") == "safe"
    title = f"{fix['message']} ({finding.code})" + ("" if safe else " [unsafe: splits a sentence]")
    return types.CodeAction(
        title=title, kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic], is_preferred=safe,
        edit=types.WorkspaceEdit(changes={uri: text_edits(checked, fix["edits"])}),
    )


def fix_all_action(uri: str, checked: Checked, unsafe: bool = False) -> types.CodeAction | None:
    """The safe fixes of the whole document as one edit of its text; None: nothing to fix."""
    from prefixlint.fix.write import fixed_text

    for result in checked.results:
        if result.error is not None:
            continue
        planned = fixed_text(result, unsafe)
        if planned is None or planned[0] == planned[1]:
            continue
        before, after, count = planned
        if before != checked.index.loaded_text:
            continue  # one prompt of a file holding several: its fix is not the file's text
        start = checked.index.position(1, 1)
        end = checked.index.end()
        edit = types.TextEdit(types.Range(types.Position(*start), types.Position(*end)), after)
        noun = "finding" if count == 1 else "findings"
        return types.CodeAction(title=f"prefixlint: fix all in this file ({count} {noun})", kind=FIX_ALL_KIND,
                                edit=types.WorkspaceEdit(changes={uri: [edit]}))
    return None


#: The comment forms of `prefixlint.rules.suppress`, as appended to a line.
FORMS = {
    "hash": " # prefixlint: disable-line {code}",
    "jinja": " {{# prefixlint: disable {code} #}}",
    "slashes": " // prefixlint: disable-line {code}",
    "handlebars": " {{{{! prefixlint: disable {code} }}}}",
}


FILE_FORMS = {
    "hash": "# prefixlint: disable-file {code}",
    "jinja": "{{# prefixlint: disable-file {code} #}}",
    "slashes": "// prefixlint: disable-file {code}",
    "handlebars": "{{{{! prefixlint: disable-file {code} }}}}",
}


def _order(finding: Any, result: Any) -> list[str]:
    source = finding.extra.get("source") or (result.format if result is not None else "") or ""
    if source in ("typescript", "javascript"):
        return ["slashes", "jinja", "handlebars", "hash"]
    if "handlebars" in source or "mustache" in source or source == "dotprompt":
        return ["handlebars", "jinja", "hash", "slashes"]
    return ["hash", "jinja", "handlebars", "slashes"]


def _suppression(uri, checked, finding, diagnostic, recheck) -> types.CodeAction | None:
    key = ("suppress", finding.code, finding.line)
    if key not in checked.memo:
        checked.memo[key] = _choose_suppression(checked, finding, recheck)
    chosen = checked.memo[key]
    if chosen is None:
        return None
    comment, at, scope = chosen
    edit = types.TextEdit(types.Range(types.Position(*at), types.Position(*at)), comment)
    return types.CodeAction(title=f"Suppress {finding.code} {scope} ({comment.strip()})",
                            kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic], is_preferred=False,
                            edit=types.WorkspaceEdit(changes={uri: [edit]}))


def _choose_suppression(checked: Checked, finding: Any, recheck) -> tuple[str, tuple[int, int], str] | None:
    """(comment, LSP position to insert it at, scope) of the first form that works: on the
    finding's line, else (a line inside a string literal has no comment) for the whole file."""
    result = checked.result
    index = checked.index
    lines = index.text.split("\n")
    number = finding.line - 1
    if not 0 <= number < len(lines) or result is None:
        return None
    line = lines[number]
    ending = "\r" if line.endswith("\r") else ""
    body = line[: len(line) - len(ending)]
    order = _order(finding, result)
    for form in order:
        comment = FORMS[form].format(code=finding.code)
        edited = "\n".join(lines[:number] + [body + comment + ending] + lines[number + 1:])
        if _works(recheck(edited), checked, finding, finding.line):
            return comment, index.line_end(finding.line), "on this line"
    newline = "\r\n" if lines[0].endswith("\r") else "\n"
    for form in order:
        comment = FILE_FORMS[form].format(code=finding.code) + newline
        edited = index.text[: index.shift] + comment + index.loaded_text
        if _works(recheck(edited), checked, finding, None):
            return comment, index.position(1, 1), "in this file"
    return None


def _works(again: Checked, checked: Checked, finding: Any, line: int | None) -> bool:
    """Whether the edited text's check lost the finding (on `line`, or anywhere: None) and
    nothing else: no error, the same measured tokens (the comment is not prompt text), no new PFX000."""
    result, now = checked.result, again.result
    if now is None or result is None or any(r.error is not None for r in again.results):
        return False
    if (now.tokens, now.reusable_tokens) != (result.tokens, result.reusable_tokens):
        return False
    if _unused(again) > _unused(checked):
        return False
    return not any(f.code == finding.code and (line is None or f.line == line) for f in again.findings)


def _unused(checked: Checked) -> int:
    return sum(1 for f in checked.findings if f.code == "PFX000")


def _removal(uri, checked, finding, diagnostic, recheck) -> types.CodeAction | None:
    """Remove an unused suppression (PFX000): the directive and the blank before it, or its
    whole line when it is alone there; offered when the edited text checks without it and
    with the same measured tokens."""
    directive = finding.extra.get("directive")
    lines = checked.index.text.split("\n")
    if not directive or not 1 <= finding.line <= len(lines) or checked.result is None:
        return None
    line = lines[finding.line - 1]
    start = finding.column - 1 + (checked.index.shift if finding.line == 1 else 0)
    if line[start: start + len(directive)] != directive:
        return None
    rest = line[:start].rstrip() + line[start + len(directive):]
    if not rest.strip():  # alone on its line: the line goes
        edited = "\n".join(lines[: finding.line - 1] + lines[finding.line:])
        begin, end = (finding.line - 1, 0), (finding.line, 0)
        if finding.line == len(lines):
            return None
    else:
        edited = "\n".join(lines[: finding.line - 1] + [rest] + lines[finding.line:])
        cut = len(line[:start].rstrip())
        begin = checked.index.position(finding.line, cut + 1 - (checked.index.shift if finding.line == 1 else 0))
        end = checked.index.position(finding.line, start + len(directive) + 1
                                     - (checked.index.shift if finding.line == 1 else 0))
    again = recheck(edited)
    now, result = again.result, checked.result
    if now is None or (now.tokens, now.reusable_tokens) != (result.tokens, result.reusable_tokens):
        return None
    if _unused(again) >= _unused(checked):
        return None
    edit = types.TextEdit(types.Range(types.Position(*begin), types.Position(*end)), "")
    return types.CodeAction(title="Remove the unused suppression (PFX000)", kind=types.CodeActionKind.QuickFix,
                            diagnostics=[diagnostic], is_preferred=True,
                            edit=types.WorkspaceEdit(changes={uri: [edit]}))
