"""What every fix is checked for before it is offered (issue 24 item 2), on the fixed file
loaded again: the same multiset of placeholders, the same words (less only the connecting
words of a clause turned into its own sentence, plus at most a short label), and no container
left empty or header left without its body that the original did not have. The reuse it
promises is measured on the same fixed text (`prefixlint.fix.attach`)."""

from __future__ import annotations

import re
from collections import Counter
from functools import partial
from itertools import chain

from prefixlint.load.template import line_starts
from prefixlint.match.units import masked, words

#: Words a clause loses when it becomes a sentence of its own (`, and today's date is {d}`).
CONNECTORS = frozenset({"and", "but", "where", "with", "on", "at", "as", "of", "since", "until", "for"})
#: At most this many words a fix may add (the lead-in of a value moved as its own sentence).
ADDED_WORDS = 4
_EMPTY_ELEMENT = re.compile(r"<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?>\s*</\1>")
_EMPTY_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n[ \t\n]*\1[ \t]*$", re.MULTILINE)
_EMPTY_QUOTES = re.compile(r'("""|\'\'\'|``)\s*\1')
_HEADER = re.compile(r"^[ \t]*(#{1,6})[ \t]+\S.*$|^[ \t]*[A-Z][A-Z0-9 _/&-]{2,60}:[ \t]*$"
                     r"|^[ \t]*([=*~#-])\2{2,}[ \t]*\S(?:.*?\S)?[ \t]*\2{3,}[ \t]*$", re.MULTILINE)
#: A line that introduces what follows it: a header, or a line ending with `:`.
_INTRODUCES = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+\S.*|\S.*:|([=*~#-])\1{2,}[ \t]*\S(?:.*?\S)?[ \t]*\1{3,})[ \t]*$")
_OPENS = re.compile(r"[ \t]*(?:<[A-Za-z][^<>]*>|[{\[]|```|~~~)[ \t]*$")


class Rejected(Exception):
    """Why a built fix is not offered."""


def placeholder_names(compiled) -> Counter:
    names: Counter = Counter()
    for placeholder in compiled.placeholders:
        names.update((*placeholder.names, *(f"{c}()" for c in placeholder.calls)))
    return names


def text_words(messages) -> Counter:
    return Counter(chain.from_iterable(words(masked(m.text, m.spans)) for m in messages))


def _lines(messages) -> Counter:
    """The lines of the messages, their values blanked, counted: a word never spans a line, so the
    words two texts do not share are those of the lines they do not share."""
    return Counter(line for m in messages for line in masked(m.text, m.spans).split("\n"))


def _words(lines: Counter) -> Counter:
    return Counter(chain.from_iterable(words(line) for line in lines.elements()))


def empty_containers(texts) -> int:
    """Empty tag pairs, empty code fences, triple quotes quoting nothing and headers with no body,
    over the texts."""
    count = 0
    for text in texts:
        count += len(_EMPTY_ELEMENT.findall(text))
        # each below only where its marks are; a header is one line, matched at each line's start
        count += len(_EMPTY_FENCE.findall(text)) if "```" in text or "~~~" in text else 0
        count += len(_EMPTY_QUOTES.findall(text)) if '"""' in text or "'''" in text or "``" in text else 0
        for header in filter(None, map(partial(_HEADER.match, text), line_starts(text))):
            if header.group(2) and "END" in header.group(0).upper().split():  # `=== END REPORT ===` closes
                continue
            rest = text[header.end():]
            following = next((line for line in rest.split("\n") if line.strip()), None)
            if following is None or _HEADER.fullmatch(following):
                count += 1
    return count


def introductions(messages) -> Counter:
    """(a line introducing what follows, the next line) for every such line whose next non-blank
    line is a bare value (a placeholder and nothing else) or opens a container: what the line
    introduces. A fix keeps each pair together, or moves both."""
    found: Counter = Counter()
    for message in messages:
        lines, plain = message.text.split("\n"), masked(message.text, message.spans).split("\n")
        for k, line in enumerate(lines[:-1]):
            if not _INTRODUCES.match(line):
                continue
            n = next((j for j in range(k + 1, len(lines)) if lines[j].strip()), None)
            if n is not None and lines[n].strip() and (not plain[n].strip() or _OPENS.fullmatch(plain[n])):
                found[(line.strip(), lines[n].strip())] += 1
    return found


def verify(before_messages, before_names: Counter, after_messages, after_names: Counter) -> None:
    """Rejected when the fixed text lost or doubled a placeholder or a word, or left a container empty."""
    if after_names != before_names:
        lost, doubled = before_names - after_names, after_names - before_names
        raise Rejected("the fixed file would " + ("lose " + ", ".join(sorted(lost)) if lost else
                                                  "repeat " + ", ".join(sorted(doubled))))
    before_lines, after_lines = _lines(before_messages), _lines(after_messages)
    # `text_words(before) - text_words(after)` and the other way: the common lines' words cancel
    before, after = _words(before_lines - after_lines), _words(after_lines - before_lines)
    lost_words = {w: n for w, n in (before - after).items() if w not in CONNECTORS}
    if lost_words:
        raise Rejected(f"the fixed file would lose the word{'s' if len(lost_words) > 1 else ''} "
                       + ", ".join(repr(w) for w in sorted(lost_words)[:3]))
    if sum((after - before).values()) > ADDED_WORDS:
        raise Rejected("the fix would add more than a short label")
    pulled = introductions(before_messages) - introductions(after_messages)
    if pulled:
        (line, value), _ = pulled.most_common(1)[0]
        raise Rejected(f"the fix would take {value[:40]!r} from the line introducing it ({line[:40]!r})")
    if empty_containers(m.text for m in after_messages) > empty_containers(m.text for m in before_messages):
        raise Rejected("the fix would leave a tag, a code block or a header without its content")
