"""The one registry of the rules' code: a rule file's `check:` name -> the function that implements it.

Every rule of the catalog (rules/PFX*.yaml) with a check names one of these; a test checks that
the catalog and this table agree both ways. PFX000 has no check: the suppressions report it.
A check takes the rule and the file's `Measured` data and yields findings; a check that does not
apply to the data (a file's volatile values, or a chat template's detections) yields none.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

from prefixlint.results import Finding
from prefixlint.rules.catalog import Rule, load_catalog
from prefixlint.rules.chat_template_check import (
    chat_template_injects_date,
    chat_template_retokenizes_history,
    chat_template_rewrites_history,
)
from prefixlint.rules.checks import boundary_merge, stable_prefix_below_minimum, volatile_before_stable
from prefixlint.rules.measured import Measured
from prefixlint.rules.schema_order import unstable_schema_order

Check = Callable[[Rule, Measured], Iterable[Finding]]

CHECKS: dict[str, Check] = {check.__name__: check for check in (
    volatile_before_stable, boundary_merge, stable_prefix_below_minimum,
    chat_template_injects_date, chat_template_rewrites_history, chat_template_retokenizes_history,
    unstable_schema_order,
)}

#: The checks of the served chat template itself, run once per template and tokenizer
#: (`prefixlint.check.chat_template_runs`) rather than per file.
CHAT_TEMPLATE_CHECKS = frozenset({
    chat_template_injects_date.__name__, chat_template_rewrites_history.__name__,
    chat_template_retokenizes_history.__name__,
})
#: The check whose findings move a value after the stable content (what `--fix` writes).
MOVING_CHECK = volatile_before_stable.__name__


def codes_checked_by(checks: Iterable[str]) -> tuple[str, ...]:
    """The catalog's codes whose rule names one of `checks`, in code order."""
    wanted = set(checks)
    return tuple(sorted(code for code, rule in load_catalog().items() if rule.check in wanted))


def __getattr__(name: str):
    """`CHAT_TEMPLATE_CODES` (PFX101, PFX102 ...) and `MOVING_CODES` (PFX001-PFX005), derived
    from the catalog when first asked for (reading it costs a YAML parse: not at import)."""
    if name == "CHAT_TEMPLATE_CODES":
        return codes_checked_by(CHAT_TEMPLATE_CHECKS)
    if name == "MOVING_CODES":
        return frozenset(codes_checked_by({MOVING_CHECK}))
    raise AttributeError(name)


def check_for(rule: Rule) -> Check:
    """The function a rule file names in `check:`."""
    try:
        return CHECKS[rule.check]
    except KeyError:
        raise LookupError(f"{rule.source}: no check function named {rule.check!r}") from None


def run_checks(data: Measured, enabled: Callable[[str], bool] | None = None) -> Iterator[Finding]:
    """The findings of every rule with a check that `enabled` lets through (None: every rule)."""
    for rule in load_catalog().values():
        if rule.check and (enabled is None or enabled(rule.code)):
            yield from check_for(rule)(rule, data)
