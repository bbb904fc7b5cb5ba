"""Simulators of one engine instance, each serving a `Request` at a time (the replay interface)."""

from __future__ import annotations

from prefixlint.engines.base import Outcome
from prefixlint.engines.blockpool import VllmPrefixCache
from prefixlint.engines.profiles import EngineProfile
from prefixlint.engines.request import Request
from prefixlint.errors import PrefixlintError


class VllmSimulator:
    """vLLM's block pool (prefixlint.engines.blockpool): token requests and hashed-block traces."""

    def __init__(self, block_size: int, capacity_blocks: int | None = None) -> None:
        self.pool = VllmPrefixCache(block_size, capacity_blocks)

    @property
    def evicted_blocks(self) -> int:
        return self.pool.evicted_blocks

    def serve(self, request: Request) -> Outcome:
        pool = self.pool
        if request.block_ids is not None:
            return pool.serve_blocks(request.block_ids, request.prompt_tokens, request.output_length,
                                     request.salt, request.lora)
        return pool.serve(request.prompt, request.generated, request.salt, request.lora, request.skip_lookup)

    def block_hashes(self, request: Request) -> list[int]:
        pool = self.pool
        if request.block_ids is not None:
            return pool._chain(request.block_ids, request.salt, request.lora)
        return pool._hashes([*request.prompt, *request.generated], request.salt, request.lora)


class RadixSimulator:
    """Other engines: a radix tree with the profile's rounding (prefixlint.engines.radix); SGLang's
    pool size and LRU leaf eviction with a capacity, and a time to live for API caches."""

    def __init__(self, profile: EngineProfile, capacity_tokens: int | None = None, ttl: float | None = None,
                 overlap: bool | None = None) -> None:
        from prefixlint.engines.radix import RadixLRU  # not imported for vLLM

        self.cache = RadixLRU(profile, capacity_tokens, ttl or None, profile.ttl_refresh)
        self.overlap = profile.overlap_stop_token if overlap is None else overlap

    @property
    def evicted_blocks(self) -> int:
        return self.cache.evicted_blocks

    def serve(self, request: Request) -> Outcome:
        if request.block_ids is not None:
            raise PrefixlintError(f"a hashed-block trace replays on vLLM's block pool, not on {self.cache.profile.name}",
                                  line=request.line, hint="drop --engine (or use --engine vllm)")
        seq = [*request.prompt, *request.generated]
        if self.overlap and request.last_sampled is not None and request.finish_reason != "length":
            seq.append(request.last_sampled)
        extra = request.salt if request.lora is None else (request.salt, request.lora)
        return self.cache.serve(request.prompt, seq, extra, request.timestamp,
                                0 if request.skip_lookup else None)

    def block_hashes(self, request: Request) -> list[int]:
        unit = self.cache.profile.unit
        return VllmPrefixCache._chain(zip(*[iter([*request.prompt, *request.generated])] * unit), request.salt, None)


def skips_lookup(body: dict, engine: str) -> bool:
    """Whether the engine serves this request without looking its prompt up (engines.toml
    `logprobs_source`): vLLM for prompt logprobs, SGLang for echoed completions logprobs."""
    if engine == "vllm":
        return body.get("prompt_logprobs") is not None or body.get("skip_reading_prefix_cache") is True
    if engine == "sglang":
        logprobs = body.get("logprobs")
        return "prompt" in body and body.get("echo") is True and type(logprobs) is int and logprobs >= 1
    return False


def make_simulator(profile: EngineProfile, capacity_blocks: int | None = None, block_size: int | None = None,
                   ttl: float | None = None, overlap: bool | None = None) -> VllmSimulator | RadixSimulator:
    """One engine instance. `block_size` overrides the profile's (a trace's block size);
    `ttl` seconds (None: the profile's, 0: none); `overlap`: SGLang's overlap scheduler."""
    if profile.name == "vllm" or block_size is not None:
        return VllmSimulator(block_size or profile.unit, capacity_blocks)
    capacity = None if capacity_blocks is None else capacity_blocks * profile.unit
    return RadixSimulator(profile, capacity, profile.ttl if ttl is None else ttl, overlap)
