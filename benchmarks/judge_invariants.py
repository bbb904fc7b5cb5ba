"""How the judge of `check --fix --unsafe-fixes` (benchmarks/judge_fixes.py) reads one changed
file on its own, not through the fix engine's verifier: its prompts as the loader reads them,
and each invariant and review defect of a fixed text against the original (issue 24)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

INVARIANTS = ("loads", "places", "words", "empty", "fewer")
REVIEW = ("persona", "split", "label", "gain")
#: Words a clause loses when it is made a sentence of its own (`, and the date is {d}`).
CONNECTORS = frozenset({"and", "but", "where", "with", "on", "at", "as", "of", "since", "until", "for"})
#: A short label: at most this many words added per fix.
LABEL_WORDS = 4

_WORD = re.compile(r"[^\W_](?:[\w'’-]*[^\W_])?")
_EMPTY_TAG = re.compile(r"<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?>\s*</\1\s*>")
_EMPTY_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n[ \t\n]*\1[ \t]*$", re.MULTILINE)
_EMPTY_QUOTES = re.compile(r'("""|\'\'\'|``)\s*\1|(?<![\w"])""(?![\w"])')
_EMPTY_JSON = re.compile(r"(?<![\w{$])(\{\s*\}|\[\s*\])")
_EMPTY_KEY = re.compile(r"^([ \t]*)(?:- )?[\"']?[\w-]+[\"']?:[ \t]*$")
_HEADER = re.compile(r"^[ \t]*#{1,6}[ \t]+\S.*$|^[ \t]*[A-Z][A-Z0-9 _/&-]{2,60}:[ \t]*$|^[ \t]*\*\*[^*\n]+\*\*:?[ \t]*$"
                     r"|^[ \t]*([=*~#-])\1{2,}[ \t]*\S(?:.*?\S)?[ \t]*\1{3,}[ \t]*$")
_SENTENCE = re.compile(r"[^.!?\n]*[.!?\n]?")
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.MULTILINE | re.DOTALL)
_ELEMENT = re.compile(r"<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?>.*?</\1\s*>", re.DOTALL)
_INTRO = re.compile(r"[ \t]*(?:#{1,6}[ \t]+\S.*|\S.*:|([=*~#-])\1{2,}[ \t]*\S(?:.*?\S)?[ \t]*\1{3,})[ \t]*")
_OPENER = re.compile(r"[ \t]*(?:<[A-Za-z][^<>]*>|[{\[]|```[^\n]*|~~~[^\n]*)[ \t]*")
_LABEL = re.compile(r"([^\W_][\w'’ -]{0,40}?)[ \t]*[:=][ \t]*[\"'`(\[]?$")

@dataclass
class Prompt:
    format: str
    role_texts: list[tuple[str | None, str, list[tuple[int, int]]]]  # (role, text, placeholder spans)
    names: Counter


@dataclass
class FileJudgement:
    path: str
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def blanked(text: str, spans) -> str:
    chars = list(text)
    for start, end in spans:
        for i in range(start, min(end, len(chars))):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def read_prompts(path: Path) -> list[Prompt] | None:
    """The file's prompts as its loader reads them: (role, text, placeholder spans), names."""
    from prefixlint.fix.source import source_messages
    from prefixlint.load.registry import load_templates
    from prefixlint.render.compile import compile_template

    try:
        templates = load_templates(str(path))
        out = []
        for template in templates:
            compiled = compile_template(template)
            names: Counter = Counter()
            for placeholder in compiled.placeholders:
                names.update((*placeholder.names, *(f"{c}()" for c in placeholder.calls)))
            messages = source_messages(template, compiled.placeholders)
            texts = [(m.role, m.text, [(s.start, s.end) for s in m.spans]) for m in messages]
            out.append(Prompt(template.format, texts, names))
        return out
    except Exception:  # noqa: BLE001 - a file that no longer loads is what is judged
        return None


def empty_containers(text: str) -> int:
    count = (len(_EMPTY_TAG.findall(text)) + len(_EMPTY_FENCE.findall(text)) + len(_EMPTY_JSON.findall(text))
             + len(_EMPTY_QUOTES.findall(text)))
    lines = text.split("\n")
    for number, line in enumerate(lines):
        following = next((x for x in lines[number + 1 :] if x.strip()), None)
        closing = "END" in line.upper().split()  # `=== END REPORT ===` closes a section, it heads none
        if _HEADER.fullmatch(line) and not closing and (following is None or _HEADER.fullmatch(following)):
            count += 1
        key = _EMPTY_KEY.fullmatch(line)
        if key and not _HEADER.fullmatch(line):  # `key:` with nothing nested under it
            indent = len(key.group(1))
            if following is None or len(following) - len(following.lstrip()) <= indent:
                count += 1
    return count


def containers(text: str, spans) -> list[str]:
    """Each fence, JSON example or XML-like element of `text` holding a placeholder, as written."""
    found = []
    for pattern in (_FENCE, _ELEMENT):
        for match in pattern.finditer(text):
            if any(match.start() <= s < match.end() for s, _ in spans):
                found.append(match.group(0).strip())
    for start, end in _json_blocks(text):
        if any(start <= s < end for s, _ in spans):
            found.append(text[start:end].strip())
    return found


def _json_blocks(text: str):
    """[start, end) of each bracketed block that opens at the end of a line and closes on a later one."""
    for match in re.finditer(r"[{\[][ \t]*\n", text):
        depth, index = 0, match.start()
        pairs = {"{": "}", "[": "]"}
        stack = []
        while index < len(text):
            char = text[index]
            if char in pairs:
                stack.append(pairs[char])
            elif stack and char == stack[-1]:
                stack.pop()
                if not stack:
                    yield match.start(), index + 1
                    break
            depth += 1
            index += 1
            if depth > 20000:
                break


def opening(text: str, spans) -> str:
    """The message's first sentence, values blanked, as words."""
    plain = blanked(text, spans).lstrip()
    first = _SENTENCE.match(plain)
    return " ".join(words(first.group(0) if first else ""))


def labels(text: str, spans) -> Counter:
    """(label, placeholder text) for every placeholder written right after `Label:` on its line,
    and for every placeholder alone on its line (or opening a tag under it) whose line above
    (past blank lines) introduces it: a header, or a line ending with `:`."""
    out: Counter = Counter()
    plain = blanked(text, spans)
    for start, end in spans:
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        match = _LABEL.search(plain[line_start:start])
        if match:
            out[(" ".join(words(match.group(1))[-3:]), text[start:end])] += 1
            continue
        if plain[line_start:line_end].strip():
            continue
        above = [line for line in text[:line_start].split("\n") if line.strip()][-2:]
        if above and _OPENER.fullmatch(above[-1]):  # `<Messages>` over the value: the line above the tag
            above = above[:-1]
        if above and _INTRO.fullmatch(above[-1]):
            out[(above[-1].strip()[-40:], text[start:end])] += 1
    return out


def judge_file(path: str, before: list[Prompt] | None, after: list[Prompt] | None, volatile_before: int,
               volatile_after: int, after_error: str | None, fixes: int) -> FileJudgement:
    judged = FileJudgement(path)
    fail = judged.failures.append
    if after is None or after_error or before is None or [p.format for p in before] != [p.format for p in after]:
        fail(f"loads: {after_error or 'the fixed file does not load as the same prompts'}")
        return judged
    names_before = sum((p.names for p in before), Counter())
    names_after = sum((p.names for p in after), Counter())
    if names_before != names_after:
        fail(f"places: lost {dict(names_before - names_after)} gained {dict(names_after - names_before)}")
    texts_before = [t for p in before for t in p.role_texts]
    texts_after = [t for p in after for t in p.role_texts]
    wb = Counter(w for _, text, spans in texts_before for w in words(blanked(text, spans)))
    wa = Counter(w for _, text, spans in texts_after for w in words(blanked(text, spans)))
    lost = {w: n for w, n in (wb - wa).items() if w not in CONNECTORS}
    added = sum((wa - wb).values())
    if lost or added > LABEL_WORDS * max(fixes, 1):
        fail(f"words: lost {sorted(lost)[:4]}, added {added}")
    if sum(empty_containers(t) for _, t, _ in texts_after) > sum(empty_containers(t) for _, t, _ in texts_before):
        fail("empty: an empty tag, fence, container or header is left")
    if volatile_after >= volatile_before:
        fail(f"fewer: {volatile_before} -> {volatile_after} volatile findings")
    for (role, text, spans), (_, text_after, spans_after) in zip(texts_before, texts_after):
        first = opening(text, spans)
        if len(first.split()) > LABEL_WORDS and opening(text_after, spans_after) != first:
            fail(f"persona: the opening {first[:50]!r} of a {role or 'prompt'} message moved")
    whole = "\n".join(t for _, t, _ in texts_after)
    for _, text, spans in texts_before:
        for container in containers(text, spans):
            if container not in whole:
                fail(f"split: {container.splitlines()[0][:40]!r}... is not kept whole")
    label_before = sum((labels(t, s) for _, t, s in texts_before), Counter())
    label_after = sum((labels(t, s) for _, t, s in texts_after), Counter())
    for label, value in (label_before - label_after):
        fail(f"label: {value} left its label {label!r}")
    return judged
