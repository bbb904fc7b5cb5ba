"""Options that several commands share, spelled the same everywhere."""

from __future__ import annotations

import click

from prefixlint.engines.profiles import DEFAULT_ENGINE, engine_names
from prefixlint.tokenize import DEFAULT_TOKENIZER


class Choice(click.Choice):
    """click's Choice, whose refusal of a misspelled value suggests the close one (`jsn`:
    did you mean 'json'?), as click does for a misspelled option."""

    def convert(self, value, param, ctx):
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as exc:
            import difflib

            close = difflib.get_close_matches(str(value).lower(), [str(c) for c in self.choices], n=1, cutoff=0.5)
            if not close:
                raise
            raise click.BadParameter(f"{exc.message} (Did you mean {close[0]!r}?)", ctx=exc.ctx,
                                     param=exc.param) from None


def _offline(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    if value:  # at once, before any command code imports huggingface_hub or transformers
        from prefixlint.tokenize.huggingface import go_offline

        go_offline()
    return value


def offline_option(function, help: str = "Never use the network (as HF_HUB_OFFLINE=1): tokenizers come from"
                   " local files and caches."):
    return click.option("--offline", is_flag=True, default=False, callback=_offline, help=help)(function)


def _allow_outside(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    from prefixlint.limits import allow_outside_paths

    allow_outside_paths(value)
    return value


def allow_outside_paths_option(function):
    return click.option(
        "--allow-outside-paths", is_flag=True, default=False, callback=_allow_outside,
        help="Let templates refer to files outside the repository (LangChain template_path, promptfoo"
        " file://, a template's tokenizer path) and walks follow symlinks out of it.",
    )(function)


def tokenizer_options(default: str | None = DEFAULT_TOKENIZER):
    def decorate(function):
        function = offline_option(function)
        return click.option(
            "--tokenizer", "-t", metavar="NAME", default=default, show_default=bool(default),
            help="A tiktoken encoding (o200k_base, cl100k_base, o200k_harmony), an OpenAI model name,"
            " `tekken`, a path to tokenizer.json or its directory, or a Hugging Face hub id.",
        )(function)
    return decorate


def engine_options(function):
    function = click.option(
        "--block-size", type=click.IntRange(min=1), default=None, metavar="N",
        help="Override the engine's cache block (page, chunk) size in tokens.",
    )(function)
    return click.option(
        "--engine", "-e", metavar="NAME", default=DEFAULT_ENGINE, show_default=True,
        help=f"Engine profile: {engine_names()}.",
    )(function)


def format_option(*choices: str, default: str = "text"):
    """`--output-format` (ruff's name), with `--format` kept as an alias."""
    return click.option(
        "--output-format", "--format", "output_format", type=Choice(choices), default=default,
        show_default=True, help="Output format (`--format` is the same option).",
    )
