"""LoRA adapters in a replay: `--lora-modules NAME[=PATH][,NAME...]`, vLLM's `serve` spelling.

vLLM 0.33 keys every block of a LoRA request with the adapter (`_gen_lora_extra_hash_keys` in
`vllm/v1/core/kv_cache_utils.py`: the adapter's name and path, an extra key of every block,
before the multimodal keys and the salt), so each adapter has a cache of its own, disjoint from
the base model's; SGLang keys its radix tree by the adapter (`Req.extra_key` from its
`lora_id`, one per loaded adapter). A request whose `model` names an adapter is keyed by
`(name, path)`.
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


def lora_key(modules: dict[str, str | None]) -> Callable[[Any], tuple[str, str | None] | None]:
    """The extra key of a request's blocks from its `model`: `(name, path)`, or None."""
    def key(model: Any) -> tuple[str, str | None] | None:
        return (model, modules[model]) if isinstance(model, str) and model in modules else None
    return key
