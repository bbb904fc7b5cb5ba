"""The fixed texts of a file holding many prompts, loaded once for all of them (issue 19 item 9).

Every fix is verified on its fixed text loaded again (`prefixlint.fix.attach`). Loading a
module of n prompts once per prompt costs n times the module: quadratic. Here the prompts of a
file first plan their fixes (`Planned`: the edit sets their fixes and combinations will ask
for, in that order), then each round of plans (every prompt's first fix, every prompt's second
...) is written into the file at once and that one text is loaded. A prompt's fixed template is
taken from that load and mapped back to the file with only its own edits (its offsets and
lines shifted past the other prompts' edits): O(its size). The load of the combined text is
used for a prompt only when nothing of the prompt as loaded comes from, or was cut by, another
prompt's edit and its variables are those of the original; otherwise, and for any text no plan
named, the prompt's own fixed text is loaded whole, as before. A fix that fails verification on
its template is still not offered: the template it is verified on is the one the file's loader
reads from the fixed text.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, fields, replace
from itertools import accumulate
from typing import TYPE_CHECKING, Callable

from prefixlint.fix.edits import Edit, EditedLineStarts, apply_edits
from prefixlint.load.template import Message, Template

if TYPE_CHECKING:
    from prefixlint.load.source_prompts import SourceTemplate


def _source_template() -> type[SourceTemplate]:
    """`SourceTemplate` (a prompt in program source), imported only once a file holds one: with
    `Template`, the templates whose offset-bearing fields the mapping knows (the other fields hold
    no offset)."""
    from prefixlint.load.source_prompts import SourceTemplate

    return SourceTemplate


@dataclass(frozen=True)
class Planned:
    """The edit sets one prompt's fixes will be verified on, in the order they are asked for."""

    edits: tuple[tuple[Edit, ...], ...] = ()


class FileReload:
    """Loads of a file's edited texts for the fixes of all its prompts (`templates`, as loaded
    from `source`, in order); `reloader(template)` is a prompt's `reload(text)`."""

    def __init__(self, path: str, source: str, templates: list, load: Callable[[str, str], list]) -> None:
        self.path, self.source, self.templates, self.load = path, source, templates, load
        self.plans: dict[int, Planned] = {}
        self.rounds: dict[int, tuple[dict[int, tuple[Edit, ...]], list | None]] = {}
        self.layouts: dict[int, _Layout] = {}
        self.texts: dict[tuple[int, int], str] = {}
        self.loads = 0  # whole loads of an edited text, combined or one prompt's (a test counts them)

    def plan(self, index: int, planned: Planned | None) -> None:
        if planned is not None:
            self.plans[index] = planned

    def reloader(self, template) -> Callable[[str], object]:
        """`reload(text)` for `template`, the prompt of the file with its messages (the first such;
        None for every text when none has them, as `fix.attach.reloader` does)."""
        index = next((i for i, t in enumerate(self.templates) if t.messages == template.messages), None)
        seen: dict[str, object] = {}  # an edited text is loaded once: the fix, its check and the combined fix

        def reload(text: str):
            if index is None:
                return None
            if text not in seen:
                if len(seen) >= 8:
                    seen.pop(next(iter(seen)))
                seen[text] = self._reload(index, text)
            return seen[text]

        return reload

    def _reload(self, index: int, text: str):
        plan = self.plans.get(index)
        for number, edits in enumerate(plan.edits if plan is not None else ()):
            if len(text) == len(self.source) + _growth(edits) and self._text(index, number) == text:
                fast = self._from_round(number, index, text)
                if fast is not None:
                    return fast
                break
        return self._alone(index, text)

    def _text(self, index: int, number: int) -> str:
        """The text with only prompt `index`'s edits of round `number`, written once."""
        key = (index, number)
        if key not in self.texts:
            self.texts[key] = apply_edits(self.source, self.plans[index].edits[number])
        return self.texts[key]

    def _alone(self, index: int, text: str):
        """Prompt `index` loaded from the whole edited text (None: it no longer loads as it)."""
        from prefixlint.errors import PrefixlintError

        self.loads += 1
        try:
            after = [t for t in self.load(self.path, text) if t.path == self.path]
        except (PrefixlintError, RecursionError, ValueError):
            return None
        return after[index] if len(after) == len(self.templates) else None

    def _round(self, number: int):
        """(the edits of each prompt in round `number`, the templates of the text with all of them)."""
        from prefixlint.errors import PrefixlintError

        if number not in self.rounds:
            taken: dict[int, tuple[Edit, ...]] = {}
            for index, plan in sorted(self.plans.items()):
                if number < len(plan.edits) and not _overlap([e for es in taken.values() for e in es], plan.edits[number]):
                    taken[index] = plan.edits[number]
            loaded = None
            if len(taken) > 1:  # one prompt alone is its own text
                self.loads += 1
                try:
                    text = apply_edits(self.source, [e for es in taken.values() for e in es])
                    loaded = [t for t in self.load(self.path, text) if t.path == self.path]
                except (PrefixlintError, RecursionError, ValueError):
                    loaded = None
                if loaded is not None and len(loaded) != len(self.templates):
                    loaded = None
            self.rounds[number] = (taken, loaded)
        return self.rounds[number]

    def _from_round(self, number: int, index: int, text: str):
        taken, loaded = self._round(number)
        if loaded is None or index not in taken:
            return None
        if number not in self.layouts:
            self.layouts[number] = _Layout(taken, self.source)
        layout = self.layouts[number]
        original, combined = self.templates[index], loaded[index]
        mapped = type(combined) is Template or type(combined) is _source_template()
        if not mapped or type(original) is not type(combined) or layout.touched(original, index):
            return None
        return _mapped(combined, _Shift(layout, index), text, original)


def _growth(edits) -> int:
    return sum(len(e.content) - (e.end - e.start) for e in edits)


def _overlap(edits, more) -> bool:
    return any(a.start < b.end and b.start < a.end or a.start == b.start for a in edits for b in more)


class _Layout:
    """The edits of one round in the original's order, where each lands in the combined text,
    and the characters and lines they add up to each (worked out once per round)."""

    def __init__(self, taken: dict[int, tuple[Edit, ...]], source: str) -> None:
        ordered = sorted((e, owner) for owner, edits in taken.items() for e in edits)
        self.edits = [e for e, _ in ordered]
        self.owners = [owner for _, owner in ordered]
        self.starts = [e.start for e in self.edits]  # in the original
        self.into: list[int] = []  # where each edit's content starts in the combined text
        self.outof: list[int] = []  # ... and ends
        self.growth: list[int] = []  # characters each adds
        self.lines: list[int] = []  # lines each adds
        self.deltas: list[int] = []  # characters all edits up to it add (cumulative)
        self.line_deltas: list[int] = []
        total = lines = 0
        for edit in self.edits:
            self.into.append(edit.start + total)
            self.outof.append(edit.start + total + len(edit.content))
            self.growth.append(len(edit.content) - (edit.end - edit.start))
            self.lines.append(edit.content.count("\n") - source.count("\n", edit.start, edit.end))
            total, lines = total + self.growth[-1], lines + self.lines[-1]
            self.deltas.append(total)
            self.line_deltas.append(lines)
        self.mine: dict[int, list[int]] = {}
        for k, owner in enumerate(self.owners):
            self.mine.setdefault(owner, []).append(k)

    def touched(self, template, index: int) -> bool:
        """Does another prompt's edit cut or insert inside the text prompt `index` was loaded from?"""
        spans = [m.offsets for m in template.messages] + [tuple(getattr(template, "placeholder_texts", {}))]
        for offsets in spans:
            if not offsets:
                continue
            ordered = list(offsets)
            low, high = (ordered[0], ordered[-1]) if ordered == sorted(ordered) else (min(offsets), max(offsets))
            covered: set[int] | None = None
            for k in range(max(bisect_left(self.starts, low) - 1, 0), bisect_right(self.starts, high)):
                edit = self.edits[k]
                if self.owners[k] == index or edit.end <= low and edit.start < low:
                    continue
                if edit.start == edit.end:
                    if low <= edit.start <= high:
                        return True
                    continue
                covered = set(offsets) if covered is None else covered
                if any(o in covered for o in range(max(edit.start, low), min(edit.end, high + 1))):
                    return True
        return False


class _Shift:
    """Offsets and lines of the combined text mapped to the text with only prompt `index`'s edits:
    the other prompts' edits of the round taken out again."""

    def __init__(self, layout: _Layout, index: int) -> None:
        self.layout, self.index, self.mine = layout, index, layout.mine.get(index, [])
        self.inside = False  # an offset mapped was a character another prompt's edit wrote
        #: what this prompt's own edits among the first i of `mine` add (characters, lines)
        self.own_growth = list(accumulate((layout.growth[j] for j in self.mine), initial=0))
        self.own_lines = list(accumulate((layout.lines[j] for j in self.mine), initial=0))

    def _others(self, k: int, cumulative: list[int], own: list[int]) -> int:
        """What the other prompts' edits among the first k add (characters or lines)."""
        return (cumulative[k - 1] if k else 0) - own[bisect_left(self.mine, k)]

    def offset(self, at: int) -> int:
        layout = self.layout
        k = bisect_right(layout.outof, at)
        if k < len(layout.into) and layout.into[k] <= at < layout.outof[k] and layout.owners[k] != self.index:
            self.inside = True
        return at - self._others(k, layout.deltas, self.own_growth)

    def offsets(self, offsets: tuple[int, ...]) -> tuple[int, ...]:
        """`offset` of each. Offsets in increasing order (a message's characters as the file holds
        them) are shifted a run at a time: the run between two edits' ends moves by one amount."""
        ordered = list(offsets)
        if ordered != sorted(ordered):
            return tuple(self.offset(o) for o in offsets)
        layout, position = self.layout, 0
        shifted: list[int] = []
        while position < len(ordered):
            k = bisect_right(layout.outof, ordered[position])  # the same k up to `end`
            end = bisect_left(ordered, layout.outof[k], position) if k < len(layout.outof) else len(ordered)
            if k < len(layout.into) and layout.owners[k] != self.index \
                    and bisect_left(ordered, layout.into[k], position, end) < end:
                self.inside = True  # a character in [into[k], outof[k]): written by another prompt's edit
            delta = self._others(k, layout.deltas, self.own_growth)
            shifted += map((-delta).__add__, ordered[position:end]) if delta else ordered[position:end]
            position = end
        return tuple(shifted)

    def line(self, number: int | None, combined_starts) -> int | None:
        if number is None or not 0 < number <= len(combined_starts):
            return number
        k = bisect_right(self.layout.outof, combined_starts[number - 1])
        return number - self._others(k, self.layout.line_deltas, self.own_lines)


def _mapped(combined, shift: _Shift, text: str, original):
    """`combined` (a template of the text with every prompt's edits) as the text with only this
    prompt's edits (`text`) holds it; None when the mapping cannot be exact."""
    from prefixlint.load.template import line_starts

    messages = tuple(Message(m.role, m.content, shift.offsets(m.offsets), shift.offset(m.start))
                     for m in combined.messages)
    own = [shift.layout.edits[k] for k in shift.mine]
    changes: dict = {"source": text, "messages": messages, "_line_starts": EditedLineStarts(original.source, own)}
    if type(combined) is not Template and isinstance(combined, _source_template()):
        changes["placeholder_texts"] = {shift.offset(k): v for k, v in combined.placeholder_texts.items()}
    if shift.inside:
        return None
    starts = line_starts(combined.source)  # cached per text: the round's one text
    variables = {name: replace(v, line=shift.line(v.line, starts)) for name, v in combined.variables.items()}
    if variables.keys() != original.variables.keys() or any(
            replace(v, line=None) != replace(original.variables[name], line=None) for name, v in variables.items()):
        return None  # what fills a value changed with the other prompts' edits: load this text alone
    changes["variables"] = variables
    assert {f.name for f in fields(combined)} >= set(changes)  # every field mapped exists
    return replace(combined, **changes)
