"""LoRA adapters in a replay: `--lora-modules NAME[=PATH][,NAME...]`, vLLM's `serve` spelling.

vLLM keys every block of a LoRA request with the adapter (`_gen_lora_extra_hash_keys` in
`vllm/v1/core/kv_cache_utils.py` returns `[request.lora_request.lora_name]`, an extra key of
every block, before the multimodal keys and the salt), so each adapter has a cache of its own,
disjoint from the base model's. A request whose `model` names an adapter is keyed by its name;
the path does not enter the key.
"""

from __future__ import annotations

from typing import Any, Callable


class LoraError(ValueError):
    """A --lora-modules entry that cannot be read."""


def parse_lora_modules(values: tuple[str, ...]) -> dict[str, str | None]:
    """NAME[=PATH] entries, comma-separated, the option repeatable: name -> path (or None)."""
    modules: dict[str, str | None] = {}
    for value in values:
        for entry in value.split(","):
            entry = entry.strip()
            if not entry:
                continue
            name, _, path = entry.partition("=")
            if not name.strip():
                raise LoraError(f"{entry!r}: an adapter needs a name (NAME or NAME=PATH)")
            modules[name.strip()] = path.strip() or None
    return modules


def lora_key(modules: dict[str, str | None]) -> Callable[[Any], str | None]:
    """The extra key of a request's blocks from its `model`: the adapter's name, or None."""
    def key(model: Any) -> str | None:
        return model if isinstance(model, str) and model in modules else None
    return key
