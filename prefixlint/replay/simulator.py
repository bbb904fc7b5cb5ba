"""The engine a replay's options describe: its capacity (`--cache-tokens`, `--memory`), its time to
live (`--ttl`), and the simulator built at the first request of the log, a hashed-block trace's
or a request log's (`Choice.make_replay`): one cache, replicas behind a router, or a curve.

No click here: an option that does not fit is an `OptionError`, which `commands/replay.py`
reports as click reports a bad option."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prefixlint.engines.profiles import EngineProfile
from prefixlint.errors import PrefixlintError
from prefixlint.replay.tally import Replay

#: Engines whose memory is modelled (a capacity, --cache-tokens / --memory).
CAPACITY_ENGINES = ("vllm", "sglang")


class OptionError(Exception):
    """An option that does not fit the log or the engine: a usage error, or a bad value of the
    option `param` (click's BadParameter) when it is named."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.message, self.param = message, param


def _bounded_blocks(blocks: int, option: str) -> int:
    """The pool is allocated up front: more blocks than MAX_CACHE_BLOCKS is refused, not allocated."""
    from prefixlint.limits import MAX_CACHE_BLOCKS

    if blocks > MAX_CACHE_BLOCKS:
        raise OptionError(f"{option} gives {blocks:,} cache blocks, more than the {MAX_CACHE_BLOCKS:,} this"
                          " replay models; leave it out to replay an unlimited cache")
    return blocks


def capacity(engine: str, block_size: int, cache_tokens: int | None, memory: str | None,
             layout: Any) -> tuple[int | None, str]:
    """Usable cache blocks and where the number came from; None: unlimited."""
    from prefixlint.kv.layout import format_bytes, parse_bytes

    if cache_tokens is not None and memory is not None:
        raise OptionError("give --cache-tokens or --memory, not both")
    if (cache_tokens is not None or memory is not None) and engine not in CAPACITY_ENGINES:
        raise OptionError(f"a cache capacity is modelled for --engine {' and '.join(CAPACITY_ENGINES)} only;"
                          " other engines replay unlimited")
    if cache_tokens is not None:
        if cache_tokens < block_size:
            raise OptionError(f"--cache-tokens must hold at least one block ({block_size} tokens)")
        return _bounded_blocks(cache_tokens // block_size, "--cache-tokens"), "--cache-tokens"
    if memory is None:
        return None, "unlimited"
    if layout is None:
        raise OptionError("--memory needs --model-config (the bytes per token come from it)")
    size = parse_bytes(memory)
    if not layout.bytes_per_token:
        raise PrefixlintError("this model's cache does not grow with tokens: --memory cannot size blocks")
    # vLLM: num_gpu_blocks = memory // page size of all layers; block 0 is the null block.
    blocks = size // (block_size * layout.bytes_per_token) - 1
    if blocks < 1:
        raise PrefixlintError(f"--memory {memory} holds no {block_size}-token block of this model")
    where = f"--memory {format_bytes(size)} / {format_bytes(layout.bytes_per_token)} per token"
    return _bounded_blocks(blocks, "--memory"), where


def ttl_seconds(text: str | None, profile: EngineProfile) -> float | None:
    """Seconds from --ttl (None: the engine's default); only radix-tree engines expire entries."""
    if text is None:
        return None
    from prefixlint.replay.ttl import parse_duration

    seconds = parse_duration(text)
    if seconds is None:
        raise OptionError(f"{text!r} is not a duration like 300s, 5m or 1h", "--ttl")
    if seconds and profile.name == "vllm":
        raise OptionError("--ttl: vLLM keeps blocks until they are evicted; a time to live is modelled"
                          " for the other engines (API caches, sglang)")
    return seconds


@dataclass
class Choice:
    """The simulator the options name. `ttl`: seconds (None: none); `overlap`: SGLang's overlap
    scheduler (None: the profile's); `tps`: prefill and decode speed of the router's model."""

    log: str
    profile: EngineProfile
    trace_block_size: int
    cache_tokens: int | None = None
    memory: str | None = None
    layout: Any = None
    ttl: float | None = None
    overlap: bool | None = None
    curve: bool = False
    curve_at: tuple[int, ...] = ()
    policy: str | None = None
    replicas: int = 1
    seed: int = 0
    tps: tuple[float, float] = (0.0, 0.0)
    #: Built by `make_replay`, by whether the log is a trace: (blocks, where that came from).
    capacities: dict[bool, tuple[int | None, str]] = field(default_factory=dict)
    #: ... and the router (`prefixlint.replay.routed.Routing`) when not a curve.
    routing: dict[bool, Any] = field(default_factory=dict)

    def unit(self, trace: bool) -> int:
        return self.trace_block_size if trace else self.profile.unit

    def make_replay(self, trace: bool) -> Replay:
        from prefixlint.engines.simulators import make_simulator
        from prefixlint.replay.routed import build

        profile = self.profile
        if trace and profile.name != "vllm":
            raise PrefixlintError(f"a hashed-block trace replays on vLLM's block pool (LRU); --engine {profile.name}"
                                  " does not apply to it", path=self.log, hint="drop --engine")
        unit = self.unit(trace)
        self.capacities[trace] = capacity(profile.name, unit, self.cache_tokens, self.memory, self.layout)
        if any(n < unit for n in self.curve_at):
            raise OptionError(f"every capacity must hold one block ({unit} tokens)", "--curve-at")
        if self.curve and (trace or profile.name == "vllm"):
            from prefixlint.engines.curve import CurveSimulator

            return Replay(CurveSimulator(unit, self.curve_at))
        if self.curve:
            from prefixlint.engines.radix_curve import RadixCurve

            return Replay(RadixCurve(profile, self.ttl or 0, self.overlap, self.curve_at))
        trace_size = self.trace_block_size if trace else None
        self.routing[trace] = build(self.policy, self.replicas, self.seed, self.tps, unit, self.capacities[trace][0],
                                    lambda blocks: make_simulator(profile, blocks, trace_size, self.ttl or 0, self.overlap))
        routing = self.routing[trace]
        return Replay(routing.main if routing.policy is None else routing)  # one cache: served directly
