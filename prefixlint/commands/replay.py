"""`prefixlint replay`: the prefix-cache hit rate of a request log, and the KV memory behind it."""

from __future__ import annotations

import contextlib
import json
import sys

import click

from prefixlint.commands.kv import dtype_option
from prefixlint.commands.options import engine_options, format_option, tokenizer_options
from prefixlint.errors import PrefixlintError
from prefixlint.replay.routed import router_options

#: Logs larger than this get a progress bar (when standard error is a terminal).
PROGRESS_BYTES = 4 * 1024 * 1024


def _capacity(engine, block_size, cache_tokens, memory, layout) -> tuple[int | None, str]:
    """Usable cache blocks and where the number came from; None: unlimited."""
    from prefixlint.match.kv import format_bytes, parse_bytes

    if cache_tokens is not None and memory is not None:
        raise click.UsageError("give --cache-tokens or --memory, not both")
    if (cache_tokens is not None or memory is not None) and engine != "vllm":
        raise click.UsageError("a cache capacity is modelled for --engine vllm only; other engines replay unlimited")
    if cache_tokens is not None:
        if cache_tokens < block_size:
            raise click.UsageError(f"--cache-tokens must hold at least one block ({block_size} tokens)")
        return cache_tokens // block_size, "--cache-tokens"
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
    return blocks, f"--memory {format_bytes(size)} / {format_bytes(layout.bytes_per_token)} per token"


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
@router_options
@click.option("--workers", type=int, default=1, show_default=True, metavar="N",
              help="Render and tokenize in N local processes (the simulation stays in order in this one).")
@click.option("--ray", "use_ray", is_flag=True,
              help="Render and tokenize with Ray Data (RAY_ADDRESS, else a local Ray); LOG may be a JSONL or"
              " Parquet path or object-storage URL. Needs the extra: pip install 'prefixlint[ray]'.")
@format_option("text", "json")
@click.pass_context
def replay(ctx, log, tokenizer, offline, chat_template, now_text, engine, block_size, cache_tokens, memory, model_config, dtype,
           si, strict, replicas, router, seed, prefill_tps, decode_tps, workers, use_ray, output_format):
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
    from prefixlint.load.requestlog import BadLine, open_log
    from prefixlint.match.blockpool import VllmPrefixCache
    from prefixlint.match.kv import kv_layout
    from prefixlint.match.profilecache import ProfilePrefixCache
    from prefixlint.match.profiles import get_profile
    from prefixlint.match.replay import Replay
    from prefixlint.replay import router_report
    from prefixlint.replay.cluster import Speed
    from prefixlint.replay.prepared import Fatal, Setup
    from prefixlint.replay.routed import build, check_router, no_workers_with
    from prefixlint.replay.sources import records
    from prefixlint.report import replay as report
    from prefixlint.tokenize import load_tokenizer

    policy = check_router(replicas, router, prefill_tps, decode_tps)
    no_workers_with(workers, use_ray)
    if use_ray:
        from prefixlint.replay.ray_source import check_ray

        check_ray(log)
    profile = get_profile(engine, block_size)
    layout = None
    if model_config:
        layout = kv_layout(load_model_config(model_config, offline=offline)[1], dtype=dtype)
    blocks, capacity_from = _capacity(profile.name, profile.unit, cache_tokens, memory, layout)

    def make_cache(capacity):
        return VllmPrefixCache(profile.unit, capacity) if profile.name == "vllm" else ProfilePrefixCache(profile)

    routing = build(policy, replicas, seed, Speed(prefill_tps, decode_tps), profile.unit, blocks, make_cache)
    cache = routing.cache
    loaded = load_tokenizer(tokenizer, offline=offline)
    settings, template_error = _chat_settings(loaded, chat_template, now_text)
    setup_workers = Setup(tokenizer, offline, chat_template, settings.now.isoformat())
    run = Replay(cache)
    bad: list[BadLine] = []
    templates = plain = 0
    stream, size = (None, None) if use_ray else open_log(log)
    with contextlib.ExitStack() as stack:
        if stream is not None and stream is not sys.stdin.buffer:
            stack.callback(stream.close)
        bar = _progress(size)
        if bar is not None:
            stack.enter_context(bar)
        for number, record in enumerate(records(log, stream, workers, use_ray, setup_workers,
                                                (loaded, settings, template_error)), 1):
            if isinstance(record, Fatal):
                raise PrefixlintError(record.message, path=log, line=record.line, hint=record.hint)
            if isinstance(record, BadLine):
                if strict:
                    raise PrefixlintError(record.message, path=log, line=record.line, hint="drop --strict to skip and count bad lines")
                bad.append(record)
                continue
            request = record.request
            templates += record.named
            plain += not record.named
            routing.serve(record.route, request.prompt, request.generated, request.salt)
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
        engine_text=profile.describe(), capacity_tokens=None if blocks is None else blocks * profile.unit * (replicas if routing.side_by_side else 1),
        capacity_from=capacity_from, group_by=group_by, layout=layout, si=si,
    )
    capacity = "unlimited size" if blocks is None else f"{blocks * profile.unit:,} tokens"
    if output_format == "json":
        data = {**report.to_dict(setup, run.stats, bad, cache.evicted_blocks), **router_report.to_json(routing)}
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    elif routing.side_by_side:
        click.echo("\n".join([report.to_text(setup, run.stats, bad, cache.evicted_blocks).split("\n")[0], ""]
                             + router_report.to_text(routing, run.stats, capacity)))
    else:
        text = report.to_text(setup, run.stats, bad, cache.evicted_blocks, color=ctx.color)
        lines = router_report.to_text(routing, run.stats, capacity)
        click.echo(text + ("\n\n" + "\n".join(lines) if lines else ""), color=ctx.color)
