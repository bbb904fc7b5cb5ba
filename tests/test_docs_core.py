"""docs/core.md cannot drift from the code: its engine table is engines.toml, row for row."""

from __future__ import annotations

from pathlib import Path

from prefixlint.engines.profiles import all_profiles

DOC = Path(__file__).resolve().parent.parent / "docs" / "core.md"
START, END = "<!-- engine-profiles: start -->", "<!-- engine-profiles: end -->"


def engine_table() -> str:
    """The table as docs/core.md must show it (run this module to print it)."""
    rows = [
        "| profile | unit (tokens) | only whole units | last prompt token recomputed | minimum | step above it"
        " | `--block-size` | verified | notes |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for p in all_profiles().values():
        unit = f"{p.unit}" + (" (power of two)" if p.power_of_two else "")
        rows.append(
            f"| `{p.name}` | {unit} | {'yes' if p.whole_units_only else 'no (partial reuse)'}"
            f" | {'yes' if p.last_token_recomputed else 'no'} | {p.min_tokens or '-'} | {p.increment or '-'}"
            f" | {'yes' if p.block_size_option else 'no'} | {'yes' if p.verified else 'UNVERIFIED'}"
            f" | {p.notes or '-'} |"
        )
    return "\n".join(rows)


def test_the_engine_table_in_docs_core_md_is_engines_toml():
    text = DOC.read_text(encoding="utf-8")
    shown = text[text.index(START) + len(START): text.index(END)].strip()
    assert shown == engine_table(), "regenerate with: python -m tests.test_docs_core"


if __name__ == "__main__":
    print(engine_table())
