"""Classify template variables and calls as stable or volatile, from the catalog in rules/signals.yaml.

A declared `kind` wins for how often a value changes; the catalog decides the rest from the
variable's name, the functions a placeholder calls and the variable's sample values.

Names are matched whole first (`names`: exact or glob), then by their words (`words`): a name
is split into words at `_ - . [ ] $` and camelCase/PascalCase boundaries (`customer.firstName`
-> customer first name, `researchContext` -> research context). The head word decides first (the
longest phrase of a signal's `words` that ends the name: `birth date` before `date`), then a
phrase anywhere in it (`customer_orders` -> customer). A function's last word decides (`time.Date` -> date).
A signal whose frequency is `per_deployment` (deployment constants: `assistant name`, `top k`)
marks a name stable, as does a name opening with a bound (`max_search_queries`, `minScore`) or
a size (`num_questions`, `n_results`): a limit the deployment sets, whatever it bounds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable

from prefixlint.errors import PrefixlintError

VOLATILE_FREQUENCIES = ("per_request", "per_user", "per_day")
#: The class a declared kind implies when the catalog does not recognise the variable.
KIND_DEFAULT_CLASS = {"per_day": "timestamp", "per_user": "user-data", "per_request": "request-content"}
_TIME_OF_DAY = re.compile(r"%-?[HIMSpfXcTrRsLlkPZ]")
_DAY = re.compile(r"%-?[dejaAuwxDFUVW]")  # day-level; month or year alone changes rarely


@dataclass(frozen=True)
class Signal:
    id: str
    cls: str
    frequency: str
    names: tuple[str, ...] = ()
    calls: tuple[str, ...] = ()
    samples: tuple[re.Pattern, ...] = ()
    generate: str = "text"
    #: Phrases matched against a name's words, each a tuple of lower-case words.
    words: tuple[tuple[str, ...], ...] = ()

    def matches_name(self, lowered: str) -> bool:
        if lowered in _exact(self.names):
            return True
        globs = _globs(self.names)
        return globs is not None and globs.fullmatch(lowered) is not None

    def phrase_at(self, words: tuple[str, ...], head: bool, size: int | None = None) -> bool:
        """Whether one of the signal's phrases (of `size` words, any size when None) ends `words`
        (head) or occurs anywhere in them."""
        for phrase in self.words:
            if size is not None and len(phrase) != size:
                continue
            size_ = len(phrase)
            if head:
                if words[-size_:] == phrase:
                    return True
            elif any(words[i : i + size_] == phrase for i in range(len(words) - size_ + 1)):
                return True
        return False


@dataclass(frozen=True)
class Catalog:
    classes: dict[str, dict[str, str]]
    frequencies: dict[str, str]
    signals: tuple[Signal, ...]

    def rule_for(self, cls: str) -> str:
        return self.classes[cls]["rule"]

    def describe(self, cls: str, frequency: str) -> str:
        return f"{self.classes[cls]['describe']}, {self.frequencies.get(frequency, frequency)}"

    def extended(self, extra: Iterable[dict], source: str = "configuration") -> "Catalog":
        signals = tuple(_signal(item, source) for item in extra)
        for signal in signals:  # checked when the configuration is read; this guards other callers
            if signal.cls not in self.classes or signal.frequency not in self.frequencies:
                raise PrefixlintError(f"volatility signal {signal.id!r}: unknown class {signal.cls!r} or"
                                      f" frequency {signal.frequency!r}", path=source)
        return Catalog(self.classes, self.frequencies, signals + self.signals)


@dataclass(frozen=True)
class Volatility:
    """What the catalog says about one variable or function."""

    name: str
    is_call: bool
    cls: str | None  # None: stable
    frequency: str  # per_request | per_user | per_day | per_deployment | stable
    signal: str | None
    generate: str = "text"

    @property
    def volatile(self) -> bool:
        return self.cls is not None and self.frequency in VOLATILE_FREQUENCIES


@lru_cache(maxsize=None)
def _exact(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(n for n in names if "*" not in n and "?" not in n)


@lru_cache(maxsize=None)
def _globs(names: tuple[str, ...]) -> re.Pattern | None:
    """One regular expression for a signal's shell-style globs (only `*` and `?` are special)."""
    globs = [re.escape(n).replace(r"\*", ".*").replace(r"\?", ".") for n in names if "*" in n or "?" in n]
    return re.compile("|".join(globs)) if globs else None


def _signal(item: dict, source: str) -> Signal:
    try:
        return Signal(
            id=str(item["id"]), cls=str(item["class"]), frequency=str(item["frequency"]),
            names=tuple(n.lower() for n in item.get("names", ())), calls=tuple(item.get("calls", ())),
            samples=tuple(_pattern(p, source) for p in item.get("samples", ())), generate=item.get("generate", "text"),
            words=tuple(tuple(name_words(str(w))) for w in item.get("words", ())),
        )
    except (KeyError, TypeError, AttributeError, re.error, ValueError) as exc:
        raise PrefixlintError(f"malformed volatility signal {item!r}: {exc}", path=source) from None


def _pattern(pattern: str, source: str):
    """The built-in catalog's patterns are ours (`re`); a configuration's are time-bounded."""
    if source == BUILTIN_SOURCE:
        return re.compile(pattern)
    from prefixlint.limits import user_pattern

    return user_pattern(pattern)


BUILTIN_SOURCE = "rules/signals.yaml"


@lru_cache(maxsize=1)
def builtin_catalog() -> Catalog:
    from prefixlint.load.shipped_yaml import shipped_values
    from prefixlint.package_data import package_dir

    text = package_dir("prefixlint.catalog").joinpath("signals.yaml").read_text(encoding="utf-8")
    data = shipped_values({BUILTIN_SOURCE: text})[BUILTIN_SOURCE]
    return Catalog(data["classes"], data["frequencies"], tuple(_signal(s, BUILTIN_SOURCE) for s in data["signals"]))


def load_catalog_extension(value: Any) -> list[dict]:
    """`extend_volatile` from the configuration: a list of signals, or a path to a YAML file of them."""
    if not value:
        return []
    if isinstance(value, (str, bytes)) or hasattr(value, "read_text"):
        from pathlib import Path

        from prefixlint.load.yaml_source import load_yaml

        path = Path(value)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise PrefixlintError(f"cannot read the volatility signals: {exc}", path=str(path)) from None
        data = load_yaml(text, str(path))
        value = data.get("signals", data) if isinstance(data, dict) else data
    if isinstance(value, dict):
        value = [value]
    return list(value)


_WORD_SPLIT = re.compile(r"[^A-Za-z0-9]+")
_CAMEL = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def name_words(name: str) -> list[str]:
    """The words of a name: `customer.firstName` -> [customer, first, name], `top_k` -> [top, k],
    `HTTPServer` -> [http, server], `state['date']` -> [state, date]."""
    return [w.lower() for part in _WORD_SPLIT.split(name) for w in _CAMEL.findall(part)]


#: Words that open a name for a bound on something (`max_search_queries`, `minScore`): a limit;
#: or for how many of something there are to be (`num_questions`, `number_of_results`, `n_ideas`):
#: a size the deployment sets, not a count that runs.
_BOUNDS = frozenset({"max", "min", "maximum", "minimum", "num", "number", "n"})


def _bound(catalog: Catalog, words: list[str]) -> Signal | None:
    """A deployment constant's signal for a name opening with a bound or a size (`max_docs`,
    `num_questions`): a limit on what it names, set by the deployment, before its words count."""
    if len(words) > 1 and words[0] in _BOUNDS:
        return next((s for s in catalog.signals if s.frequency == "per_deployment" and s.words and not s.calls), None)
    return None


def _by_words(catalog: Catalog, words: tuple[str, ...], calls: bool) -> Signal | None:
    """The signal whose phrases a name's words hold: of the call signals for a function (its
    last word), of the others for a variable (the head word first, then anywhere)."""
    if not words:
        return None
    if calls:
        return next((s for s in catalog.signals if s.calls and s.words and s.phrase_at(words[-1:], True)), None)
    signals = [s for s in catalog.signals if s.words and not s.calls]
    head = next((s for size in (3, 2, 1) for s in signals if s.phrase_at(words, True, size)), None)
    return head or next((s for s in signals if s.phrase_at(words, False)), None)


def strftime_frequency(fmt: str) -> str:
    if _TIME_OF_DAY.search(fmt):
        return "per_request"
    if _DAY.search(fmt):
        return "per_day"
    return "per_deployment"


def classify_call(catalog: Catalog, name: str, args: Iterable[str] = ()) -> Volatility:
    lowered = name.lower()
    found = next((s for s in catalog.signals if lowered in _lower_calls(s.calls)), None)
    if found is None:
        found = _by_words(catalog, tuple(name_words(name)), calls=True)
    if found is None:
        return Volatility(name, True, None, "stable", None)
    frequency = found.frequency
    if frequency == "strftime_format":
        frequencies = [strftime_frequency(a) for a in args] or ["per_request"]
        frequency = min(frequencies, key=_rank)
    return Volatility(name, True, found.cls, frequency, found.id, found.generate)


@lru_cache(maxsize=None)
def _lower_calls(calls: tuple[str, ...]) -> frozenset[str]:
    return frozenset(c.lower() for c in calls)


def classify_variable(catalog: Catalog, name: str, kind: str | None, samples: Iterable[Any] = ()) -> Volatility:
    if kind == "stable":
        return Volatility(name, False, None, "stable", None)
    if kind == "conversation":  # earlier turns: the same in the next request, plus new ones at the end
        return Volatility(name, False, None, "stable", "conversation-slot")
    if kind == "appended":  # the same written into a text, by what fills it (`fill_sites.conversation_fill`)
        return Volatility(name, False, "request-content", "per_request", "conversation-text", "conversation")
    lowered = name.lower()
    found = _bound(catalog, name_words(name)) or next((s for s in catalog.signals if s.matches_name(lowered)), None)
    if found is None:
        found = _by_words(catalog, tuple(name_words(name)), calls=False)
    if found is not None and found.frequency == "per_deployment" and kind is None:
        return Volatility(name, False, None, "per_deployment", found.id)
    if found is not None and found.frequency == "per_deployment" and kind in KIND_DEFAULT_CLASS:
        found = None  # named like a constant, filled with a changing value: the fill decides
    if found is None:
        texts = [str(v).strip() for v in samples if isinstance(v, (str, int, float))]
        found = next((s for s in catalog.signals if any(p.search(t) for p in s.samples for t in texts)), None)
    if found is not None:
        frequency = kind or (found.frequency if found.frequency != "strftime_format" else "per_request")
        return Volatility(name, False, found.cls, frequency, found.id, found.generate)
    if kind in KIND_DEFAULT_CLASS:
        cls = KIND_DEFAULT_CLASS[kind]
        generate = {"timestamp": "iso_date", "user-data": "person_name"}.get(cls, "paragraph")
        return Volatility(name, False, cls, kind, None, generate)
    return Volatility(name, False, None, "stable", None)


def _rank(frequency: str) -> int:
    order = ("per_request", "per_user", "per_day", "per_deployment")
    return order.index(frequency) if frequency in order else len(order)
