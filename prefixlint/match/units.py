"""The unit a volatile value moves with, read from the text's structure (issue 24 item 1).

A fix moves the value together with the words that only label it (`Current time: {{ now }}`,
`Session: {{ session_id }}`) and leaves the persona and the instructions where they are. The
unit is found from the structure around the value, innermost container first:

- a fenced code block, a JSON example (brackets opened on an earlier line) or an XML-like
  element (`<context>…</context>`) holding the value: the whole container moves, or nothing;
- a list item (with its continuation lines) or a line;
- a Markdown section (or a `LABEL:` line) whose whole body is that unit: the header goes too,
  so no header is left without its body.

The decision is a mode string, made once from the template as written and applied alike to
every render and to the file (`prefixlint.match.variants.plan_moves`): LINE and BLOCK move whole
lines that hold only the value and its label (safe); a trailing "!" marks a whole-line move of
more than a label (unsafe); SENTENCE and a clause (`prefixlint.match.clause`) cut a line (unsafe).
`NoUnit` says why a value cannot be cut out cleanly.
"""

from __future__ import annotations

import re
from typing import Sequence

from prefixlint.match.structure import TAG, enclosing, end_marker, introduction, line_bounds, list_item, with_header

LINE, SENTENCE, BLOCK = "line", "sentence", "block"
UNSAFE_MARK = "!"
#: A label is at most this many words besides the values (`Current local time:`).
LABEL_WORDS = 5
#: Words that address the model: a unit holding one is an instruction or the persona.
ADDRESSED = frozenset({"you", "your", "you're", "yours", "always", "never", "must", "should", "please",
                       "don't", "do", "not", "act", "respond", "answer", "reply", "use", "ensure"})
#: A sentence opening with one of these is an instruction (`Write 3 queries about {task}`).
IMPERATIVE = frozenset({"write", "assume", "generate", "create", "summarize", "summarise", "translate", "return",
                        "provide", "give", "list", "explain", "describe", "analyze", "analyse", "review", "follow",
                        "read", "keep", "make", "include", "focus", "avoid", "consider", "find", "identify",
                        "classify", "extract", "rewrite", "be", "think", "select", "choose", "check", "output",
                        "cite", "greet", "remember", "compare", "answer", "judge", "rate", "grade", "score",
                        "evaluate", "assess", "decide", "determine", "rank", "label", "tag", "categorize",
                        "categorise"})
_LABEL_START = re.compile(r"\W*[^\W_][\w'’-]*(?:[ \t]+[^\W_][\w'’-]*)?[ \t]*:")
WORD = re.compile(r"[^\W_](?:[\w'’-]*[^\W_])?")
_ASCII_WORD = re.compile(r"[a-z0-9]+(?:[_'-]+[a-z0-9]+)*")  # WORD in lower-case ASCII text, faster
SENTENCE_END = re.compile(r"[.!?](?=\s|$)[ \t]*")


class NoUnit(Exception):
    """Why the value cannot be cut out of its text cleanly (no fix)."""


def applicability(mode: str) -> str:
    """"safe" for a whole-line unit that holds only the value and its label, else "unsafe"."""
    return "safe" if mode in (LINE, BLOCK) else "unsafe"


def is_block(mode: str) -> bool:
    return mode.rstrip(UNSAFE_MARK) == BLOCK


def masked(text: str, spans: Sequence) -> str:
    """`text` with every placeholder's value blanked, its line breaks kept (structure read from the
    stable text only)."""
    if not spans:
        return text
    out, last = [], 0
    for start, end in sorted((s.start, min(s.end, len(text))) for s in spans):
        start = max(start, last)  # spans in order; one inside another blanks nothing more
        if start < end:
            out += [text[last:start], "\n".join(" " * len(line) for line in text[start:end].split("\n"))]
            last = end
    return "".join(out) + text[last:]


def words(text: str) -> list[str]:
    if text.isascii():  # the same words, lower-cased at once (ASCII keeps every character's class)
        return _ASCII_WORD.findall(text.lower())
    return [w.lower().replace("’", "'") for w in WORD.findall(text)]


def label_only(text: str) -> bool:
    """Does `text` (values blanked) hold only a short label: few words, none addressing the model?"""
    return len(words(TAG.sub(" ", text))) <= LABEL_WORDS and not addressed(text)


def addressed(text: str) -> bool:
    """Does `text` speak to the model: a second-person word, or a sentence in the imperative?"""
    plain = TAG.sub(" ", text)
    found = words(plain)
    if ADDRESSED.intersection(found):
        return True
    # `Write 3 queries about {task}`, not a label (`Review id: {id}`, `Review request {id}.`)
    return len(found) >= 3 and found[0] in IMPERATIVE and not _LABEL_START.match(plain)


def block_region(text: str, spans: Sequence, start: int, end: int) -> tuple[int, int]:
    """The [start, end) of `text` a BLOCK mode moves for the value at text[start:end]."""
    plain = masked(text, spans)
    container = enclosing(plain, start, end)
    whole = container is not None
    if container is None:
        container = list_item(plain, start) or line_bounds(text, start)
        if container[1] < len(text) and end > container[1]:
            container = (container[0], line_bounds(text, end - 1)[1])
    a, b = container
    if b < len(text) and text[b - 1] != "\n":
        b = line_bounds(text, b)[1]
    a = line_bounds(text, a)[0]
    start = with_header(plain, a, b, whole)
    return start, (end_marker(plain, b) if start != a else b)


def _not_mid_sentence(plain: str, start: int, end: int) -> None:
    """NoUnit when the unit is part of a sentence running on below it (`… topic:\n{task}\n\nand
    research data: …`): its text does not end a sentence and the next text goes on in lower case."""
    following = next((line.strip() for line in plain[end:].split("\n") if line.strip()), "")
    if following[:1].islower() and not plain[start:end].rstrip().endswith((".", "!", "?")):
        raise NoUnit("the value is part of a sentence that runs on over the following lines: move it by hand")


def _not_introduced(plain: str, start: int, end: int, container: bool) -> None:
    """NoUnit when the unit is all that a sentence above it introduces (`These are the messages
    so far:` over `<Messages>{messages}</Messages>`, `Judge them on one dimension:`): moved
    alone it leaves that sentence pointing at nothing, and the sentence (longer than a label,
    or an instruction) is not a label to move along."""
    found = introduction(plain, start, end, container)
    header = plain[found[0] : line_bounds(plain, found[0])[1]] if found else ""
    if found and (found[1] == "intro" or found[1] == "label" and addressed(header)):
        raise NoUnit("the value is what the sentence above it introduces (a line ending with `:`): move the two"
                     " together by hand")


def decide(text: str, spans: Sequence, start: int, end: int) -> str | None:
    """The mode of the value at text[start:end] when its unit is whole lines (LINE, BLOCK, with
    UNSAFE_MARK for more than a label); None when only part of its line can move (the caller
    picks a sentence or a clause); NoUnit when nothing can move cleanly."""
    plain = masked(text, spans)
    container = enclosing(plain, start, end)
    if container is not None:
        a, b = container
        whole_lines = not plain[line_bounds(plain, a)[0]:a].strip() and not plain[b:line_bounds(plain, b - 1)[1]].strip()
        if not label_only(plain[a:b]):
            raise NoUnit("the value sits inside a container (a tag, a code block or a JSON example) with other"
                         " content: move the container by hand")
        if not whole_lines:
            raise NoUnit("the value's container shares its line with other text: move it by hand")
        _not_introduced(plain, line_bounds(plain, a)[0], line_bounds(plain, b - 1)[1], True)
        return BLOCK
    item = list_item(plain, start)
    a, b = item or line_bounds(plain, start)
    if end > b:
        raise NoUnit("the value spans several lines of the text")
    unit = plain[a:b]
    _not_mid_sentence(plain, a, b)
    if label_only(unit):
        _not_introduced(plain, a, b, False)
    header_start = with_header(plain, a, b)
    if label_only(unit):
        return BLOCK if item or header_start != a else LINE
    return None


def sentence_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence of its line holding text[start:end] (without the blanks around it)."""
    line_start, line_end = line_bounds(text, start)
    line_end = line_end - 1 if text[line_start:line_end].endswith("\n") else line_end
    before = [m.end() for m in SENTENCE_END.finditer(text, line_start, start)]
    cut_start = before[-1] if before else line_start
    after = SENTENCE_END.search(text, end, line_end)
    return cut_start, (after.end() if after else line_end)


def choose(text: str, spans: Sequence, start: int, end: int, lead: str | None) -> str:
    """The mode of the value at text[start:end]: its whole-line unit (`decide`), else the
    sentence when it is only the value and its label, else the clause that connects the value
    to its sentence (a mode of `prefixlint.match.clause`); a sentence of more than a label is
    moved whole only when it is its line and addresses nobody (unsafe). NoUnit otherwise."""
    from prefixlint.match.clause import clause, value_mode

    mode = decide(text, spans, start, end)
    if mode is not None:
        return mode
    plain = masked(text, spans)
    line_start, line_end = line_bounds(plain, start)
    a, b = sentence_bounds(plain, start, end)
    whole_line = not plain[line_start:a].strip() and not plain[b:line_end].strip()
    if label_only(plain[a:b]) and not whole_line:
        return SENTENCE
    if lead and clause(text, start, end, a, b):
        return value_mode(lead)
    if addressed(plain[a:b]):
        raise NoUnit("the value is part of a sentence addressed to the model (the persona or an instruction),"
                     " and no label of its own can be cut out: move it by hand")
    if whole_line:
        return LINE + UNSAFE_MARK
    raise NoUnit("the value's sentence holds more than the value and its label: move it by hand")
