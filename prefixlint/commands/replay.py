"""`prefixlint replay`: the prefix-cache hit rate of a request log, and the KV memory behind it."""

from __future__ import annotations

import contextlib
import json
import sys
from dataclasses import replace
from pathlib import Path

import click

from prefixlint.commands import replay_explain as explain
from prefixlint.commands.kv import dtype_option
from prefixlint.commands.options import engine_options, format_option, tokenizer_options
from prefixlint.commands.replay_explain import explain_options
from prefixlint.errors import PrefixlintError
from prefixlint.replay.options import parallel_options, router_options, token_list
from prefixlint.tokenize.base import Tokenizer

#: Logs larger than this get a progress bar (when standard error is a terminal).
PROGRESS_BYTES = 4 * 1024 * 1024
#: Engines whose memory is modelled (a capacity, --cache-tokens / --memory).
CAPACITY_ENGINES = ("vllm", "sglang")
#: Mooncake's FAST'25 traces hash blocks of 512 tokens.
TRACE_BLOCK_SIZE = 512


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
    if (cache_tokens is not None or memory is not None) and engine not in CAPACITY_ENGINES:
        raise click.UsageError(f"a cache capacity is modelled for --engine {' and '.join(CAPACITY_ENGINES)} only;"
                               " other engines replay unlimited")
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
    bounded = _bounded_blocks(blocks, "--memory")
    return bounded, f"--memory {format_bytes(size)} / {format_bytes(layout.bytes_per_token)} per token"


def _chat_settings(tokenizer, chat_template_path, now_text):
    """The chat template resolved once: (settings, the error to raise at the first chat line)."""
    from datetime import datetime

    from prefixlint.render.templates import read_chat_template, resolve_chat_template
    from prefixlint.replay.prepare import ChatSettings
    from prefixlint.replay.requestlog import parse_timestamp

    now = datetime.now() if now_text is None else parse_timestamp(now_text)
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


def _ttl(text, profile) -> float | None:
    """Seconds from --ttl (None: the engine's default); only radix-tree engines expire entries."""
    if text is None:
        return None
    from prefixlint.replay.ttl import parse_duration

    seconds = parse_duration(text)
    if seconds is None:
        raise click.BadParameter(f"{text!r} is not a duration like 300s, 5m or 1h", param_hint="--ttl")
    if seconds and profile.name == "vllm":
        raise click.UsageError("--ttl: vLLM keeps blocks until they are evicted; a time to live is modelled"
                               " for the other engines (API caches, sglang)")
    return seconds


class _Renderer:
    """Renders logged requests; the tokenizer is loaded at the first one (a trace needs none)."""

    def __init__(self, tokenizer_name, offline, chat_template, now_text, lora_of, engine) -> None:
        self.args = (tokenizer_name, offline, chat_template, now_text)
        self.tokenizer: Tokenizer | None = None
        self.lora_of, self.engine = lora_of, engine

    def load(self) -> Tokenizer:
        from prefixlint.tokenize import load_tokenizer

        name, offline, chat_template, now_text = self.args
        self.tokenizer = load_tokenizer(name, offline=offline)
        self.settings, self.template_error = _chat_settings(self.tokenizer, chat_template, now_text)
        return self.tokenizer

    def __call__(self, item):
        from prefixlint.replay.prepare import prepare
        from prefixlint.replay.run import Fatal

        tokenizer = self.tokenizer if self.tokenizer is not None else self.load()
        if item.is_chat and self.template_error is not None:
            raise Fatal(self.template_error)
        from prefixlint.engines.simulators import skips_lookup

        request = prepare(item, tokenizer, self.settings)
        lora, skip = self.lora_of(item.body.get("model")), skips_lookup(item.body, self.engine)
        return request if lora is None and not skip else replace(request, lora=lora, skip_lookup=skip)


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
    from prefixlint.engines.simulators import make_simulator
    from prefixlint.kv.layout import kv_layout
    from prefixlint.load.model_config import load_model_config
    from prefixlint.replay import report, router_report
    from prefixlint.replay.driver import Replay
    from prefixlint.replay.lora import LoraError, lora_key, parse_lora_modules
    from prefixlint.replay.options import check_options, fixed_now
    from prefixlint.replay.routed import build
    from prefixlint.replay.run import replay_log
    from prefixlint.replay.sources import Setup, record_source

    curve = curve or bool(curve_at) or plot_file is not None
    policy = check_options(log, replicas, router, prefill_tps, decode_tps, workers, use_ray, curve)
    if trace_block_size < 1:
        raise click.BadParameter(f"must be a positive number of tokens, not {trace_block_size}",
                                 param_hint="--trace-block-size")
    profile = get_profile(engine, block_size)
    layout = None
    if model_config:
        layout = kv_layout(load_model_config(model_config, offline=offline)[1], dtype=dtype)
    ttl_seconds = _ttl(ttl_text, profile)
    if curve and profile.name not in CAPACITY_ENGINES:
        raise click.UsageError(f"--curve needs a capacity model: --engine {profile.name} has none"
                               f" ({' and '.join(CAPACITY_ENGINES)} have)")
    if curve and (cache_tokens is not None or memory is not None):
        raise click.UsageError("--curve simulates every capacity: name capacities with --curve-at, not --cache-tokens/--memory")
    if plot_file is not None:
        from prefixlint.replay.curve_report import check_plot_path

        check_plot_path(plot_file)
    # vLLM's blocks (and a trace's) live until evicted; other engines may expire entries.
    ttl_seconds = None if profile.name == "vllm" else (ttl_seconds if ttl_seconds is not None else profile.ttl) or None
    overlap = False if no_overlap else None
    capacities, routing = {}, {}

    def make_replay(trace: bool) -> Replay:
        if trace and profile.name != "vllm":
            raise PrefixlintError(f"a hashed-block trace replays on vLLM's block pool (LRU); --engine {profile.name}"
                                  " does not apply to it", path=log, hint="drop --engine")
        unit = trace_block_size if trace else profile.unit
        capacities[trace] = _capacity(profile.name, unit, cache_tokens, memory, layout)
        if any(n < unit for n in curve_at):
            raise click.BadParameter(f"every capacity must hold one block ({unit} tokens)", param_hint="--curve-at")
        if curve and (trace or profile.name == "vllm"):
            from prefixlint.engines.curve import CurveSimulator

            return Replay(CurveSimulator(unit, curve_at))
        if curve:
            from prefixlint.engines.radix_curve import RadixCurve

            return Replay(RadixCurve(profile, ttl_seconds or 0, overlap, curve_at))
        routing[trace] = build(policy, replicas, seed, (prefill_tps, decode_tps), unit, capacities[trace][0],
                               lambda blocks: make_simulator(profile, blocks, trace_block_size if trace else None,
                                                             ttl_seconds or 0, overlap))
        return Replay(routing[trace])

    try:
        lora_of = lora_key(parse_lora_modules(lora_modules))
    except LoraError as exc:
        raise click.BadParameter(str(exc), param_hint="--lora-modules") from None
    renderer = _Renderer(tokenizer, offline, chat_template, fixed_now(now_text), lora_of, profile.name)
    source, opened = record_source(log, workers, use_ray, Setup(renderer, trace_block_size, lora_of))
    explaining = explain.Explaining(renderer, per_request, ctx.with_resource(contextlib.ExitStack()), not no_causes)
    seen = replay_log(log, make_replay, renderer, strict=strict, trace_block_size=trace_block_size,
                      lora_of=lora_of, progress=_progress, source=source, opened=opened, observe=explaining.hook)
    run, (blocks, capacity_from) = seen.replay, capacities[seen.trace]
    assert run is not None  # replay_log builds one, even for an empty log
    routes = routing.get(seen.trace)
    if source is not None and not seen.trace and renderer.tokenizer is None:
        renderer.load()  # the workers rendered; the report shows tokens as text
    explaining.total = run.stats.total

    def again(path: str):  # --rewrite: the same replay of another log
        return replay_log(path, make_replay, renderer, strict=strict, trace_block_size=trace_block_size, lora_of=lora_of)

    simulator = routes.main if routes is not None and routes.policy is None else run.cache
    unit = trace_block_size if seen.trace else profile.unit
    for item in seen.bad[: report.BAD_LINES_SHOWN]:
        click.echo(f"prefixlint: warning: {log}:{item.line}: {item.message}", err=True)
    if len(seen.bad) > report.BAD_LINES_SHOWN:
        click.echo(f"prefixlint: warning: … and {len(seen.bad) - report.BAD_LINES_SHOWN} more bad lines", err=True)
    engine_text = f"vllm block pool ({unit}-token blocks of the trace)" if seen.trace else profile.describe()
    setup = report.Setup(
        log=log, tokenizer=renderer.tokenizer, engine=profile.name, block_size=unit,
        engine_text=engine_text,
        capacity_tokens=None if blocks is None else blocks * unit * (replicas if routes and routes.side_by_side else 1),
        capacity_from=capacity_from, group_by=seen.group_by, layout=layout, si=si, trace=seen.trace,
        ttl=None if seen.trace else ttl_seconds,
    )
    extra = None
    if curve:
        from prefixlint.replay.curve_report import curve_output

        extra = curve_output(simulator, curve_at, layout, plot_file, f"{Path(log).name}: prefix-cache hit rate by capacity", si)
    if routes is not None and routes.policy is not None:
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

