"""Suppression comments in template source: drop the findings they cover, report unused ones.

    prompt: "Today is {{ today }}"   # prefixlint: disable-line PFX001
    Today is {{ today }}. {# prefixlint: disable PFX001 -- the date is the point here #}
    {# prefixlint: disable-file PFX002, PFX003 #}
    # prefixlint: disable-file

`disable-line` and `disable` cover the line they are written on; `disable-file` covers the
whole file wherever it is written. Any comment form works in any file: a YAML or Python
comment (`#`), a TypeScript/JavaScript comment (`//`), a Jinja comment (`{# ... #}`, also
`{#- ... -#}`) or a Handlebars/Mustache comment (`{{! ... }}`, `{{!-- ... --}}`, for Dotprompt,
Prompty's Mustache variant, LangChain mustache and Semantic Kernel handlebars templates). No code means every code. A
directive on a line of its own covers only that (empty) line, never the file: write
`disable-file` for that. Inside a YAML block scalar (`content: |`) a `#` line is prompt text,
not a comment: use the Jinja form there, which the renderer drops. A suppression that
suppresses nothing is reported as PFX000 `unused-suppression`.

ruff's habit works too, in the same comment forms and in Markdown's `<!-- ... -->`:
`# noqa: PFX001, PFX002` covers those codes on its line, a bare `# noqa` every code. Codes of
other tools in the same comment (`# noqa: E501, PFX001`) are left to those tools, and a noqa
naming no PFX code is not prefixlint's; a bare `# noqa` is shared with every other linter, so
only a noqa naming PFX codes is ever reported as unused. In program source, a line directive
on the closing line of a multi-line string covers the whole string (ruff's rule for noqa):
`ranges` are (first line, closing line) of each prompt literal.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Callable, Sequence

from prefixlint.errors import PrefixlintError
from prefixlint.results import Finding

DIRECTIVE = re.compile(
    r"""
    (?P<comment> \{\#[-+]? | \{\{!(?:--)? | <!-- | \# | // )  # Jinja `{#`, Handlebars `{{!`, Markdown, `#`, JS `//`,
    [ \t]* prefixlint [ \t]* : [ \t]*     # naming the tool,
    (?P<scope> disable-file | disable-line | disable ) (?![\w-]) :?  # the scope, a whole word,
    (?P<codes> [^\n]*? )                 # codes, comma- or space-separated (none = all codes),
    (?: [ \t] -- (?P<reason> [^\n]*? ) )? # an optional reason after ` --`,
    [ \t]* (?: [-+]?\#\} | (?:--)?\}\} | --> | $ )  # up to the end of the comment or of the line.
    """,
    re.VERBOSE | re.MULTILINE,
)
#: ruff's noqa comment, bare or with codes (`noqa: E501, F401`), in any of the comment forms above.
NOQA = re.compile(
    r"""
    (?P<comment> \{\#[-+]? | \{\{!(?:--)? | <!-- | \# | // ) [ \t]*
    (?i: noqa ) (?![\w-])
    (?: [ \t]* : [ \t]* (?P<codes> [A-Za-z]+[0-9]+ (?: [ \t]*,?[ \t]* [A-Za-z]+[0-9]+ )* ) )?
    """,
    re.VERBOSE | re.MULTILINE,
)
CODE = re.compile(r"PFX\d{3}")
UNUSED_CODE = "PFX000"
UNUSED_NAME = "unused-suppression"
UNUSED_SEVERITY = "warning"


@dataclass(frozen=True)
class Directive:
    line: int  # 1-based
    column: int  # 1-based, of the comment's first character
    scope: str  # "line" or "file"
    codes: tuple[str, ...]  # empty: every code
    text: str  # the directive as written
    alone: bool = False  # nothing else on its line
    noqa: bool = False  # ruff's form; a bare one is never reported as unused

    def covers(self, finding: Finding, line: int | None = None) -> bool:
        """Whether this directive hides `finding`, taken to be on `line` (default: its own)."""
        if self.scope == "line" and (finding.line if line is None else line) != self.line:
            return False
        if not self.codes:
            return finding.code != UNUSED_CODE  # a bare directive cannot hide its own report
        return finding.code in self.codes


@dataclass(frozen=True)
class Suppressions:
    directives: tuple[Directive, ...] = ()
    #: (first line, closing line) of each multi-line string in program source: a line
    #: directive on the closing line covers the string's lines.
    ranges: tuple[tuple[int, int], ...] = ()
    #: Directive indexes by line (file directives under 0), so apply() is linear in the findings.
    _by_line: dict[int, list[int]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for index, item in enumerate(self.directives):
            self._by_line.setdefault(0 if item.scope == "file" else item.line, []).append(index)

    @classmethod
    def parse(cls, source_text: str, path: str | None = None) -> "Suppressions":
        """Every directive in the text; a malformed code list is a PrefixlintError at its line."""
        directives = []
        newlines: list[int] | None = None  # offsets of "\n", found once, when a directive exists
        for match in DIRECTIVE.finditer(source_text):
            if newlines is None:
                newlines = [found.start() for found in re.finditer("\n", source_text)]
            start = match.start()
            line = bisect.bisect_left(newlines, start) + 1
            line_start = newlines[line - 2] + 1 if line > 1 else 0
            column = start - line_start + 1
            line_end = newlines[line - 1] if line - 1 < len(newlines) else len(source_text)
            rest_of_line = source_text[line_start:start] + source_text[match.end():line_end]
            codes = []
            for item in re.finditer(r"[^\s,]+", match.group("codes")):
                if not CODE.fullmatch(item.group()):
                    from prefixlint.rules.catalog import did_you_mean

                    raise PrefixlintError(
                        f"malformed suppression comment: {item.group()!r} is not a rule code{did_you_mean(item.group())}",
                        path=path, line=line, column=column + item.start() + match.start("codes") - start,
                        hint="write codes like PFX001, separated by commas; put a reason after ' -- '",
                    )
                codes.append(item.group())
            directives.append(Directive(
                line=line, column=column, scope="file" if match.group("scope") == "disable-file" else "line",
                codes=tuple(dict.fromkeys(codes)), text=match.group().strip(),
                alone=not rest_of_line.strip(),
            ))
        for match in NOQA.finditer(source_text):
            for item in re.finditer(r"[^\s,]+", match.group("codes") or ""):
                if item.group().upper().startswith("PFX") and not CODE.fullmatch(item.group().upper()):
                    from prefixlint.rules.catalog import did_you_mean

                    newlines = newlines if newlines is not None else [m.start() for m in re.finditer("\n", source_text)]
                    at = match.start("codes") + item.start()
                    line = bisect.bisect_left(newlines, at) + 1
                    raise PrefixlintError(  # meant for prefixlint, so not another tool's: not ignored
                        f"malformed noqa comment: {item.group()!r} is not a rule code{did_you_mean(item.group())}",
                        path=path, line=line, column=at - (newlines[line - 2] + 1 if line > 1 else 0) + 1,
                        hint="write codes like PFX001, separated by commas",
                    )
            named = re.findall(r"[A-Za-z]+[0-9]+", match.group("codes") or "")
            noqa_codes = tuple(dict.fromkeys(code.upper() for code in named if CODE.fullmatch(code.upper())))
            if named and not noqa_codes:
                continue  # another tool's noqa
            newlines = newlines if newlines is not None else [m.start() for m in re.finditer("\n", source_text)]
            start = match.start()
            line = bisect.bisect_left(newlines, start) + 1
            line_start = newlines[line - 2] + 1 if line > 1 else 0
            line_end = newlines[line - 1] if line - 1 < len(newlines) else len(source_text)
            rest_of_line = source_text[line_start:start] + source_text[match.end():line_end]
            directives.append(Directive(
                line=line, column=start - line_start + 1, scope="line", codes=noqa_codes, text=match.group().strip(),
                alone=not rest_of_line.strip(" \t#}!-/>"), noqa=True,
            ))
        directives.sort(key=lambda d: (d.line, d.column))
        return cls(tuple(directives))

    def spanning(self, ranges) -> "Suppressions":
        """These directives, with multi-line strings' (first line, closing line) ranges."""
        return Suppressions(self.directives, tuple((a, b) for a, b in ranges if b > a))

    def apply(
        self, findings: list[Finding], path: str, *, enabled: Callable[[str], bool] | None = None,
        elsewhere: Sequence[Finding] = (),
    ) -> tuple[list[Finding], list[Finding]]:
        """(the findings no directive covers, a PFX000 finding for each directive that covers none).

        `elsewhere` are findings in another file that this file's checks brought in (the chat
        template its messages are rendered with): only `disable-file` covers them; those kept
        come after the others in the first list.

        `enabled(code)` (e.g. `Config.is_enabled`) keeps codes of rules that did not run from
        being reported as unused, and turns PFX000 off when it is not enabled itself.
        """
        used: list[set[str]] = [set() for _ in self.directives]
        kept = []
        for finding, same_file in [(f, True) for f in findings] + [(f, False) for f in elsewhere]:
            covering = self._covering(finding, same_file)
            for index in covering:
                used[index].add(finding.code)
            if not covering:
                kept.append(finding)
        if enabled is not None and not enabled(UNUSED_CODE):
            return kept, []
        unused = []
        for directive, codes in zip(self.directives, used):
            report = self._unused_report(directive, codes, path, enabled)
            if report is not None and not self._covering(report):
                unused.append(report)
        return kept, sorted(unused, key=Finding.sort_key)

    def _covering(self, finding: Finding, same_file: bool = True) -> list[int]:
        """The indexes of the directives that cover `finding`. A finding in another file (the
        chat template a chat file is rendered with) is covered by `disable-file` only."""
        candidates = self._by_line.get(0, []) + (self._by_line.get(finding.line, []) if same_file else [])
        found = [index for index in candidates if self.directives[index].covers(finding)]
        if same_file:
            for first, closing in self.ranges:
                if first <= finding.line < closing:
                    found += [index for index in self._by_line.get(closing, [])
                              if self.directives[index].covers(finding, closing) and index not in found]
        return found

    @staticmethod
    def _unused_report(
        directive: Directive, used: set[str], path: str, enabled: Callable[[str], bool] | None
    ) -> Finding | None:
        where = "in this file" if directive.scope == "file" else "on this line"
        if not directive.codes:
            if used or directive.noqa:
                return None
            message = f"unused suppression: no finding {where} to suppress"
        else:
            unused = [
                code for code in directive.codes
                if code not in used and code != UNUSED_CODE and (enabled is None or enabled(code))
            ]
            if not unused:
                return None
            message = f"unused suppression: no {' or '.join(unused)} finding {where}"
        if directive.alone and directive.scope == "line":
            message += " (a directive on a line of its own covers only that line; use disable-file for the file)"
        return Finding(
            path=path, line=directive.line, column=directive.column, code=UNUSED_CODE,
            name=UNUSED_NAME, severity=UNUSED_SEVERITY, message=message,
            extra={"directive": directive.text},
        )


def literal_ranges(template) -> list[tuple[int, int]]:
    """(first line, closing line) of each prompt literal in program source, where a comment
    after the closing quote covers the whole string (ruff's rule for noqa)."""
    from prefixlint.load.registry import loader_for

    if not loader_for(template.format).program_source:
        return []
    return [(template.position(m.file_offset(0))[0], template.position(m.file_offset(len(m.content)))[0])
            for m in template.messages if m.content]
