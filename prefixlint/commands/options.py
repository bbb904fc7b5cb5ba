"""Options that several commands share, spelled the same everywhere."""

from __future__ import annotations

import click

from prefixlint.match.profiles import DEFAULT_ENGINE
from prefixlint.tokenize import DEFAULT_TOKENIZER


def tokenizer_options(default: str | None = DEFAULT_TOKENIZER):
    def decorate(function):
        function = click.option(
            "--offline", is_flag=True, default=False,
            help="Never use the network (as HF_HUB_OFFLINE=1): tokenizers come from local files and caches.",
        )(function)
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
        help="Engine profile: vllm, sglang, trtllm, llamacpp, lmcache, tgi, openai, anthropic, gemini, deepseek.",
    )(function)


def format_option(*choices: str, default: str = "text"):
    return click.option(
        "--format", "output_format", type=click.Choice(choices), default=default, show_default=True,
        help="Output format.",
    )
