"""The rule catalog: one YAML file per rule under rules/, shipped as `prefixlint.catalog`.

Each file holds the rule's code, name, default severity, options, its documentation in four
parts (what it does, why is this bad, example, use instead) and pass/fail cases for the tests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from prefixlint.errors import PrefixlintError

RULE_FILE = re.compile(r"^[A-Z]{3}\d{3}\.yaml$")
#: The four parts of a rule's documentation, with the headings ruff uses, in this order.
HEADINGS = {
    "what_it_does": "What it does",
    "why_is_this_bad": "Why is this bad?",
    "example": "Example",
    "use_instead": "Use instead",
}


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str
    summary: str
    docs: dict[str, str]
    options: dict[str, Any] = field(default_factory=dict)
    cases: dict[str, Any] = field(default_factory=dict)
    source: str = ""
    #: The name of the function that implements the rule (`prefixlint.rules.registry.CHECKS`).
    check: str = ""
    #: Whether `check --fix` can fix its findings: "sometimes" or "never".
    fix: str = "never"


def did_you_mean(item: str) -> str:
    """` (did you mean 'PFX101'?)` for a code one slip away from real ones (`PFX1O1`, `PFX109`,
    `pfx001`, `PFX0001`); "" for a short prefix, which no single code answers, or nothing close."""
    import difflib

    if len(item) < 6:
        return ""
    codes, upper = rule_codes(), item.upper()
    if len(upper) == 6:  # a code's length: the codes fewest characters away (`PFX0O2`: PFX002, not PFX102)
        slips = {code: sum(a != b for a, b in zip(upper, code)) for code in codes}
        fewest = min(slips.values(), default=3)
        close = [code for code, n in slips.items() if n == fewest] if fewest <= 1 else []
    else:
        close = difflib.get_close_matches(upper, codes, n=3, cutoff=0.8)
    shown = [repr(code) for code in sorted(close)]
    if not shown:
        return ""
    return f" (did you mean {', '.join(shown[:-1]) + ' or ' if len(shown) > 1 else ''}{shown[-1]}?)"


@lru_cache(maxsize=1)
def rule_codes() -> tuple[str, ...]:
    """The codes of every rule, from the rule files' names (nothing is parsed)."""
    from prefixlint.package_data import package_dir

    names = (entry.name for entry in package_dir("prefixlint.catalog").iterdir())
    return tuple(sorted(name[:-5] for name in names if RULE_FILE.match(name)))


@lru_cache(maxsize=1)
def load_catalog() -> dict[str, Rule]:
    from prefixlint.load.shipped_yaml import shipped_values
    from prefixlint.package_data import package_dir

    rules: dict[str, Rule] = {}

    folder = package_dir("prefixlint.catalog")
    entries = sorted((item for item in folder.iterdir() if RULE_FILE.match(item.name)),  # not signals.yaml
                     key=lambda item: item.name)
    values = shipped_values({f"rules/{entry.name}": entry.read_text(encoding="utf-8") for entry in entries})
    for entry in entries:
        try:
            data = values[f"rules/{entry.name}"]
            rule = Rule(
                code=data["code"], name=data["name"], severity=data["severity"],
                summary=data["summary"], docs={part: data["docs"][part] for part in HEADINGS},
                options=data.get("options") or {}, cases=data.get("cases") or {}, source=entry.name,
                check=data.get("check", ""), fix=data.get("fix", "never"),
            )
        except (KeyError, TypeError) as exc:
            raise PrefixlintError(f"malformed rule file: {exc}", path=f"rules/{entry.name}") from None
        rules[rule.code] = rule
    return rules
