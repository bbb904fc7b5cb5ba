"""Engine profiles as data (engines.toml), and the one rounding rule they all share."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, replace
from functools import lru_cache

from prefixlint.errors import PrefixlintError

DEFAULT_ENGINE = "vllm"


@dataclass(frozen=True)
class EngineProfile:
    name: str
    unit: int
    whole_units_only: bool
    last_token_recomputed: bool
    min_tokens: int
    increment: int
    power_of_two: bool
    block_size_option: bool
    verified: bool
    source: str
    notes: str
    #: Time to live of a cache entry in seconds (0: kept until evicted), refreshed on each hit
    #: or counted from creation; the vendor's words and date in `ttl_source`.
    ttl: float = 0.0
    ttl_refresh: bool = True
    ttl_source: str = ""
    #: SGLang's overlap scheduler runs one more decode step with the last sampled token as
    #: input, so its KV is cached too (`--disable-overlap-schedule` turns it off).
    overlap_stop_token: bool = False
    overlap_source: str = ""
    #: Which request fields turn the cache lookup off, and where the engine does it.
    logprobs_source: str = ""

    def reusable_tokens(self, shared_prefix: int, prompt_tokens: int) -> int:
        """Tokens of a `prompt_tokens`-long request served from cache, given its shared prefix.

        reusable = round_down(min(shared, cap), unit), 0 below the minimum, and above it only
        whole increments (OpenAI: 1024, 1152, 1280, ...).
        """
        usable = min(shared_prefix, prompt_tokens)
        if self.last_token_recomputed:
            usable = min(usable, prompt_tokens - 1)
        if usable <= 0:
            return 0
        if self.whole_units_only and self.unit > 1:
            usable -= usable % self.unit
        if usable < self.min_tokens:
            return 0
        if self.increment > 1:
            usable = self.min_tokens + (usable - self.min_tokens) // self.increment * self.increment
        return usable

    def with_block_size(self, block_size: int | None) -> "EngineProfile":
        if block_size is None:
            return self
        if not self.block_size_option:
            raise PrefixlintError(
                f"--block-size does not apply to {self.name}: it has no cache block to set",
                hint=f"drop --block-size; {self.name} is modelled as {self.describe()}",
            )
        if block_size < 1:
            raise PrefixlintError(f"--block-size must be at least 1, not {block_size}")
        from prefixlint.limits import MAX_BLOCK_TOKENS

        if block_size > MAX_BLOCK_TOKENS:
            raise PrefixlintError(f"--block-size must be at most {MAX_BLOCK_TOKENS:,}, not {block_size:,}")
        if self.power_of_two and block_size & (block_size - 1):
            raise PrefixlintError(
                f"--block-size: {self.name} needs a power-of-two block size (tokens_per_block), not {block_size}"
            )
        return replace(self, unit=block_size)

    def describe(self) -> str:
        if self.unit == 1:
            unit = "token granularity"
        elif self.whole_units_only:
            unit = f"{self.unit}-token blocks"
        else:
            unit = f"{self.unit}-token blocks, partial reuse"
        extras = []
        if self.min_tokens:
            extras.append(f"minimum {self.min_tokens:,}")
        if self.increment > 1:
            extras.append(f"{self.increment}-token steps")
        if not self.verified:
            extras.append("unverified")
        return f"{self.name} ({unit}{', ' + ', '.join(extras) if extras else ''})"


@lru_cache(maxsize=1)
def all_profiles() -> dict[str, EngineProfile]:
    from prefixlint.package_data import package_dir

    text = package_dir("prefixlint.engines").joinpath("engines.toml").read_text(encoding="utf-8")
    return {name: EngineProfile(name=name, **values) for name, values in tomllib.loads(text).items()}


def engine_names() -> str:
    """The profiles' names, in engines.toml's order, for the `--engine` help texts."""
    return ", ".join(all_profiles())


def get_profile(name: str, block_size: int | None = None) -> EngineProfile:
    profiles = all_profiles()
    key = name.strip().lower()
    if key not in profiles:
        raise PrefixlintError(
            f"unknown engine {name!r}", hint=f"choose one of: {', '.join(sorted(profiles))}"
        )
    return profiles[key].with_block_size(block_size)
