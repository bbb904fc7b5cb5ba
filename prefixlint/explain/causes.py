"""The cause vocabulary of a miss, and naming a differing value with `check`'s classifier."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from prefixlint.load.classify import builtin_catalog, classify_variable, name_words

#: Why a request's prompt was not served from cache beyond the reused part (docs/replay.md).
CAUSES = (
    "cold", "full-hit", "new-content", "timestamp", "identifier", "user-data", "counter", "retrieved",
    "few-shot", "tool-order", "whitespace", "template", "retokenized", "evicted", "expired", "other",
)
#: The classifier's classes (rules/signals.yaml) as causes; request content is placed by `kinds`.
CLASS_CAUSE = {"timestamp": "timestamp", "identifier": "identifier", "user-data": "user-data",
               "counter-or-random": "counter"}
#: Sample signals that name a value on their own (a date, a uuid, an e-mail), before its label;
#: the others (epoch seconds, long hex) only after the label has had its say.
STRONG_SAMPLES = ("iso-datetime-sample", "iso-date-sample", "rfc2822-sample", "uuid-sample", "jwt-sample",
                  "email-sample")
TEXT_SHOWN = 80


@dataclass(frozen=True)
class Cause:
    cause: str
    #: Token index in the request's prompt where this place starts.
    token: int
    #: The request's own text there (a value, a line, or the start of a block).
    text: str
    #: Where the place starts (the value's first token), what places are aggregated by; the
    #: first cause's `token` is the exact first differing token.
    place: int | None = None

    def to_dict(self) -> dict:
        return {"cause": self.cause, "token": self.token, "text": self.text}


@lru_cache(maxsize=1)
def _finders() -> tuple[tuple[str, str, re.Pattern], ...]:
    """(signal id, class, unanchored pattern) of each sample signal, in catalog order."""
    found = []
    for signal in builtin_catalog().signals:
        for pattern in signal.samples:
            text = pattern.pattern.removeprefix("^").removesuffix("$")
            found.append((signal.id, signal.cls, re.compile(rf"(?<![\w@.+-]){text}(?![\w@-])")))
    return tuple(found)


def _sample_class(line: str, start: int, end: int, strong: bool) -> tuple[str, str] | None:
    """The class of the sample value on `line` that overlaps [start, end), and the value."""
    for signal, cls, finder in _finders():
        if (signal in STRONG_SAMPLES) != strong:
            continue
        for match in finder.finditer(line):
            if match.start() < max(end, start + 1) and match.end() > start:
                return cls, match.group()
    return None


_LABEL_END = re.compile(r"[\s:=#(\[{\"'|,;-]+$")
_MARKUP = re.compile(r"<[^<>\s]*>|<\|[^|]*\|>")


def label_of(line: str, start: int) -> str:
    """The words before a value on its line (`Current time: ` -> current_time): a name for the
    classifier, as a template would have named the variable."""
    before = _MARKUP.sub(" ", line[:start])
    before = _LABEL_END.sub("", before)
    words = name_words(before.split(":")[-1] if ":" in before else before)
    return "_".join(words[-4:])


def widen(line: str, start: int, end: int) -> tuple[int, int]:
    """The differing span grown to whole words (digits, letters, and the marks inside ids)."""
    keep = re.compile(r"[\w@.+\-/]")
    start, end = min(start, len(line)), min(end, len(line))
    while start > 0 and keep.match(line[start - 1]):
        start -= 1
    while end < len(line) and keep.match(line[end]):
        end += 1
    while start < end and line[end - 1] in ".,;:-":
        end -= 1
    return start, end


@lru_cache(maxsize=4096)
def _label_class(label: str) -> tuple[str | None, str, bool]:
    """What the classifier says of a label used as a variable's name (by its name alone)."""
    found = classify_variable(builtin_catalog(), label, None, ())
    return found.cls, found.frequency, found.volatile


def name_value(line: str, start: int, end: int, other: str = "") -> tuple[str | None, str]:
    """The cause a differing value on `line` ([start, end), `other` the cached side's value)
    is, as `check` names a template variable: strong sample shapes first (a date, a uuid, an
    e-mail), then the label before it, then weaker shapes; None when the classifier cannot
    tell (the caller looks at where the region is). Returns the cause and the value's text."""
    start, end = widen(line, start, end)
    value = line[start:end]
    sample = _sample_class(line, start, end, strong=True)
    if sample is not None:
        return CLASS_CAUSE.get(sample[0]), sample[1]
    label = label_of(line, start)
    if label:
        cls, frequency, volatile = _label_class(label)
        if volatile and cls in CLASS_CAUSE:
            return CLASS_CAUSE[cls], value
        if cls == "request-content" or frequency == "per_deployment":
            return None, value
    sample = _sample_class(line, start, end, strong=False)
    if sample is not None:
        return CLASS_CAUSE.get(sample[0]), sample[1]
    clock = _CLOCK.search(line, max(0, start - 8))
    if clock is not None and clock.start() < max(end, start + 1) and clock.end() > start:
        return "timestamp", clock.group()
    if value and re.fullmatch(r"[\d.,#]+", value) and (not other or re.fullmatch(r"[\d.,#]+", other)):
        return "counter", value
    if _ID_LIKE.fullmatch(value) and (not other or _ID_LIKE.fullmatch(other)):
        return "identifier", value
    return None, value


#: A time of day (`10:04`, `10:04:07`, `9:30 pm`): a clock, though no sample shape of the catalog.
_CLOCK = re.compile(r"(?<!\d)\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?(\s?[ap]\.?m\.?)?(?![\d:])", re.I)
#: Letters and digits mixed, 6 characters or more, no spaces: a generated id (`x7Kp2Q9`, `req_81f3`).
_ID_LIKE = re.compile(r"(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[\w-]{6,}")


def shown(text: str) -> str:
    text = text.strip("\n")
    return text if len(text) <= TEXT_SHOWN else text[: TEXT_SHOWN - 1] + "…"
