"""`replay --rewrite`: a request log rewritten as `check --fix` fixes a template.

Three moves, nothing else: lines of a system (or developer) message that hold a volatile value
(a date, an id, a user's e-mail, a counter: named by the classifier `check` uses) go to the end
of the last user message, in their order; tool schemas get sorted keys and are ordered by name;
line endings become `\\n` and trailing spaces go. No word or value is added, dropped or changed
(the tests compare each request's multiset of words before and after). A completions `prompt`
gets the same moves within itself. Lines that are not a JSON request are copied as they are.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from prefixlint.explain.causes import CLASS_CAUSE, STRONG_SAMPLES, _finders
from prefixlint.load.classify import builtin_catalog, classify_variable, name_words

#: A line of this many characters at most can be a volatile line (longer: a paragraph).
LINE_CHARS = 200
_LABELLED = re.compile(r"^\s*[-*#>]*\s*([A-Za-z][\w .'/-]{0,40}?)\s*[:=]\s*(\S.*)$")
#: `Iteration 12`, `Turn #3`: a counter's name and its number, the whole line.
_NUMBERED = re.compile(r"^\s*([A-Za-z][\w ]{0,30}?)\s+#?(\d+)\s*$")


@dataclass
class Counts:
    lines: int = 0
    rewritten: int = 0
    moved_lines: int = 0
    tools_sorted: int = 0
    whitespace_fixed: int = 0


def volatile_line(line: str) -> bool:
    """A short line that holds a volatile value: a strong sample shape (date, uuid, e-mail)
    anywhere in it, or `Label: value` whose label the classifier calls volatile."""
    if not line.strip() or len(line) > LINE_CHARS:
        return False
    for signal, _, finder in _finders():
        if signal in STRONG_SAMPLES and finder.search(line):
            return True
    match = _LABELLED.match(line) or _NUMBERED.match(line)
    if match is None:
        return False
    label = "_".join(name_words(match.group(1)))
    found = classify_variable(builtin_catalog(), label, None, [match.group(2)])
    return found.volatile and found.cls in CLASS_CAUSE


def normalize_whitespace(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return "\n".join(line.rstrip(" \t") for line in text.split("\n"))


def split_volatile(text: str) -> tuple[str, list[str]]:
    """The text without its volatile lines, and those lines in order."""
    kept: list[str] = []
    moved: list[str] = []
    for line in text.split("\n"):
        (moved if volatile_line(line) else kept).append(line)
    if not moved:
        return text, []
    return "\n".join(kept).strip("\n") if "".join(kept).strip() else "\n".join(kept), moved


def canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: canonical(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [canonical(item) for item in value]
    return value


def _tool_name(tool: Any) -> str:
    if isinstance(tool, dict):
        function = inner if isinstance(inner := tool.get("function"), dict) else tool
        return str(function.get("name", ""))
    return ""


def sorted_tools(tools: list) -> list:
    return sorted((canonical(t) for t in tools), key=lambda t: (_tool_name(t), json.dumps(t, sort_keys=True)))


def rewrite_body(body: dict, counts: Counts) -> dict:
    body = dict(body)
    tools = body.get("tools")
    if isinstance(tools, list):
        fixed = sorted_tools(tools)
        if json.dumps(fixed) != json.dumps(tools):
            counts.tools_sorted += 1
        body["tools"] = fixed
    if isinstance(body.get("prompt"), str):
        text = normalize_whitespace(body["prompt"])
        counts.whitespace_fixed += text != body["prompt"]
        kept, moved = split_volatile(text)
        if moved and kept.strip():
            counts.moved_lines += len(moved)
            text = kept.rstrip("\n") + "\n" + "\n".join(moved) + ("\n" if text.endswith("\n") else "")
        body["prompt"] = text
    if isinstance(body.get("messages"), list):
        body["messages"] = _messages(body["messages"], counts)
    return body


def _messages(messages: list, counts: Counts) -> list:
    out = [dict(m) if isinstance(m, dict) else m for m in messages]
    moved: list[str] = []
    for message in out:
        if not isinstance(message, dict) or not isinstance(message.get("content"), str):
            continue
        text = normalize_whitespace(message["content"])
        counts.whitespace_fixed += text != message["content"]
        if message.get("role") in ("system", "developer"):
            text, lines = split_volatile(text)
            moved += lines
        message["content"] = text
    last_user = next((m for m in reversed(out) if isinstance(m, dict) and m.get("role") == "user"
                      and isinstance(m.get("content"), str)), None)
    if moved and last_user is not None:
        counts.moved_lines += len(moved)
        last_user["content"] = last_user["content"].rstrip("\n") + "\n\n" + "\n".join(moved)
    elif moved:  # nowhere to move them: the request is left as it was
        return [dict(m) if isinstance(m, dict) else m for m in messages]
    return out


def rewrite_line(text: str, counts: Counts) -> str:
    try:
        data = json.loads(text)
    except ValueError:
        return text
    if not isinstance(data, dict):
        return text
    counts.lines += 1
    if isinstance(data.get("request"), dict):
        new = {**data, "request": rewrite_body(data["request"], counts)}
    elif "messages" in data or "prompt" in data:
        new = rewrite_body(data, counts)
    else:
        return text
    if new != data:
        counts.rewritten += 1
    return json.dumps(new, ensure_ascii=False)


def rewrite_log(log: str, out: str) -> Counts:
    """Rewrite `log` (JSON Lines) line by line into `out`."""
    from prefixlint.errors import PrefixlintError
    from prefixlint.load.files import open_error

    counts = Counts()
    try:
        with open(log, encoding="utf-8", newline="") as source, open(out, "w", encoding="utf-8") as target:
            for raw in source:
                end = "\n" if raw.endswith("\n") else ""
                body = raw[: -1] if end else raw
                body = body[:-1] if body.endswith("\r") else body
                target.write((rewrite_line(body, counts) if body.strip() else body) + end)
    except OSError as exc:
        raise open_error(exc, getattr(exc, "filename", None) or out) from None
    except UnicodeDecodeError as exc:
        raise PrefixlintError(f"not UTF-8 ({exc.reason}): cannot rewrite it", path=log) from None
    return counts
