"""KV-cache arithmetic from a model's config.json: bytes per token, fixed state, what fits.

Full attention keeps, per token and layer, a key and a value vector for each KV head:
    2 x num_key_value_heads x head_dim x bytes per value
Layers that keep less are summed separately:
- sliding-window layers keep at most `sliding_window` tokens: a fixed amount per
  conversation once the window is full;
- latent attention (DeepSeek/Kimi MLA, `kv_lora_rank`) keeps one compressed vector of
  `kv_lora_rank + qk_rope_head_dim` numbers per token and layer (no factor 2, no heads);
- linear-attention (Qwen3-Next Gated DeltaNet) and Mamba layers keep a fixed state per
  conversation (recurrent state + convolution window), whatever its length.
`naive=True` counts every layer as full attention, as an engine that allocates sliding
layers like full ones does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from prefixlint.errors import PrefixlintError
from prefixlint.limits import bounded_int

DTYPE_BYTES = {"fp32": 4, "bf16": 2, "fp16": 2, "fp8": 1, "int8": 1}
_CONFIG_DTYPES = {
    "float32": "fp32", "float": "fp32", "bfloat16": "bf16", "float16": "fp16", "half": "fp16",
    "float8_e4m3fn": "fp8", "float8_e5m2": "fp8", "fp8": "fp8",
}
DEFAULT_CONTEXTS = (4096, 8192, 32768, 131072)
#: More layers than any model has (the largest have a few hundred): a config.json beyond it is
#: refused before a list of its layer kinds is made.
MAX_LAYERS = 100_000


@dataclass(frozen=True)
class LayerGroup:
    """Layers of one kind and what each keeps: per token, and fixed per conversation."""

    kind: str  # full, sliding, latent, linear, mamba
    layers: int
    per_token: int = 0  # bytes per token per layer (attention kinds)
    window: int | None = None  # sliding layers: tokens kept at most
    state: int = 0  # bytes per conversation per layer (linear, mamba)

    def bytes_at(self, tokens: int) -> int:
        if self.kind == "sliding":
            return self.layers * self.per_token * min(tokens, self.window or tokens)
        return self.layers * (self.per_token * tokens + self.state)


@dataclass(frozen=True)
class KVLayout:
    dtype: str
    groups: tuple[LayerGroup, ...]

    @property
    def bytes_per_token(self) -> int:
        """Bytes that grow with every token of a conversation (full and latent layers)."""
        return sum(g.layers * g.per_token for g in self.groups if g.kind in ("full", "latent"))

    @property
    def fixed_bytes(self) -> int:
        """Bytes per conversation that stop growing: full sliding windows and recurrent states."""
        return sum(g.bytes_at(g.window or 0) if g.kind == "sliding" else g.layers * g.state
                   for g in self.groups)

    def bytes_at(self, tokens: int) -> int:
        """The cache of one conversation `tokens` long."""
        return sum(g.bytes_at(tokens) for g in self.groups)

    def conversations_fit(self, memory: int, tokens: int, *, growing_only: bool = False) -> int:
        need = self.bytes_per_token * tokens if growing_only else self.bytes_at(tokens)
        return memory // need if need else 0


def _text_config(config: dict[str, Any]) -> dict[str, Any]:
    """Multimodal configs (Llama 4, Gemma 3, Mistral 3) keep the language model in text_config."""
    inner = config.get("text_config")
    if "num_hidden_layers" not in config and isinstance(inner, dict):
        return {**config, **inner}
    return config


def _get(config: dict[str, Any], *names: str, default: Any = None) -> Any:
    for name in names:
        value = config.get(name)
        if value is not None:
            return value
    return default


def _int(config: dict[str, Any], *names: str, default: int | None = None) -> int:
    value = _get(config, *names, default=default)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        if value is None:
            raise PrefixlintError(f"config.json has no {names[0]}")
        raise PrefixlintError(f"config.json: {names[0]} must be a non-negative integer, not {value!r}")
    return value


def config_dtype(config: dict[str, Any]) -> str:
    name = _get(_text_config(config), "torch_dtype", "dtype", default="bfloat16")
    return _CONFIG_DTYPES.get(str(name).lower().removeprefix("torch."), "bf16")


def _layer_kinds(config: dict[str, Any], layers: int) -> list[str]:
    """One of full / sliding / linear / mamba / none for each layer."""
    if isinstance(config.get("layer_types"), list):
        kinds = [_kind(str(t)) for t in config["layer_types"]]
    elif isinstance(config.get("layers_block_type"), list):  # Jamba
        kinds = [_kind(str(t)) for t in config["layers_block_type"]]
    elif isinstance(config.get("hybrid_override_pattern"), str):  # Nemotron-H: M mamba, * attention
        kinds = [{"M": "mamba", "*": "full"}.get(c, "none") for c in config["hybrid_override_pattern"]]
    elif config.get("sliding_window") and config.get("use_sliding_window", True) is not False:
        pattern = config.get("sliding_window_pattern")  # Gemma 3: every Nth layer is global
        if isinstance(pattern, int) and pattern > 0:
            kinds = ["full" if (i + 1) % pattern == 0 else "sliding" for i in range(layers)]
        else:  # Mistral 7B v0.1: every layer slides
            kinds = ["sliding"] * layers
    else:
        kinds = ["full"] * layers
    if len(kinds) != layers:
        raise PrefixlintError(f"config.json lists {len(kinds)} layer types for {layers} layers")
    return kinds


def _kind(name: str) -> str:
    key = name.lower()
    for needle, kind in (("sliding", "sliding"), ("linear", "linear"), ("mamba", "mamba"),
                         ("full", "full"), ("attention", "full")):
        if needle in key:
            return kind
    raise PrefixlintError(f"config.json: unknown layer type {name!r}",
                          hint="known: full_attention, sliding_attention, linear_attention, mamba")


def _linear_state(config: dict[str, Any], size: int) -> int:
    """Gated DeltaNet (Qwen3-Next): recurrent state v_heads x k_dim x v_dim, plus conv window."""
    v_heads = _int(config, "linear_num_value_heads")
    k_heads = _int(config, "linear_num_key_heads")
    k_dim = _int(config, "linear_key_head_dim")
    v_dim = _int(config, "linear_value_head_dim")
    kernel = _int(config, "linear_conv_kernel_dim", default=4)
    conv = (kernel - 1) * (2 * k_heads * k_dim + v_heads * v_dim)
    return (v_heads * k_dim * v_dim + conv) * size


def _mamba_state(config: dict[str, Any], size: int) -> int:
    """Mamba-2 (heads x head_dim x state, conv over x, B, C) or Mamba-1 (d_inner x state)."""
    state = _int(config, "mamba_d_state", "ssm_state_size", "state_size", default=16)
    kernel = _int(config, "mamba_d_conv", "conv_kernel", "mamba_conv_kernel", default=4)
    heads = _get(config, "mamba_n_heads", "mamba_num_heads")
    if heads is not None:
        head_dim = _int(config, "mamba_d_head", "mamba_head_dim", "head_dim")
        groups = _int(config, "mamba_n_groups", "n_groups", default=1)
        inner = heads * head_dim
        return (inner * state + (kernel - 1) * (inner + 2 * groups * state)) * size
    inner = _int(config, "mamba_expand", "expand", default=2) * _int(config, "hidden_size")
    return (inner * state + (kernel - 1) * inner) * size


def kv_layout(config: dict[str, Any], *, dtype: str | None = None, naive: bool = False) -> KVLayout:
    """What each layer of the model described by `config` (a config.json dict) keeps."""
    config = _text_config(config)
    dtype = dtype or config_dtype(config)
    if dtype not in DTYPE_BYTES:
        raise PrefixlintError(f"unknown dtype {dtype!r}", hint=f"choose one of: {', '.join(DTYPE_BYTES)}")
    size = DTYPE_BYTES[dtype]
    layers = _int(config, "num_hidden_layers", "n_layer", "num_layers")
    if layers > MAX_LAYERS:
        raise PrefixlintError(f"config.json: {layers:,} layers is not a model (the limit is {MAX_LAYERS:,})")
    heads = _int(config, "num_attention_heads", "n_head")
    if heads == 0:
        raise PrefixlintError("config.json: num_attention_heads is 0")
    kv_heads = _int(config, "num_key_value_heads", "num_kv_heads", default=heads)
    head_dim = _int(config, "head_dim") if _get(config, "head_dim") else _int(config, "hidden_size", "n_embd") // heads
    if config.get("kv_lora_rank"):  # multi-head latent attention: one shared compressed vector
        latent = (_int(config, "kv_lora_rank") + _int(config, "qk_rope_head_dim")) * size
        return KVLayout(dtype, (LayerGroup("latent", layers, per_token=latent),))
    per_token = 2 * kv_heads * head_dim * size
    kinds = ["full"] * layers if naive else _layer_kinds(config, layers)
    groups: list[LayerGroup] = []
    for kind in ("full", "sliding", "linear", "mamba"):
        count = kinds.count(kind)
        if not count:
            continue
        if kind == "full":
            groups.append(LayerGroup(kind, count, per_token=per_token))
        elif kind == "sliding":
            groups.append(LayerGroup(kind, count, per_token=per_token, window=_int(config, "sliding_window")))
        elif kind == "linear":
            groups.append(LayerGroup(kind, count, state=_linear_state(config, size)))
        else:
            groups.append(LayerGroup(kind, count, state=_mamba_state(config, size)))
    return KVLayout(dtype, tuple(groups))


_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT]i?B?|B)?\s*$", re.IGNORECASE)
_POWERS = {"": 0, "K": 1, "M": 2, "G": 3, "T": 4}


def parse_bytes(text: str) -> int:
    """`71GiB` -> 76235669504, `80GB` -> 80000000000 (1000s), `512` -> 512 bytes."""
    match = _SIZE.match(text)
    if not match:
        raise PrefixlintError(f"not a size: {text!r}", hint="write it like 71GiB, 80GB or 512MiB")
    bounded_int(match.group(1).partition(".")[0])  # 400 digits overflow a float
    number, unit = float(match.group(1)), (match.group(2) or "").upper()
    prefix = unit[:1] if unit[:1] in "KMGT" else ""
    base = 1024 if "I" in unit else 1000
    return int(number * base ** _POWERS[prefix])


def parse_tokens(text: str) -> int:
    """`4K` -> 4096, `128k` -> 131072, `1M` -> 1048576, `32768` -> 32768 (K = 1024 tokens)."""
    match = re.match(r"^\s*([0-9]+)\s*([kKmM]?)\s*$", text)
    if not match or bounded_int(match.group(1)) == 0:
        raise PrefixlintError(f"not a context length: {text!r}", hint="write it like 4K, 128K or 32768")
    return bounded_int(match.group(1)) * {"": 1, "K": 1024, "M": 1024 * 1024}[match.group(2).upper()]


def format_bytes(value: float, *, si: bool = False) -> str:
    """Binary units by default (`36 KiB`, `4.5 MiB`), SI with `si` (`10.7 GB`): one decimal."""
    base, units = (1000, ("B", "kB", "MB", "GB", "TB")) if si else (1024, ("B", "KiB", "MiB", "GiB", "TiB"))
    index = 0
    while abs(value) >= base and index < len(units) - 1:
        value /= base
        index += 1
    text = f"{value:.1f}".removesuffix(".0")
    return f"{text} {units[index]}"


def format_tokens(value: int) -> str:
    for size, suffix in ((1024 * 1024, "M"), (1024, "K")):
        if value % size == 0:
            return f"{value // size}{suffix}"
    return f"{value:,}"
