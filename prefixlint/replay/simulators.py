"""Simulators of one engine instance, each serving a `Request` at a time (the replay interface)."""

from __future__ import annotations

from prefixlint.errors import PrefixlintError
from prefixlint.match.blockpool import Outcome, VllmPrefixCache
from prefixlint.match.profilecache import ProfilePrefixCache
from prefixlint.match.profiles import EngineProfile
from prefixlint.replay.request import Request


class VllmSimulator:
    """vLLM's block pool (prefixlint.match.blockpool): token requests and hashed-block traces."""

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


class ProfileSimulator:
    """Other engines: an unlimited radix cache and the profile's rounding (token requests only)."""

    def __init__(self, profile: EngineProfile) -> None:
        self.cache = ProfilePrefixCache(profile)

    @property
    def evicted_blocks(self) -> int:
        return self.cache.evicted_blocks

    def serve(self, request: Request) -> Outcome:
        if request.block_ids is not None:
            raise PrefixlintError(f"a hashed-block trace replays on vLLM's block pool, not on {self.cache.profile.name}",
                                  line=request.line, hint="drop --engine (or use --engine vllm)")
        return self.cache.serve(request.prompt, request.generated, request.salt)

    def block_hashes(self, request: Request) -> list[int]:
        unit = self.cache.profile.unit
        return VllmPrefixCache._chain(zip(*[iter([*request.prompt, *request.generated])] * unit), request.salt, None)


def make_simulator(profile: EngineProfile, capacity_blocks: int | None = None,
                   block_size: int | None = None) -> VllmSimulator | ProfileSimulator:
    """One engine instance. `block_size` overrides the profile's (a trace's block size)."""
    if profile.name == "vllm" or block_size is not None:
        return VllmSimulator(block_size or profile.unit, capacity_blocks)
    return ProfileSimulator(profile)
