"""`prefixlint report`: reuse of each template at a git base and now, as a pull-request comment."""

from __future__ import annotations

import os

import click

from prefixlint.commands.options import Choice, allow_outside_paths_option, tokenizer_options

FAIL_ON_HELP = (
    "When to exit 1: `findings` (findings the change introduces), `drop:N` (a changed template's"
    " reusable share after rounding fell by more than N percentage points), `none`;"
    " comma-separated to combine."
)


def parse_fail_on(value: str) -> tuple[bool, float | None]:
    """`findings,drop:5` -> (fail on new findings, fail above this drop in points)."""
    on_findings, drop = False, None
    for part in filter(None, (item.strip().lower() for item in value.split(","))):
        if part == "findings":
            on_findings = True
        elif part == "none":
            continue
        elif part.startswith("drop:"):
            try:
                drop = float(part[5:])
            except ValueError:
                drop = -1.0
            if drop < 0:
                raise click.BadParameter(f"{part!r}: N in drop:N is a number of percentage points, 0 or more")
        else:
            raise click.BadParameter(f"{part!r}: use findings, drop:N or none")
    return on_findings, drop


@click.command()
@click.argument("paths", nargs=-1, metavar="[PATHS]...")
@click.option("--base", "base_ref", required=True, metavar="REF",
              help="The git revision to compare with: a branch, tag or commit (the pull request's base).")
@tokenizer_options(default=None)
@click.option("--engine", "-e", metavar="NAME", default=None,
              help="Engine profile (default vllm, or the configuration's `engine`).")
@click.option("--block-size", type=int, default=None, metavar="N",
              help="Override the engine's cache block (page, chunk) size in tokens.")
@click.option("--fail-on", default="findings", show_default=True, metavar="WHEN", help=FAIL_ON_HELP)
@click.option("--post", is_flag=True, default=False,
              help="Create or update the one pull-request comment (GITHUB_TOKEN, GITHUB_API_URL, GITHUB_EVENT_PATH).")
@click.option("--repo", "repository", metavar="OWNER/NAME", default=None,
              help="Repository to post to (default: GITHUB_REPOSITORY).")
@click.option("--pr", "pr_number", type=int, metavar="NUMBER", default=None,
              help="Pull request to post to (default: from the event payload).")
@click.option("--output-format", "--format", "output_format", type=Choice(["markdown", "json"]), default="markdown",
              show_default=True, help="Markdown for the comment, or JSON for bots (the comment is Markdown).")
@click.option("--page-url", metavar="URL", default=None,
              help="Link the HTML page of the reuse (`check --format html`, e.g. an artifact's URL) from the comment.")
@allow_outside_paths_option
@click.option("--annotate/--no-annotate", default=None,
              help="Also print a workflow command per new finding (default: when GITHUB_ACTIONS=true).")
@click.option("--price", metavar="COMPUTED[/CACHED]", default=None,
              help="Dollars per million input tokens computed, and per million reused from the cache (default 0):"
              " adds the cost per 1,000 requests (default: the configuration's `price`).")
@click.option("--suggest", is_flag=True, default=False,
              help="Add the fix (`check --fix`) of each template whose reuse fell to the comment, as a diff.")
def report(paths, base_ref, tokenizer, offline, engine, block_size, fail_on, post, repository, pr_number,
           output_format, page_url, allow_outside_paths, annotate, price, suggest):
    """Measure each template at git revision REF and in the working tree, and write Markdown for a
    pull-request comment: tokens and reusable share before and after the engine's block
    rounding, at the base and now, and the findings the change introduces. Appended to
    $GITHUB_STEP_SUMMARY when it is set.

    \b
    Exit status: 0, or 1 when --fail-on is met, 2 when a template or the revision cannot be read.

    \b
    Example:
      prefixlint report prompts/ --base origin/main
      prefixlint report --base "$BASE_SHA" --post --fail-on findings,drop:10
    """
    from dataclasses import replace

    from prefixlint.prreport import markdown
    from prefixlint.prreport.rows import build_rows, link_for_environment, new_findings
    from prefixlint.report.github import is_github_actions, to_github

    fail_on_findings, max_drop = parse_fail_on(fail_on)
    prices = _price(price)
    rows, setup = build_rows(paths or (".",), base_ref, tokenizer, offline, engine, block_size, suggest)
    setup = replace(setup, link=link_for_environment(), price=prices)
    body = markdown.to_markdown(rows, setup)
    if page_url:
        body += f"\n[The reuse, token by token]({page_url}): every template's tokens, blocks and where reuse stops.\n"
    if output_format == "json":
        from prefixlint.prreport.json_report import to_json

        click.echo(to_json(rows, setup))
    else:
        click.echo(body, nl=False)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as handle:
            handle.write(body + "\n")
    introduced = new_findings(rows)
    if annotate is None:
        annotate = is_github_actions()
    if annotate and introduced and output_format == "markdown":
        # On stderr: the runner reads workflow commands there too, and stdout stays the Markdown.
        click.echo(to_github(introduced), err=True)
    if post:  # no comment for a change that touches no template; an existing one says so
        _post(body, repository, pr_number, create=any(row.status != "unchanged" for row in rows))
    errors = [row.now.error for row in rows if row.now and row.now.error]
    for error in errors:
        click.echo(f"prefixlint: error: {error}", err=True)
    if errors:
        raise click.exceptions.Exit(2)
    dropped = max_drop is not None and any(row.drop() > max_drop for row in rows if row.status != "unchanged")
    if (fail_on_findings and introduced) or dropped:
        raise click.exceptions.Exit(1)


def _price(given: str | None) -> tuple[float, float] | None:
    """--price, else the configuration's `price` (of the working directory)."""
    from pathlib import Path

    from prefixlint.config import load_config
    from prefixlint.config_keys import ConfigValueError, price
    from prefixlint.errors import PrefixlintError

    if given is None:
        return load_config(Path.cwd()).price
    try:
        return price(given)
    except ConfigValueError as exc:
        raise PrefixlintError(f"--price: {exc.message}") from None


def _post(body: str, repository: str | None, number: int | None, create: bool = True) -> None:
    from prefixlint.prreport.github_comment import (
        GitHubError,
        api_from_environment,
        find_pull_request,
        upsert_comment,
    )

    pr = find_pull_request(repository, number)
    try:
        action, comment = upsert_comment(api_from_environment(), pr, body, create=create)
    except GitHubError as exc:
        if exc.status != 403:
            raise
        # A pull request from a fork gets a read-only token: say so, keep the job's verdict.
        click.echo(f"prefixlint: warning: could not post the comment: {exc}", err=True)
        return
    if comment is None:
        click.echo("prefixlint: no template changed: no comment posted", err=True)
        return
    click.echo(f"prefixlint: {action} comment {comment.get('html_url') or comment.get('id')}", err=True)
