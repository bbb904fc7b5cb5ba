"""`prefixlint compare`: serve requests in order to one cache and show each one's reuse."""

from __future__ import annotations

import click

from prefixlint.commands.options import engine_options, format_option, tokenizer_options
from prefixlint.errors import PrefixlintError

EXIT_USAGE = 2


@click.command()
@click.argument("files", nargs=-1, metavar="[FILE|-]...")
@click.option("--text", "texts", multiple=True, metavar="STRING",
              help="A request given inline (repeatable); served after the FILES.")
@tokenizer_options()
@engine_options
@click.option("--special-tokens/--no-special-tokens", default=True, show_default=True,
              help="Add the tokenizer's special tokens (BOS) as a completions endpoint does.")
@format_option("text", "json")
@click.pass_context
def compare(ctx, files, texts, tokenizer, offline, engine, block_size, special_tokens, output_format):
    """Serve requests, in order, to one prefix cache and report for each its tokens, the shared
    prefix with what was cached before it, the tokens the engine reuses after its rounding,
    and where it diverged.

    \b
    Example:
      prefixlint compare --text "What's your refund policy?" --text "What is your refund policy?"
      prefixlint compare monday.txt tuesday.txt --engine sglang
    """
    from prefixlint.engines.profiles import get_profile
    from prefixlint.engines.serve import Prompt, serve_prompts
    from prefixlint.load.files import STDIN, STDIN_NAME, read_text
    from prefixlint.report import compare as report
    from prefixlint.tokenize import load_tokenizer

    if not files and not texts:
        raise click.UsageError("give at least one request: FILE, `-` for standard input, or --text STRING")
    if list(files).count(STDIN) > 1:
        raise click.UsageError("standard input (`-`) can be given only once")
    profile = get_profile(engine, block_size)
    sources: list[tuple[str, str]] = []
    problems = 0
    for name in files:
        try:
            sources.append((STDIN_NAME if name == STDIN else name, read_text(name)))
        except PrefixlintError as exc:  # report it, go on with the other requests, exit 2 at the end
            click.echo(f"prefixlint: error: {exc}", err=True)
            problems += 1
    for number, value in enumerate(texts, 1):
        if not value:
            raise click.BadParameter(f"--text #{number} is empty", param_hint="--text")
        sources.append((f"--text #{number}", value))
    if not sources:
        ctx.exit(EXIT_USAGE)
    loaded = load_tokenizer(tokenizer, offline=offline)
    requests = [
        Prompt(name, text, loaded.encode(text, add_special_tokens=special_tokens)) for name, text in sources
    ]
    results = serve_prompts(requests, loaded, profile)
    if output_format == "json":
        click.echo(report.to_json(results, loaded.name, profile))
    else:
        click.echo(report.to_text(results, loaded.name, profile, color=ctx.color), color=ctx.color)
    if problems:
        click.echo(f"prefixlint: {problems} of {len(files)} files could not be read (see above)", err=True)
        ctx.exit(EXIT_USAGE)
