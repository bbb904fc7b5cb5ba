"""`prefixlint rules` (list every rule) and `prefixlint rule CODE` (one rule's documentation)."""

from __future__ import annotations

import click

from prefixlint.commands.options import format_option

FIX_AVAILABILITY = {
    "sometimes": "Fix is sometimes available: `check --fix` (safe) or `--unsafe-fixes` (splits a sentence).",
    "never": "Fix is not available.",
}


@click.command("rules")
@format_option("text", "json")
def rules(output_format):
    """List the rules: code, name, default severity and summary."""
    import json

    from prefixlint.rules.catalog import load_catalog

    catalog = load_catalog()
    if output_format == "json":
        click.echo(json.dumps([
            {"code": r.code, "name": r.name, "severity": r.severity, "summary": r.summary}
            for r in catalog.values()
        ], indent=2))
        return
    for r in catalog.values():
        click.echo(f"{r.code}  {r.name:<34} {r.severity:<8} {r.summary}")


@click.command("rule")
@click.argument("code")
def rule(code):
    """Print one rule's documentation: what it does, why it is bad, an example, what to use instead."""
    from prefixlint.errors import PrefixlintError
    from prefixlint.rules.catalog import HEADINGS, load_catalog

    catalog = load_catalog()
    found = catalog.get(code.upper()) or next((r for r in catalog.values() if r.name == code.lower()), None)
    if found is None:
        raise PrefixlintError(f"unknown rule {code!r}", hint="`prefixlint rules` lists them")
    lines = [f"{found.code} {found.name} ({found.severity})", "", found.summary.strip(), ""]
    lines += [FIX_AVAILABILITY[found.fix], ""]
    for part, heading in HEADINGS.items():
        lines += [f"## {heading}", "", found.docs[part].rstrip(), ""]
    if found.options:
        lines += ["## Options", ""] + [f"- {key}: {_option(value)}" for key, value in found.options.items()] + [""]
    click.echo("\n".join(lines).rstrip())


def _option(value) -> str:
    """An option's value as a reader writes it: `a = 1, b = 2` for a table, `x, y` for a list."""
    if isinstance(value, dict):
        return ", ".join(f"{key} = {_option(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(map(_option, value))
    return str(value)
