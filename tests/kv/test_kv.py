"""`prefixlint kv` against published figures, with config.json files written from the published
architecture numbers of each model."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.errors import PrefixlintError
from prefixlint.kv.layout import format_bytes, kv_layout, parse_bytes, parse_tokens
from tests.realfiles import hub_cache

KiB, MiB, GiB = 1024, 1024**2, 1024**3

GPT_OSS_120B = {  # 36 layers, 8 KV heads of 64, sliding and full layers alternate, window 128
    "model_type": "gpt_oss", "num_hidden_layers": 36, "num_attention_heads": 64,
    "num_key_value_heads": 8, "head_dim": 64, "hidden_size": 2880, "sliding_window": 128,
    "torch_dtype": "bfloat16",
    "layer_types": ["sliding_attention", "full_attention"] * 18,
}
LLAMA_33_70B = {"num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
                "hidden_size": 8192, "torch_dtype": "bfloat16"}  # head size 8192 / 64 = 128
LLAMA_31_8B = {"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8,
               "hidden_size": 4096, "torch_dtype": "bfloat16"}
OPT_13B = {"num_hidden_layers": 40, "num_attention_heads": 40, "hidden_size": 5120,
           "torch_dtype": "float16"}  # no num_key_value_heads: every head keeps K and V


def run_kv(tmp_path, config, *args):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    result = CliRunner().invoke(cli, ["kv", str(path), *args])
    return result


def test_gpt_oss_120b_naive_and_with_windows():
    naive = kv_layout(GPT_OSS_120B, naive=True)
    windowed = kv_layout(GPT_OSS_120B)
    assert naive.bytes_per_token == 72 * KiB and naive.fixed_bytes == 0
    assert windowed.bytes_per_token == 36 * KiB
    assert windowed.fixed_bytes == 4.5 * MiB  # 18 layers x 128 tokens x 2 KiB
    # Short of the window the sliding layers hold only what was seen.
    assert windowed.bytes_at(100) == 100 * 36 * KiB + 18 * 100 * 2 * KiB


def test_gpt_oss_120b_conversations_in_71_gib(tmp_path):
    result = run_kv(tmp_path, GPT_OSS_120B, "--memory", "71GiB", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["bytes_per_token"] == 36 * KiB and data["fixed_bytes"] == 4.5 * MiB
    contexts = data["contexts"]
    assert [c["tokens"] for c in contexts] == [4096, 8192, 32768, 131072]
    # The published figures count the growing part alone ...
    assert [c["conversations_fit_growing_only"] for c in contexts] == [504, 252, 63, 15]
    # ... and with the fixed 4.5 MiB of each conversation's windows: 71 GiB // (36 KiB x n + 4.5 MiB).
    assert [c["conversations_fit"] for c in contexts] == [489, 248, 62, 15]
    assert [c["conversations_fit"] for c in contexts] == [
        int(71 * GiB // (36 * KiB * n + 4.5 * MiB)) for n in (4096, 8192, 32768, 131072)]


def test_gpt_oss_text_output_says_what_each_count_counts(tmp_path):
    result = run_kv(tmp_path, GPT_OSS_120B, "--memory", "71GiB")
    assert result.exit_code == 0, result.output
    assert "36 KiB per token (36,864 bytes)" in result.output
    assert "4.5 MiB per conversation" in result.output
    assert "72 KiB per token" in result.output
    row = next(line for line in result.output.splitlines() if line.startswith("4K tokens"))
    assert row.split()[-2:] == ["489", "504"]
    assert "growing part and fixed part" in result.output


def test_llama_33_70b_at_32k_tokens(tmp_path):
    layout = kv_layout(LLAMA_33_70B)
    assert layout.bytes_per_token == 327_680 == 2 * 80 * 8 * 128 * 2
    assert layout.bytes_at(32_768) == 10_737_418_240
    result = run_kv(tmp_path, LLAMA_33_70B, "--context", "32768", "--si")
    assert "10.7 GB" in result.output
    assert "320 kB" not in result.output and "327.7 kB per token" in result.output


def test_llama_31_8b_at_128k_fp16_and_8_bit(tmp_path):
    assert kv_layout(LLAMA_31_8B, dtype="fp16").bytes_at(131_072) == 2 * 32 * 8 * 128 * 2 * 131_072
    for dtype, shown in (("fp16", "17.2 GB"), ("fp8", "8.6 GB")):
        result = run_kv(tmp_path, LLAMA_31_8B, "--context", "128K", "--dtype", dtype, "--si")
        assert result.exit_code == 0, result.output
        row = next(line for line in result.output.splitlines() if line.startswith("128K tokens"))
        assert shown in row


def test_opt_13b_has_no_grouped_kv_heads():
    assert kv_layout(OPT_13B).bytes_per_token == 819_200
    assert kv_layout(OPT_13B).dtype == "fp16"


def test_latent_attention_keeps_one_compressed_vector():
    deepseek_v3 = {"num_hidden_layers": 61, "num_attention_heads": 128, "num_key_value_heads": 128,
                   "hidden_size": 7168, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                   "torch_dtype": "bfloat16"}
    assert kv_layout(deepseek_v3).bytes_per_token == 61 * (512 + 64) * 2  # 70,272


def test_linear_attention_and_mamba_layers_keep_a_fixed_state():
    qwen3_next = {"num_hidden_layers": 4, "num_attention_heads": 16, "num_key_value_heads": 2,
                  "head_dim": 256, "hidden_size": 2048, "torch_dtype": "bfloat16",
                  "layer_types": ["linear_attention"] * 3 + ["full_attention"],
                  "linear_num_value_heads": 32, "linear_num_key_heads": 16,
                  "linear_key_head_dim": 128, "linear_value_head_dim": 128, "linear_conv_kernel_dim": 4}
    layout = kv_layout(qwen3_next)
    assert layout.bytes_per_token == 1 * 2 * 2 * 256 * 2
    state = 32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)
    assert layout.fixed_bytes == 3 * state * 2
    assert layout.bytes_at(10) - layout.bytes_at(5) == 5 * layout.bytes_per_token
    jamba = {"num_hidden_layers": 2, "num_attention_heads": 32, "num_key_value_heads": 8,
             "hidden_size": 4096, "layers_block_type": ["mamba", "attention"],
             "mamba_d_state": 16, "mamba_d_conv": 4, "mamba_expand": 2}
    inner = 2 * 4096
    assert kv_layout(jamba).fixed_bytes == (inner * 16 + 3 * inner) * 2


def test_units_and_sizes():
    assert parse_bytes("71GiB") == 71 * GiB
    assert parse_bytes("80GB") == 80 * 10**9
    assert parse_bytes("512") == 512
    assert [parse_tokens(t) for t in ("4K", "128k", "32768", "1M")] == [4096, 131072, 32768, 1024**2]
    assert format_bytes(36 * KiB) == "36 KiB" and format_bytes(4.5 * MiB) == "4.5 MiB"
    assert format_bytes(10_737_418_240, si=True) == "10.7 GB"
    with pytest.raises(PrefixlintError):
        parse_bytes("lots")


def test_context_list_and_repeats(tmp_path):
    result = run_kv(tmp_path, LLAMA_31_8B, "--context", "1K,2K", "--context", "3000", "--format", "json")
    assert [c["tokens"] for c in json.loads(result.output)["contexts"]] == [1024, 2048, 3000]
    assert all(c["conversations_fit"] is None for c in json.loads(result.output)["contexts"])


def test_hub_id_from_the_local_cache(tmp_path, monkeypatch):
    source = tmp_path / "src" / "config.json"
    source.parent.mkdir()
    source.write_text(json.dumps(LLAMA_33_70B))
    cache = hub_cache(tmp_path / "hub", "meta-llama/Llama-3.3-70B-Instruct", {"config.json": source})
    import huggingface_hub.constants

    # huggingface_hub reads HF_HUB_CACHE when it is imported (another test may have done so).
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = CliRunner().invoke(cli, ["kv", "meta-llama/Llama-3.3-70B-Instruct", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["bytes_per_token"] == 327_680
    missing = CliRunner().invoke(cli, ["kv", "meta-llama/Not-There"])
    assert missing.exit_code == 2 and "not in the Hugging Face cache" in missing.output


def test_bad_configs_are_one_diagnostic(tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text("{not json")
    result = CliRunner().invoke(cli, ["kv", str(bad)])
    assert result.exit_code == 2 and f"{bad}:1" in result.output
    result = run_kv(tmp_path, {"num_attention_heads": 8}, "--si")
    assert result.exit_code == 2 and "no num_hidden_layers" in result.output
    result = run_kv(tmp_path, {**LLAMA_31_8B, "layer_types": ["weird"] * 32})
    assert result.exit_code == 2 and "unknown layer type 'weird'" in result.output
