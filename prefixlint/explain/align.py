"""Two prompts aligned past their first divergence: every place where they still differ.

The texts are aligned line by line (difflib, no junk heuristics), so a value that changed on one
line and a block inserted further down are two places; lines replaced one for one are aligned
again character by character, so that two values on one line are two places too. A place is a
`Region`: its character span in the request's text and in the cached side's.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import accumulate
from typing import Iterator, Sequence

#: Lines replaced one for one that are less alike than this (difflib's ratio) differ as a whole
#: (another paragraph): one place, from their common start to their common end.
ALIKE_RATIO = 0.6
#: A line pair whose differing middle is longer than this differs as a whole (not aligned
#: character by character: a value is short, a longer difference is a block of its own).
MIDDLE_CHARS = 240
#: Two differences closer than this (characters of equal text between them) are one place,
#: and so are two within one word (equal text without white space, up to WORD_CHARS: a uuid
#: whose random digits happen to agree in places).
JOIN_CHARS = 3
WORD_CHARS = 16


@dataclass(frozen=True)
class Region:
    #: [start, end) in the request's text and in the cached side's.
    start: int
    end: int
    other_start: int
    other_end: int
    #: Equal text (characters) that follows the region in the alignment, up to the next region.
    equal_after: int = 0
    #: Equal text from the region to the end of the request.
    stable_after: int = 0


class Text:
    """A token sequence as text: each token's text and the character where it starts."""

    def __init__(self, ids: Sequence[int], token_text) -> None:
        pieces = list(map(token_text, ids))
        self.starts = list(accumulate(map(len, pieces), initial=0))[:-1]
        self.text = "".join(pieces)

    def token_at(self, char: int) -> int:
        """The token that holds character `char` (the number of tokens at the end)."""
        return max(0, bisect_right(self.starts, char) - 1) if char < len(self.text) else len(self.starts)

    def char_of(self, token: int) -> int:
        return self.starts[token] if token < len(self.starts) else len(self.text)


#: Where a prompt's text is cut into the pieces that are aligned: after each line end, and
#: around chat markup (`<|im_start|>`, `<|eot_id|>`: templates that join messages without a
#: newline would otherwise make the whole conversation one line).
_PIECES = re.compile(r"(?<=\n)|(?=<\|)|(?<=\|>)")


def _lines(text: str, start: int) -> tuple[list[str], list[int]]:
    lines = [piece for piece in _PIECES.split(text[start:]) if piece]
    offsets, at = [], start
    for line in lines:
        offsets.append(at)
        at += len(line)
    offsets.append(at)
    return lines, offsets


def _char_regions(a: str, a0: int, b: str, b0: int) -> Iterator[tuple[int, int, int, int]]:
    """Differences between two aligned lines, joined when fewer than JOIN_CHARS apart."""
    head = len(os.path.commonprefix([a, b]))
    tail = len(os.path.commonprefix([a[head:][::-1], b[head:][::-1]]))
    a_mid, b_mid = a[head: len(a) - tail], b[head: len(b) - tail]
    matcher = SequenceMatcher(None, a_mid, b_mid, autojunk=False)
    if max(len(a_mid), len(b_mid)) > MIDDLE_CHARS or not a_mid or not b_mid \
            or (head + tail + sum(m.size for m in matcher.get_matching_blocks())) * 2 < ALIKE_RATIO * (len(a) + len(b)):
        yield a0 + head, a0 + len(a) - tail, b0 + head, b0 + len(b) - tail
        return
    a, b, a0, b0 = a_mid, b_mid, a0 + head, b0 + head
    current = None
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            same = a[i1:i2]
            within_word = len(same) < WORD_CHARS and not any(c.isspace() for c in same) and i2 < len(a)
            if current is not None and i2 - i1 >= JOIN_CHARS and not within_word:
                yield current
                current = None
            continue
        if current is None:
            current = (a0 + i1, a0 + i2, b0 + j1, b0 + j2)
        else:
            current = (current[0], a0 + i2, current[2], b0 + j2)
    if current is not None:
        yield current


def same_chars(a: str, b: str) -> bool:
    """The same characters in another order, whitespace and commas aside: reordered keys or
    items, or whitespace drift."""
    if a == b:
        return False
    ours, theirs = Counter(a), Counter(b)
    for ignored in " \t\r\n\f\v,":
        ours.pop(ignored, None)
        theirs.pop(ignored, None)
    return ours == theirs


@dataclass(frozen=True)
class Alignment:
    regions: list[Region]
    #: Characters of the request's text on lines equal to the cached side's, past `start`
    #: (lines of 16 characters or more, markup aside).
    equal_lines: int


def regions(text: str, other: str, start: int) -> Alignment:
    """Every place after character `start` (where both texts still agree) where `text` and
    `other` differ, in the order of `text`; `equal_after` and `stable_after` say how much of
    the request's text is the same as the cached side's after each."""
    line_start = max(text.rfind("\n", 0, start) + 1, text.rfind("|>", 0, start) + 2 if "|>" in text[:start] else 0)
    a, a_at = _lines(text, line_start)
    b, b_at = _lines(other, line_start)
    spans: list[tuple[int, int, int, int]] = []
    equal_lines = 0
    content = [len(piece) if len(piece) >= 16 and not piece.startswith("<|") and len(piece.strip()) >= 16 else 0
               for piece in a]
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":  # chat markup and short pieces (a role name, a blank line) are not content
            equal_lines += sum(content[i1:i2])
            continue
        if tag == "replace" and i2 - i1 == j2 - j1 and not same_chars("".join(a[i1:i2]), "".join(b[j1:j2])):
            for k in range(i2 - i1):
                if same_chars(a[i1 + k], b[j1 + k]):  # reordered keys, whitespace: the line is one place
                    spans.append((a_at[i1 + k], a_at[i1 + k + 1], b_at[j1 + k], b_at[j1 + k + 1]))
                else:
                    spans += _char_regions(a[i1 + k], a_at[i1 + k], b[j1 + k], b_at[j1 + k])
            continue
        spans.append((a_at[i1], a_at[i2], b_at[j1], b_at[j2]))
    found = []
    for index, (s, e, os_, oe) in enumerate(spans):
        following = spans[index + 1][0] if index + 1 < len(spans) else len(text)
        found.append(Region(s, e, os_, oe, following - e))
    total = 0
    for index in range(len(found) - 1, -1, -1):
        total += found[index].equal_after
        region = found[index]
        found[index] = Region(region.start, region.end, region.other_start, region.other_end,
                              region.equal_after, total)
    return Alignment(found, equal_lines)
