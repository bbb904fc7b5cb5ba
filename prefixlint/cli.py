"""The `prefixlint` command: a click group whose subcommands are imported only when run.

`prefixlint --version` and `--help` import no tokenizer, template or hub library: the
pre-commit hook starts this process on every commit.
"""

from __future__ import annotations

import importlib
import os
import sys

import click

from prefixlint import __version__
from prefixlint.errors import PrefixlintError

# name -> "module:attribute"; each module keeps its heavy imports inside functions.
COMMANDS = {
    "compare": ("prefixlint.commands.compare:compare", "Measure the prefix-cache reuse of requests served in order."),
    "check": ("prefixlint.commands.check:check", "Lint prompt templates for volatile values ahead of stable content."),
    "rules": ("prefixlint.commands.rules:rules", "List the rules of `prefixlint check`."),
    "rule": ("prefixlint.commands.rules:rule", "Show one rule's documentation (e.g. `prefixlint rule PFX001`)."),
    "replay": ("prefixlint.commands.replay:replay",
               "Replay a request log through the engine's prefix cache: hit rate and where it is lost."),
    "kv": ("prefixlint.commands.kv:kv", "Size a model's KV cache per token and per conversation, and what fits in memory."),
    "transcript": ("prefixlint.commands.transcript:transcript",
                   "Show turn by turn how much of a chat the server reuses, and why not more."),
    "server": ("prefixlint.commands.server:server",
               "Run the language server (LSP on stdio): diagnostics, fixes and measured reuse in the editor."),
    "report": ("prefixlint.commands.report:report",
               "Reuse of each template at a git base and now, as Markdown for a pull request."),
}

EXIT_USAGE = 2


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module_name, _, attribute = COMMANDS[name][0].partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not any(param.name == "color" for param in command.params):
            command.params.append(color_option())  # `--color` after the subcommand too
        return command

    def resolve_command(self, ctx: click.Context, args: list[str]):  # type: ignore[override]
        name = args[0] if args else ""
        if name and name not in COMMANDS and not name.startswith("-"):
            import difflib

            close = difflib.get_close_matches(name.lower(), COMMANDS, n=1)
            if close:
                ctx.fail(f"No such command {name!r}. (Did you mean {close[0]!r}?)")
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Short help from the table, so that `--help` imports no command module.
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def invoke(self, ctx: click.Context):  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except PrefixlintError as exc:
            report_error(exc)
            ctx.exit(EXIT_USAGE)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, BrokenPipeError):
            raise  # click ends a run whose reader went away (`| head`) quietly
        except KeyboardInterrupt:
            ctx.exit(130)
        except Exception as exc:  # an internal error: no traceback unless asked for
            if os.environ.get("PREFIXLINT_DEBUG"):
                raise
            click.echo(
                f"prefixlint: internal error: {type(exc).__name__}: {exc}\n"
                "  hint: run again with PREFIXLINT_DEBUG=1 for the traceback, and report it",
                err=True,
            )
            ctx.exit(EXIT_USAGE)


COLOR_HELP = "Colour the output (default: when writing to a terminal and NO_COLOR is unset)."


def _set_color(ctx: click.Context, param: click.Parameter, value: bool | None) -> None:
    if value is not None:
        ctx.color = value


def color_option() -> click.Option:
    """`--color/--no-color` as every subcommand takes it: it sets the context's colour, as the
    same flag before the subcommand does."""
    return click.Option(["--color/--no-color"], default=None, expose_value=False, is_eager=True,
                        callback=_set_color, help=COLOR_HELP)


def report_error(exc: PrefixlintError) -> None:
    click.echo(f"prefixlint: error: {exc}", err=True)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="prefixlint", message="%(prog)s %(version)s")
@click.option("--color/--no-color", default=None, help=COLOR_HELP)
@click.pass_context
def cli(ctx: click.Context, color: bool | None) -> None:
    """Measure how much of each LLM request a serving engine can take from its prefix cache,
    and lint prompt templates for what destroys that reuse."""
    if color is None and os.environ.get("NO_COLOR"):
        color = False
    ctx.color = color


def main() -> None:
    try:
        cli.main(prog_name="prefixlint")
    except BrokenPipeError:  # `prefixlint ... | head`
        sys.stderr.close()
        sys.exit(0)
    except SystemExit as done:  # click ends every run this way, with the exit status
        exit_now(done)


def exit_now(done: SystemExit) -> None:
    """End the process without tearing the interpreter down, once the output is flushed.

    A linter run on every commit has nothing to clean up: freeing every object one by one
    (the tokenizer's vocabulary, every imported module) only costs time (about 45 ms after
    `check`; the operating system reclaims the memory at once), as mypy's fast exit also
    reasons. Under a profiler or a coverage tracer, and whenever flushing fails, the
    interpreter exits as usual.
    """
    if sys.gettrace() is not None or sys.getprofile() is not None:
        raise done
    code = done.code
    try:
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)  # as the interpreter reports sys.exit("message")
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:
        raise done from None
    os._exit(code or 0)
