"""`prefixlint replay`: the prefix-cache hit rate of a request log, and the KV memory behind it."""

from __future__ import annotations

import contextlib
import sys

import click

from prefixlint.commands.kv import dtype_option
from prefixlint.commands.options import engine_options, format_option, tokenizer_options
from prefixlint.errors import PrefixlintError

#: Logs larger than this get a progress bar (when standard error is a terminal).
PROGRESS_BYTES = 4 * 1024 * 1024


def _bounded_blocks(blocks: int, option: str) -> int:
    """The pool is allocated up front: more blocks than MAX_CACHE_BLOCKS is refused, not allocated."""
    from prefixlint.limits import MAX_CACHE_BLOCKS

    if blocks > MAX_CACHE_BLOCKS:
        raise click.UsageError(f"{option} gives {blocks:,} cache blocks, more than the {MAX_CACHE_BLOCKS:,} this"
                               " replay models; leave it out to replay an unlimited cache")
    return blocks


def _capacity(engine, block_size, cache_tokens, memory, layout) -> tuple[int | None, str]:
    """Usable cache blocks and where the number came from; None: unlimited."""
    from prefixlint.kv.layout import format_bytes, parse_bytes

    if cache_tokens is not None and memory is not None:
        raise click.UsageError("give --cache-tokens or --memory, not both")
    if (cache_tokens is not None or memory is not None) and engine != "vllm":
        raise click.UsageError("a cache capacity is modelled for --engine vllm only; other engines replay unlimited")
    if cache_tokens is not None:
        if cache_tokens < block_size:
            raise click.UsageError(f"--cache-tokens must hold at least one block ({block_size} tokens)")
        return _bounded_blocks(cache_tokens // block_size, "--cache-tokens"), "--cache-tokens"
    if memory is None:
        return None, "unlimited"
    if layout is None:
        raise click.UsageError("--memory needs --model-config (the bytes per token come from it)")
    size = parse_bytes(memory)
    if not layout.bytes_per_token:
        raise PrefixlintError("this model's cache does not grow with tokens: --memory cannot size blocks")
    # vLLM: num_gpu_blocks = memory // page size of all layers; block 0 is the null block.
    blocks = size // (block_size * layout.bytes_per_token) - 1
    if blocks < 1:
        raise PrefixlintError(f"--memory {memory} holds no {block_size}-token block of this model")
    return _bounded_blocks(blocks, "--memory"), f"--memory {format_bytes(size)} / {format_bytes(layout.bytes_per_token)} per token"


def _chat_settings(tokenizer, chat_template_path, now_text):
    """The chat template resolved once: (settings, the error to raise at the first chat line)."""
    from datetime import datetime

    from prefixlint.load.requestlog import parse_timestamp
    from prefixlint.render.logged import ChatSettings
    from prefixlint.render.templates import read_chat_template, resolve_chat_template

    now = datetime.now()
    if now_text is not None:
        now = parse_timestamp(now_text)
        if now is None:
            raise click.BadParameter(f"{now_text!r} is not an ISO 8601 date-time", param_hint="--now")
    explicit = read_chat_template(chat_template_path) if chat_template_path else None
    try:
        return ChatSettings(resolve_chat_template(tokenizer, explicit), now), None
    except PrefixlintError as exc:
        return ChatSettings(now=now), exc


def _progress(size: int | None):
    if size is None or size < PROGRESS_BYTES or not sys.stderr.isatty():
        return None
    return click.progressbar(length=size, label="replaying", file=sys.stderr, show_eta=True)


@click.command()
@click.argument("log", metavar="LOG|-")
@tokenizer_options()
@engine_options
@click.option("--chat-template", "chat_template", metavar="PATH",
              help="Render chat requests with this template (.jinja, or a tokenizer_config.json)"
              " instead of the tokenizer's own.")
@click.option("--now", "now_text", metavar="ISO-DATETIME", default=None,
              help="The clock the template sees for lines without a `timestamp` (default: now).")
@click.option("--cache-tokens", type=int, default=None, metavar="N",
              help="vLLM cache capacity in tokens (whole blocks).  [default: unlimited]")
@click.option("--memory", metavar="SIZE", help="vLLM cache capacity as memory (71GiB), with --model-config.")
@click.option("--model-config", metavar="CONFIG",
              help="The model's config.json (path, directory or hub id): KV bytes per token.")
@dtype_option
@click.option("--si", is_flag=True, help="SI units (GB) instead of binary units (GiB).")
@click.option("--strict", is_flag=True, help="A bad line is fatal (exit 2) instead of counted and reported.")
@format_option("text", "json")
@click.pass_context
def replay(ctx, log, tokenizer, offline, chat_template, now_text, engine, block_size, cache_tokens, memory, model_config, dtype,
           si, strict, output_format):
    """Replay a request log (JSON Lines, one OpenAI chat or completions request per line, in
    the order served) through the engine's prefix cache: requests, prompt tokens, cached
    tokens and hit rate, per template or leading text, the ten places where requests lose
    most to divergence, and with --model-config the KV bytes behind the reuse.

    \b
    Example:
      prefixlint replay traffic.jsonl
      prefixlint replay traffic.jsonl --memory 71GiB --model-config openai/gpt-oss-120b
      prefixlint replay traffic.jsonl --engine sglang --format json
    """
    from prefixlint.load.model_config import load_model_config
    from prefixlint.load.requestlog import BadLine, open_log, read_log
    from prefixlint.match.blockpool import VllmPrefixCache
    from prefixlint.kv.layout import kv_layout
    from prefixlint.match.profilecache import ProfilePrefixCache
    from prefixlint.match.profiles import get_profile
    from prefixlint.match.replay import Replay
    from prefixlint.render.logged import prepare
    from prefixlint.report import replay as report
    from prefixlint.tokenize import load_tokenizer

    profile = get_profile(engine, block_size)
    layout = None
    if model_config:
        layout = kv_layout(load_model_config(model_config, offline=offline)[1], dtype=dtype)
    blocks, capacity_from = _capacity(profile.name, profile.unit, cache_tokens, memory, layout)
    cache = VllmPrefixCache(profile.unit, blocks) if profile.name == "vllm" else ProfilePrefixCache(profile)
    loaded = load_tokenizer(tokenizer, offline=offline)
    settings, template_error = _chat_settings(loaded, chat_template, now_text)
    run = Replay(cache)
    bad: list[BadLine] = []
    templates = plain = 0
    stream, size = open_log(log)
    with contextlib.ExitStack() as stack:
        if stream is not sys.stdin.buffer:
            stack.callback(stream.close)
        bar = _progress(size)
        if bar is not None:
            stack.enter_context(bar)
        for number, item in enumerate(read_log(stream, log), 1):
            if isinstance(item, BadLine):
                if strict:
                    raise PrefixlintError(item.message, path=log, line=item.line, hint="drop --strict to skip and count bad lines")
                bad.append(item)
                continue
            if item.is_chat and template_error is not None:
                raise template_error.located(log, item.line)
            try:
                request = prepare(item, loaded, settings)
            except PrefixlintError as exc:
                if strict:
                    raise exc.located(log, item.line) from None
                bad.append(BadLine(item.line, exc.message))
                continue
            templates += item.template is not None
            plain += item.template is None
            run.serve(request.line, request.group, request.prompt, request.generated, request.salt,
                      request.reported_cached_tokens)
            if bar is not None and number % 256 == 0:
                bar.update(stream.tell() - bar.pos)
    for item in bad[: report.BAD_LINES_SHOWN]:
        click.echo(f"prefixlint: warning: {log}:{item.line}: {item.message}", err=True)
    if len(bad) > report.BAD_LINES_SHOWN:
        click.echo(f"prefixlint: warning: … and {len(bad) - report.BAD_LINES_SHOWN} more bad lines", err=True)
    group_by = "template (metadata)" if templates and not plain else (
        "leading text (first line, numbers as #)" if not templates else "template, else leading text")
    setup = report.Setup(
        log=log, tokenizer=loaded, engine=profile.name, block_size=profile.unit,
        engine_text=profile.describe(), capacity_tokens=None if blocks is None else blocks * profile.unit,
        capacity_from=capacity_from, group_by=group_by, layout=layout, si=si,
    )
    if output_format == "json":
        click.echo(report.to_json(setup, run.stats, bad, cache.evicted_blocks))
    else:
        click.echo(report.to_text(setup, run.stats, bad, cache.evicted_blocks, color=ctx.color), color=ctx.color)
