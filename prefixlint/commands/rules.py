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
@click.argument("code", required=False)
@click.option("--all", "every", is_flag=True, default=False, help="Print every rule's documentation.")
@format_option("text", "json")
def rule(code, every, output_format):
    """Print one rule's documentation as Markdown (what it does, why it is bad, an example, what
    to use instead, its options and references), or every rule's with --all."""
    import json

    from prefixlint.errors import PrefixlintError
    from prefixlint.rules.catalog import load_catalog

    catalog = load_catalog()
    if every:
        chosen = list(catalog.values())
    elif code is None:
        raise click.UsageError("give a rule code or name (PFX001, timestamp-before-stable), or --all")
    else:
        found = catalog.get(code.upper()) or next((r for r in catalog.values() if r.name == code.lower()), None)
        if found is None:
            import difflib

            close = difflib.get_close_matches(code.upper(), list(catalog), n=1) or difflib.get_close_matches(
                code.lower(), [r.name for r in catalog.values()], n=1)
            hint = f"did you mean {close[0]}? `prefixlint rules` lists them" if close else "`prefixlint rules` lists them"
            raise PrefixlintError(f"unknown rule {code!r}", hint=hint)
        chosen = [found]
    if output_format == "json":
        data = [_as_dict(r) for r in chosen]
        click.echo(json.dumps(data if every else data[0], indent=2, ensure_ascii=False))
        return
    click.echo("\n\n".join(markdown(r) for r in chosen))


def _references(found) -> list[str]:
    from prefixlint import REPOSITORY, __version__

    return [f"- The rule's file, with its pass/fail cases: {REPOSITORY}/blob/v{__version__}/rules/{found.code}.yaml",
            f"- How a finding is measured: {REPOSITORY}/blob/v{__version__}/docs/check.md#how-a-finding-is-measured",
            f"- Suppressing it: `# noqa: {found.code}` or `# prefixlint: disable-line {found.code}`"
            f" ({REPOSITORY}/blob/v{__version__}/docs/configuration.md#suppression-comments)"]


def _fenced(text: str) -> list[str]:
    """An example as a fenced block, in the language it is written in (YAML, else text)."""
    body = text.rstrip("\n")
    if body.lstrip().startswith("```"):
        return [body]
    language = "text"
    try:
        import yaml

        if isinstance(yaml.safe_load(body), (dict, list)):
            language = "yaml"
    except Exception:
        pass
    return [f"```{language}", body, "```"]


def markdown(found) -> str:
    """`# name (CODE)`, the metadata, the four parts (examples fenced), options, references."""
    from prefixlint.rules.catalog import HEADINGS

    lines = [f"# {found.name} ({found.code})", "", f"Default severity: {found.severity}. "
             + FIX_AVAILABILITY[found.fix], "", found.summary.strip(), ""]
    for part, heading in HEADINGS.items():
        text = found.docs[part].rstrip()
        lines += [f"## {heading}", "", *(_fenced(text) if part in ("example", "use_instead") else [text]), ""]
    if found.options:
        lines += ["## Options", ""] + [f"- {key}: {_option(value)}" for key, value in found.options.items()] + [""]
    lines += ["## References", "", *_references(found)]
    return "\n".join(lines).rstrip()


def _as_dict(found) -> dict:
    from prefixlint import REPOSITORY, __version__

    return {"code": found.code, "name": found.name, "severity": found.severity, "summary": found.summary.strip(),
            "fix": found.fix, "docs": {part: text.rstrip() for part, text in found.docs.items()},
            "options": found.options, "url": f"{REPOSITORY}/blob/v{__version__}/rules/{found.code}.yaml"}


def _option(value) -> str:
    """An option's value as a reader writes it: `a = 1, b = 2` for a table, `x, y` for a list."""
    if isinstance(value, dict):
        return ", ".join(f"{key} = {_option(item)}" for key, item in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(map(_option, value))
    return str(value)
