"""`prefixlint kv`: the KV-cache size of a model, per token and per conversation, and what fits."""

from __future__ import annotations

from functools import partial

import click

from prefixlint.commands.options import Choice, format_option, offline_option


def context_option(function):
    return click.option(
        "--context", "contexts", multiple=True, metavar="TOKENS",
        help="Conversation length(s) to size: repeatable or a comma list (4K, 128K, 32768)."
        "  [default: 4K,8K,32K,128K]",
    )(function)


def parse_contexts(values) -> list[int]:
    from prefixlint.kv.layout import DEFAULT_CONTEXTS, parse_tokens

    found = [parse_tokens(part) for value in values for part in value.split(",") if part.strip()]
    return found or list(DEFAULT_CONTEXTS)


def dtype_option(function):
    return click.option(
        "--dtype", type=Choice(["bf16", "fp16", "fp8", "fp32", "int8"]), default=None,
        help="KV cache dtype.  [default: the model's torch_dtype from config.json]",
    )(function)


@click.command()
@click.argument("config", metavar="CONFIG")
@dtype_option
@click.option("--naive", is_flag=True, help="Count every layer as full attention (no sliding windows, no fixed states).")
@context_option
@click.option("--memory", metavar="SIZE", help="Memory for the KV cache (71GiB, 80GB): how many conversations fit.")
@click.option("--si", is_flag=True, help="SI units (kB, MB, GB) instead of binary units (KiB, MiB, GiB).")
@partial(offline_option, help="Never use the network: hub ids come from the local cache.")
@format_option("text", "json")
def kv(config, dtype, naive, contexts, memory, si, offline, output_format):
    """Size the KV cache of the model whose config.json is CONFIG (a path, its directory, or
    a Hugging Face hub id from the local cache): bytes per token that grow with the
    conversation, bytes fixed per conversation, the cache at each context length, and with
    --memory how many conversations of each length fit.

    \b
    Example:
      prefixlint kv openai/gpt-oss-120b --memory 71GiB
      prefixlint kv ./Llama-3.1-8B/config.json --dtype fp8 --context 128K --si
    """
    from prefixlint.kv import report
    from prefixlint.kv.layout import kv_layout, parse_bytes
    from prefixlint.load.model_config import load_model_config

    source, data = load_model_config(config, offline=offline)
    layout = kv_layout(data, dtype=dtype, naive=naive)
    naive_layout = kv_layout(data, dtype=dtype, naive=True)
    sizes = parse_contexts(contexts)
    memory_bytes = parse_bytes(memory) if memory else None
    if output_format == "json":
        click.echo(report.to_json(source, layout, naive_layout, sizes, memory_bytes))
    else:
        click.echo(report.to_text(source, layout, naive_layout, sizes, memory_bytes, si=si,
                                  dtype_from="--dtype" if dtype else "from config.json"))
