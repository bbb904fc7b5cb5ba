"""How the commands print a share: one percentage formatter for every output."""

from __future__ import annotations


def percent(part: int, whole: int, *, bare_ends: bool = False) -> str:
    """`part` of `whole` with one decimal (`27.4%`; `0.0%` of nothing). With `bare_ends`, none
    and all of it print without the decimal (`0%`, `100%`), as `check`'s findings and summary
    lines have always printed them."""
    if bare_ends and (not whole or not part):
        return "0%"
    if bare_ends and part == whole:
        return "100%"
    return f"{100 * part / whole:.1f}%" if whole else "0.0%"
