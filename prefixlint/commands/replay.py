"""`prefixlint replay`: the prefix-cache hit rate of a request log, and the KV memory behind it."""

from __future__ import annotations

import contextlib
import json
import sys
from contextlib import contextmanager
from pathlib import Path

import click

from prefixlint.commands import replay_explain as explain
from prefixlint.commands.kv import dtype_option
from prefixlint.commands.options import engine_options, format_option, tokenizer_options
from prefixlint.commands.replay_explain import explain_options
from prefixlint.commands.replay_options import check_options, fixed_now, parallel_options, router_options, token_list

#: Logs larger than this get a progress bar (when standard error is a terminal).
PROGRESS_BYTES = 4 * 1024 * 1024
#: Mooncake's FAST'25 traces hash blocks of 512 tokens.
TRACE_BLOCK_SIZE = 512


def _now(now_text: str):
    """--now (fixed once for every process that renders) as a date-time."""
    from prefixlint.replay.logtext import parse_timestamp

    now = parse_timestamp(now_text)
    if now is None:
        raise click.BadParameter(f"{now_text!r} is not an ISO 8601 date-time", param_hint="--now")
    return now


def _progress(size: int | None):
    if size is None or size < PROGRESS_BYTES or not sys.stderr.isatty():
        return None
    return click.progressbar(length=size, label="replaying", file=sys.stderr, show_eta=True)


@contextmanager
def _as_click():
    """An option the replay found not to fit, reported as click reports a bad option."""
    from prefixlint.replay.simulator import OptionError

    try:
        yield
    except OptionError as exc:
        if exc.param is not None:
            raise click.BadParameter(exc.message, param_hint=exc.param) from None
        raise click.UsageError(exc.message) from None


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
              help="Cache capacity in tokens (vllm: whole blocks; sglang: the token pool).  [default: unlimited]")
@click.option("--memory", metavar="SIZE", help="Cache capacity as memory (71GiB), with --model-config (vllm, sglang).")
@click.option("--trace-block-size", type=int, default=TRACE_BLOCK_SIZE, show_default=True, metavar="N",
              help="Tokens per hash id of a hashed-block trace (Mooncake, AIPerf).")
@click.option("--lora-modules", "lora_modules", metavar="NAME[=PATH],...", multiple=True,
              help="LoRA adapters, as vLLM serve names them: a request whose `model` is one of them"
              " has a cache of its own.")
@click.option("--ttl", "ttl_text", metavar="DURATION",
              help="Time to live of a cache entry (300s, 5m, 1h; 0: none), from the log's timestamps."
              "  [default: the engine's: anthropic 5m, openai 10m, gemini 24h, others none]")
@click.option("--disable-overlap-schedule", "no_overlap", is_flag=True,
              help="SGLang without its overlap scheduler (as on CPU): the last sampled token is not cached.")
@click.option("--curve", is_flag=True,
              help="The hit rate at every cache capacity, in one pass over the log (vllm, sglang, traces).")
@click.option("--curve-at", "curve_at", metavar="N,N,...", callback=token_list,
              help="Capacities (tokens) that the curve must include; implies --curve.")
@click.option("--plot", "plot_file", metavar="FILE", help="Draw the curve to FILE (.svg, .png); implies --curve."
              " Needs matplotlib: pip install 'prefixlint[plot]'.")
@click.option("--model-config", metavar="CONFIG",
              help="The model's config.json (path, directory or hub id): KV bytes per token.")
@dtype_option
@click.option("--si", is_flag=True, help="SI units (GB) instead of binary units (GiB).")
@click.option("--strict", is_flag=True, help="A bad line is fatal (exit 2) instead of counted and reported.")
@router_options
@parallel_options
@explain_options
@format_option("text", "json")
@click.pass_context
def replay(ctx, log, tokenizer, offline, chat_template, now_text, engine, block_size, cache_tokens, memory,
           trace_block_size, lora_modules, ttl_text, no_overlap, curve, curve_at, plot_file, model_config, dtype, si, strict,
           replicas, router, seed, prefill_tps, decode_tps, workers, use_ray, per_request, fail_under, no_causes,
           rewrite_out, output_format):
    """Replay a request log (JSON Lines, one OpenAI chat or completions request per line, in
    the order served) or a hashed-block trace (Mooncake, AIPerf: `hash_ids` per line) through
    the engine's prefix cache: requests, prompt tokens, cached tokens and hit rate, per
    template or leading text, the ten places where requests lose most to divergence, and
    with --model-config the KV bytes behind the reuse.

    \b
    Example:
      prefixlint replay traffic.jsonl
      prefixlint replay traffic.jsonl --memory 71GiB --model-config openai/gpt-oss-120b
      prefixlint replay conversation_trace.jsonl --cache-tokens 3000000
      prefixlint replay traffic.jsonl --engine sglang --format json
    """
    from prefixlint.engines.profiles import get_profile
    from prefixlint.replay import report
    from prefixlint.replay.driver import replay_log
    from prefixlint.replay.lora import LoraError, lora_key, parse_lora_modules
    from prefixlint.replay.renderer import Renderer
    from prefixlint.replay.simulator import CAPACITY_ENGINES, Choice, ttl_seconds
    from prefixlint.replay.sources import Setup, record_source

    curve = curve or bool(curve_at) or plot_file is not None
    policy = check_options(log, replicas, router, prefill_tps, decode_tps, workers, use_ray, curve)
    if trace_block_size < 1:
        raise click.BadParameter(f"must be a positive number of tokens, not {trace_block_size}",
                                 param_hint="--trace-block-size")
    profile = get_profile(engine, block_size)
    layout = None
    if model_config:
        from prefixlint.kv.layout import kv_layout
        from prefixlint.load.model_config import load_model_config

        layout = kv_layout(load_model_config(model_config, offline=offline)[1], dtype=dtype)
    with _as_click():
        ttl = ttl_seconds(ttl_text, profile)
    if curve and profile.name not in CAPACITY_ENGINES:
        raise click.UsageError(f"--curve needs a capacity model: --engine {profile.name} has none"
                               f" ({' and '.join(CAPACITY_ENGINES)} have)")
    if curve and (cache_tokens is not None or memory is not None):
        raise click.UsageError("--curve simulates every capacity: name capacities with --curve-at, not --cache-tokens/--memory")
    if plot_file is not None:
        from prefixlint.replay.curve_report import check_plot_path

        check_plot_path(plot_file)
    # vLLM's blocks (and a trace's) live until evicted; other engines may expire entries.
    ttl = None if profile.name == "vllm" else (ttl if ttl is not None else profile.ttl) or None
    choice = Choice(log, profile, trace_block_size, cache_tokens, memory, layout, ttl, False if no_overlap else None,
                    curve, curve_at, policy, replicas, seed, (prefill_tps, decode_tps))
    try:
        lora_of = lora_key(parse_lora_modules(lora_modules))
    except LoraError as exc:
        raise click.BadParameter(str(exc), param_hint="--lora-modules") from None
    renderer = Renderer(tokenizer, offline, chat_template, _now(fixed_now(now_text)), lora_of, profile.name)
    source, opened = record_source(log, workers, use_ray, Setup(renderer, trace_block_size, lora_of))
    explaining = explain.Explaining(renderer, per_request, ctx.with_resource(contextlib.ExitStack()), not no_causes)
    with _as_click():
        seen = replay_log(log, choice.make_replay, renderer, strict=strict, trace_block_size=trace_block_size,
                          lora_of=lora_of, progress=_progress, source=source, opened=opened, observe=explaining.hook)
    run, (blocks, capacity_from) = seen.replay, choice.capacities[seen.trace]
    assert run is not None  # replay_log builds one, even for an empty log
    routes = choice.routing.get(seen.trace)
    # The report shows tokens as text (the workers rendered, or the log held token ids only).
    texts = renderer.texts() if not seen.trace and (renderer.used or source is not None) else None
    explaining.total = run.stats.total

    def again(path: str):  # --rewrite: the same replay of another log
        return replay_log(path, choice.make_replay, renderer, strict=strict, trace_block_size=trace_block_size,
                          lora_of=lora_of)

    simulator = routes.main if routes is not None and routes.policy is None else run.cache
    unit = choice.unit(seen.trace)
    for item in seen.bad[: report.BAD_LINES_SHOWN]:
        click.echo(f"prefixlint: warning: {log}:{item.line}: {item.message}", err=True)
    if len(seen.bad) > report.BAD_LINES_SHOWN:
        click.echo(f"prefixlint: warning: … and {len(seen.bad) - report.BAD_LINES_SHOWN} more bad lines", err=True)
    engine_text = f"vllm block pool ({unit}-token blocks of the trace)" if seen.trace else profile.describe()
    setup = report.Setup(
        log=log, tokenizer=texts, engine=profile.name, block_size=unit,
        engine_text=engine_text,
        capacity_tokens=None if blocks is None else blocks * unit * (replicas if routes and routes.side_by_side else 1),
        capacity_from=capacity_from, group_by=seen.group_by, layout=layout, si=si, trace=seen.trace,
        ttl=None if seen.trace else ttl,
    )
    extra = None
    if curve:
        from prefixlint.replay.curve_report import curve_output

        extra = curve_output(simulator, curve_at, layout, plot_file, f"{Path(log).name}: prefix-cache hit rate by capacity", si)
    if routes is not None and routes.policy is not None:
        from prefixlint.replay import router_report

        extra = router_report.outputs(routes, run.stats, blocks, unit)
    if output_format == "json":
        data = report.to_dict(setup, run.stats, seen.bad, simulator.evicted_blocks)
        data.update(explaining.json(log, rewrite_out, again))
        click.echo(json.dumps({**data, **(extra[0] if extra else {})}, indent=2, ensure_ascii=False))
    elif routes is not None and routes.side_by_side and extra:  # the routers' table is the report (--router all)
        click.echo("\n".join([report.to_text(setup, run.stats, seen.bad, simulator.evicted_blocks).split("\n")[0],
                              "", *extra[1]]))
    else:
        text = report.to_text(setup, run.stats, seen.bad, simulator.evicted_blocks, color=ctx.color)
        text += explaining.text(log, rewrite_out, again)
        click.echo("\n".join([text, "", *extra[1]]) if extra else text, color=ctx.color)
    explain.gate(ctx, run.stats.total.hit_rate, fail_under)

