"""`prefixlint check`: lint prompt templates for volatile values ahead of stable content."""

from __future__ import annotations

import click

from prefixlint.commands.options import Choice, allow_outside_paths_option, format_option, tokenizer_options
from prefixlint.engines.profiles import DEFAULT_ENGINE, engine_names
from prefixlint.report.formats import CHECK_FORMATS

EXIT_FINDINGS = 1
EXIT_ERROR = 2


@click.command()
@click.argument("paths", nargs=-1, metavar="[PATHS]...")
# No defaults here: a flag given wins over the configuration files, which win over the
# defaults (o200k_base, vllm); a template's own `tokenizer:` / `engine:` wins over all.
@tokenizer_options(default=None)
@click.option("--engine", "-e", metavar="NAME", default=None,
              help=f"Engine profile (default {DEFAULT_ENGINE}): {engine_names()}. A file's own `engine:` wins.")
@click.option("--block-size", type=int, default=None, metavar="N",
              help="Override the engine's cache block (page, chunk) size in tokens.")
@click.option("--chat-template", "chat_template", metavar="PATH", default=None,
              help="Render chat files through this chat template: a .jinja file or a tokenizer_config.json"
              " (default: the tokenizer's own).")
@click.option("--select", metavar="CODES", default=None, help="Report only these codes or prefixes (PFX001,PFX00).")
@click.option("--ignore", metavar="CODES", default=None, help="Do not report these codes or prefixes.")
@click.option("--extend-select", metavar="CODES", default=None,
              help="Report these codes or prefixes on top of `select` (the configuration's and --select).")
@click.option("--per-file-ignores", "per_file_ignores", metavar="PATTERN:CODES", multiple=True,
              help="Do not report CODES in the files PATTERN matches (gitignore syntax, relative to the working"
              " directory), on top of the configuration's `per-file-ignores`; repeatable.")
@click.option("--no-cache", is_flag=True, default=False,
              help="Neither read nor write the result cache (.prefixlint_cache).")
@format_option(*CHECK_FORMATS)
@click.option("--output-file", "-o", type=click.Path(dir_okay=False, writable=True), default=None, metavar="PATH",
              help="Write the output (any --format) to this file instead of standard output.")
@click.option("--quiet", "-q", is_flag=True, default=False,
              help="Print the findings and the summary only (clean files print nothing).")
@click.option("--fail-level", type=Choice(["error", "warning", "info"]), default="warning", show_default=True,
              help="The lowest severity that makes the exit status 1 (info findings such as PFX102 do not, by"
              " default).")
@click.option("--exit-zero", is_flag=True, default=False, help="Exit 0 even when there are findings.")
@click.option("--statistics", is_flag=True, default=False, help="Count the findings per rule code.")
@click.option("--stdin-filename", metavar="PATH", default=None,
              help="With `-` as the path: the name of the text on standard input (its format and configuration).")
@click.option("--show-settings", metavar="PATH", default=None,
              help="Print the settings that apply to PATH and where each comes from, then exit.")
@click.option("--show-files", is_flag=True, default=False, help="Print the files that would be checked, then exit.")
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
def check(ctx, paths, tokenizer, offline, engine, block_size, chat_template, select, ignore, extend_select,
          per_file_ignores, no_cache, output_format, output_file,
          quiet, fail_level, exit_zero, statistics, stdin_filename, show_settings, show_files, config_file, isolated,
          force_exclude, allow_outside_paths, skip_non_templates, fix, unsafe_fixes, diff):
    """Find the values in prompt templates that change between requests (timestamps, ids, user
    data, counters, retrieved content) and sit ahead of stable content, and measure with the
    real tokenizer what each costs in prefix-cache reuse and what moving it would give.

    \b
    Examples:
      prefixlint check                          # the working directory, as ruff
      prefixlint check samples/
      prefixlint check prompts/*.yaml --engine openai --output-format json
      prefixlint check prompt.md --select PFX001,PFX002 --exit-zero
      git show HEAD:prompts/x.yaml | prefixlint check - --stdin-filename prompts/x.yaml
      prefixlint check chats/ --tokenizer ./llama --chat-template llama3.2.jinja
      prefixlint check prompts/ --diff          # the fixes as a diff; --fix writes them

    Exit status: 0 no findings at --fail-level or above, 1 findings, 2 usage, configuration or input error.
    """
    from pathlib import Path

    from prefixlint.check.collector import command_line_run

    command_line_run()  # before the pipeline's imports
    from prefixlint.check.runner import check_files
    from prefixlint.check.settings import SettingsBuilder
    from prefixlint.commands import check_inputs
    from prefixlint.engines.profiles import DEFAULT_ENGINE, get_profile
    from prefixlint.report.formats import format_results
    from prefixlint.results import FileResult
    from prefixlint.tokenize import load_tokenizer

    if ctx.get_parameter_source("output_format") is click.core.ParameterSource.DEFAULT:
        from prefixlint.report.github import is_github_actions

        output_format = "github" if is_github_actions() else output_format
    flags = dict(tokenizer=tokenizer, engine=engine, block_size=block_size, select=select, ignore=ignore,
                 chat_template=chat_template, extend_select=extend_select, cli_per_file_ignores=per_file_ignores)
    config_path = Path(config_file) if config_file else None
    # Flags are validated once, up front: a bad --select is a usage error, not a per-file one.
    # No file is read for this unless --config names one: a broken configuration elsewhere is
    # an error of the files it applies to, reported with them, not of the whole run.
    settings_for = SettingsBuilder(flags, offline, config_path, isolated, token_view=output_format == "html")
    settings_for.validate_flags(Path.cwd(), read_files=False)
    if show_settings is not None:
        from prefixlint.report.settings_view import show

        click.echo(show(show_settings, flags, config_file=config_path, isolated=isolated, json=output_format == "json"))
        return
    paths = paths or (".",)  # as ruff: no paths checks the working directory
    if engine is not None or block_size is not None:
        get_profile(engine or DEFAULT_ENGINE, block_size)
    if tokenizer is not None:  # a bad --tokenizer is one error, not one per file
        load_tokenizer(tokenizer, offline=offline)
    if chat_template is not None:  # likewise a missing or broken --chat-template
        from prefixlint.render.templates import load_chat_template

        load_chat_template(chat_template)
    texts: dict[str, str] = {}
    if "-" in paths:
        texts[stdin_filename or "-"] = check_inputs.read_stdin(stdin_filename)
        paths = tuple(stdin_filename if raw == "-" else raw for raw in paths)
    inputs = check_inputs.gather([p for p in paths if p not in texts], config_file=config_path, isolated=isolated,
                                 force_exclude=force_exclude)
    inputs.files.update(dict.fromkeys(texts))
    inputs.named.update(texts)
    # A file found by a walk that no loader reads (a CI workflow, a config) is skipped; a file
    # named on the command line is reported, unless --skip-non-templates (pre-commit names every
    # staged file that matches the hook's extensions).
    walked = frozenset(inputs.files) - (set() if skip_non_templates else inputs.named)
    if skip_non_templates:  # the hook: a named file is taken as the walk would take it, else skipped with why
        from prefixlint.load.hook_files import walk_skips

        left = {p: why for p in inputs.files if p in inputs.named and p not in texts and (why := walk_skips(p))}
        inputs.files = {p: v for p, v in inputs.files.items() if p not in left}
        inputs.skipped.update(left)
    bar = check_inputs.progress(len(inputs.files))
    with bar if bar is not None else _nothing():
        tick = (lambda: bar.update(1)) if bar is not None else None
        from prefixlint.check import cache

        if no_cache or not cache.enabled() or fix or diff or texts or output_format == "html":
            wanted = (unsafe_fixes,) if (fix or diff) and not show_files else ()  # the fixes, made where each file is checked
            results = check_files(list(inputs.files), settings_for, walked, texts=texts, progress=tick, fixes=wanted)
        else:  # the result cache (.prefixlint_cache), keyed by content, configuration and version
            from prefixlint.check.cache import ResultCache, check_cached

            results = check_cached(list(inputs.files), settings_for, walked, ResultCache(), progress=tick)
    results += [FileResult(path, skipped=reason) for path, reason in inputs.skipped.items()]
    problems = inputs.problems
    if show_files:  # exactly what check checks: a walked file may be no prompt, known once read
        check_inputs.show_files(results, problems)
        ctx.exit(EXIT_ERROR if problems else 0)
    checked = {r.path for r in results if r.skipped is None} | {r.config for r in results if r.skipped is None}
    for directory, found in inputs.walks.items():  # a walk never fails on what is not a prompt
        if found and not checked.intersection(found) and output_format == "text":
            click.echo(f"note: no prompts under {directory}: the {len(found)} matching"
                       f" file{'s are' if len(found) != 1 else ' is'} no prompt prefixlint reads"
                       " (--format json lists why; name a file to see its error)",
                       err=True)
    results += [FileResult(problem.path or "", error=problem) for problem in problems]
    if diff:
        from prefixlint.commands.check_fix import show_diffs

        _print_errors(results)
        files_changed, _ = show_diffs(results, unsafe_fixes)
        ctx.exit(EXIT_ERROR if any(r.error for r in results) else EXIT_FINDINGS if files_changed else 0)
    fixed = 0
    if fix:
        from prefixlint.commands.check_fix import apply_fixes

        results, fixed = apply_fixes(results, unsafe_fixes, lambda written: check_files(written, settings_for),
                                     stdin=texts)
    if output_format == "text":  # diagnostics on stderr, as the other commands print them
        _print_errors(results)
    color = False if output_file else ctx.color
    body = format_results(results, output_format, color=color, statistics=statistics, quiet=quiet,
                          unsafe_fixes=unsafe_fixes)
    if output_file:
        Path(output_file).write_text(body + "\n", encoding="utf-8")
    else:  # with --fix on standard input, standard output holds the fixed text
        click.echo(body, color=ctx.color, err=bool(fix and texts))
    if output_format == "text" and not quiet and any(r.chat_format == "chatml-approximation" for r in results):
        from prefixlint.render.templates import CHATML_NOTE  # as transcript says it

        click.echo(f"note: {CHATML_NOTE}", err=True)
    if fix and output_format == "text":
        click.echo(f"Fixed {fixed} finding{'s' if fixed != 1 else ''}.", err=True)
    if any(result.error for result in results):
        ctx.exit(EXIT_ERROR)
    if check_inputs.fails(results, fail_level) and not exit_zero:
        ctx.exit(EXIT_FINDINGS)


def _nothing():
    import contextlib

    return contextlib.nullcontext()


def _print_errors(results) -> None:
    """Each diagnostic once on stderr: a configuration error governs every file under it, and is
    said once, not once per file (the summary still counts the files it stopped)."""
    seen: set[str] = set()
    for result in results:
        if result.error is not None and str(result.error) not in seen:
            seen.add(str(result.error))
            click.echo(f"prefixlint: error: {result.error}", err=True)
