"""`prefixlint check`: lint prompt templates for volatile values ahead of stable content."""

from __future__ import annotations

import click

from prefixlint.commands.options import allow_outside_paths_option, format_option, tokenizer_options
from prefixlint.errors import PrefixlintError
from prefixlint.report.formats import CHECK_FORMATS

EXIT_FINDINGS = 1
EXIT_ERROR = 2


@click.command()
@click.argument("paths", nargs=-1, required=True, metavar="PATHS...")
# No defaults here: a flag given wins over the configuration files, which win over the
# defaults (o200k_base, vllm); a template's own `tokenizer:` / `engine:` wins over all.
@tokenizer_options(default=None)
@click.option("--engine", "-e", metavar="NAME", default=None,
              help="Engine profile (default vllm): vllm, sglang, trtllm, llamacpp, lmcache, tgi, openai,"
              " anthropic, gemini, deepseek. A file's own `engine:` wins.")
@click.option("--block-size", type=int, default=None, metavar="N",
              help="Override the engine's cache block (page, chunk) size in tokens.")
@click.option("--chat-template", "chat_template", metavar="PATH", default=None,
              help="Render chat files through this chat template: a .jinja file or a tokenizer_config.json"
              " (default: the tokenizer's own).")
@click.option("--select", metavar="CODES", default=None, help="Report only these codes or prefixes (PFX001,PFX00).")
@click.option("--ignore", metavar="CODES", default=None, help="Do not report these codes or prefixes.")
@format_option(*CHECK_FORMATS)
@click.option("--exit-zero", is_flag=True, default=False, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True, default=False, help="Count the findings per rule code.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="Use this configuration file for every path (pyproject.toml or .prefixlint.yaml).")
@click.option("--isolated", is_flag=True, default=False, help="Ignore every configuration file.")
@click.option("--force-exclude", is_flag=True, default=False,
              help="Apply `exclude` to files named on the command line too (for pre-commit hooks).")
@allow_outside_paths_option
@click.option("--skip-non-templates", is_flag=True, default=False,
              help="Skip files named on the command line that are no prompt template (a package.json,"
              " a CI workflow), as a directory walk does, instead of reporting them (for pre-commit hooks).")
@click.option("--fix", is_flag=True, default=False,
              help="Move the flagged values after the stable content in the files (safe fixes only).")
@click.option("--unsafe-fixes", is_flag=True, default=False,
              help="Also apply the fixes that split a sentence (with --fix or --diff).")
@click.option("--diff", is_flag=True, default=False,
              help="Print the fixes as unified diffs and change nothing (exit 1 when there is a diff).")
@click.pass_context
def check(ctx, paths, tokenizer, offline, engine, block_size, chat_template, select, ignore, output_format, exit_zero,
          statistics, config_file, isolated, force_exclude, allow_outside_paths, skip_non_templates, fix,
          unsafe_fixes, diff):
    """Find the values in prompt templates that change between requests (timestamps, ids, user
    data, counters, retrieved content) and sit ahead of stable content, and measure with the
    real tokenizer what each costs in prefix-cache reuse and what moving it would give.

    \b
    Examples:
      prefixlint check samples/
      prefixlint check prompts/*.yaml --engine openai --format json
      prefixlint check prompt.md --select PFX001,PFX002 --exit-zero
      prefixlint check chats/ --tokenizer ./llama --chat-template llama3.2.jinja
      prefixlint check prompts/ --diff          # the fixes as a diff; --fix writes them

    Exit status: 0 no findings, 1 findings, 2 usage, configuration or input error.
    """
    from pathlib import Path

    from prefixlint.config import load_config
    from prefixlint.load.discover import discover
    from prefixlint.match.profiles import DEFAULT_ENGINE, get_profile
    from prefixlint.report.formats import format_results
    from prefixlint.check.runner import check_files
    from prefixlint.check.settings import SettingsBuilder
    from prefixlint.results import FileResult
    from prefixlint.tokenize import load_tokenizer

    if ctx.get_parameter_source("output_format") is click.core.ParameterSource.DEFAULT:
        from prefixlint.report.github import is_github_actions

        output_format = "github" if is_github_actions() else output_format
    if "-" in paths:
        raise click.UsageError("check reads template files, not standard input")
    flags = dict(tokenizer=tokenizer, engine=engine, block_size=block_size, select=select, ignore=ignore,
                 chat_template=chat_template)
    config_path = Path(config_file) if config_file else None
    settings_for = SettingsBuilder(flags, offline, config_path, isolated)
    settings_for.validate_flags(Path.cwd(), read_files=False)
    if engine is not None or block_size is not None:
        get_profile(engine or DEFAULT_ENGINE, block_size)
    if tokenizer is not None:  # a bad --tokenizer is one error, not one per file
        load_tokenizer(tokenizer, offline=offline)
    if chat_template is not None:  # likewise a missing or broken --chat-template
        from prefixlint.render.templates import load_chat_template

        load_chat_template(chat_template)

    problems: list[PrefixlintError] = []
    files: dict[str, None] = {}
    named: set[str] = set()
    walks: dict[str, list[str]] = {}  # directory named on the command line -> the files found in it
    for raw in paths:
        try:
            walk = load_config(Path(raw), config_file=config_path, isolated=isolated)
            found = discover([raw], exclude=walk.exclude, exclude_root=walk.exclude_root, force_exclude=force_exclude)
            if Path(raw).is_dir() or force_exclude:
                # A walked file's own (closer) configuration may exclude it too.
                found = [f for f in found
                         if not load_config(f, config_file=config_path, isolated=isolated).is_excluded(f)]
        except PrefixlintError as exc:
            problems.append(exc.located(raw))
            continue
        files.update(dict.fromkeys(map(str, found)))
        if Path(raw).is_dir():
            walks[raw] = [str(f) for f in found]
        else:
            named.update(map(str, found))
    # A file found by a walk that no loader reads (a CI workflow, a config) is skipped; a file
    # named on the command line is reported, unless --skip-non-templates (pre-commit names every
    # staged file that matches the hook's extensions).
    results = check_files(list(files), settings_for, frozenset(files) - (set() if skip_non_templates else named))
    checked = {result.path for result in results}
    for directory, found in walks.items():
        if found and not checked.intersection(found):
            problems.append(PrefixlintError(
                f"no prompt templates under {directory}: the {len(found)} matching"
                f" file{'s are' if len(found) != 1 else ' is'} in no format prefixlint reads", path=directory, hint="name a file on the command line to see why"))
    results += [FileResult(problem.path or "", error=problem) for problem in problems]
    if diff:
        from prefixlint.commands.check_fix import show_diffs

        for result in results:
            if result.error is not None:
                click.echo(f"prefixlint: error: {result.error}", err=True)
        files_changed, _ = show_diffs(results, unsafe_fixes)
        ctx.exit(EXIT_ERROR if any(r.error for r in results) else EXIT_FINDINGS if files_changed else 0)
    fixed = 0
    if fix:
        from prefixlint.commands.check_fix import apply_fixes

        results, fixed = apply_fixes(results, unsafe_fixes, lambda written: check_files(written, settings_for))
    if output_format == "text":  # diagnostics on stderr, as the other commands print them
        for result in results:
            if result.error is not None:
                click.echo(f"prefixlint: error: {result.error}", err=True)
    click.echo(format_results(results, output_format, color=ctx.color, statistics=statistics,
                              unsafe_fixes=unsafe_fixes), color=ctx.color)
    if fix and output_format == "text":
        click.echo(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.", err=True)
    if any(result.error for result in results):
        ctx.exit(EXIT_ERROR)
    if any(result.findings for result in results) and not exit_zero:
        ctx.exit(EXIT_FINDINGS)
