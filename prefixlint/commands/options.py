"""Options that several commands share, spelled the same everywhere."""

from __future__ import annotations

import click

from prefixlint.engines.profiles import DEFAULT_ENGINE, engine_names
from prefixlint.tokenize import DEFAULT_TOKENIZER


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
    return click.option(
        "--format", "output_format", type=click.Choice(choices), default=default, show_default=True,
        help="Output format.",
    )
