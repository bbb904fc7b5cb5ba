"""`replay --curve`: the one-pass curve equals the bounded simulator at every capacity.

Exact for hashed-block traces and for token logs without duplicated blocks; with duplicates
(a block past vLLM's lookup cap that is cached already, cached again as a second copy) the
simulator at K blocks lies between the curve at K - D and at K, D the duplicated blocks.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.cli import cli
from prefixlint.engines.blockpool import VllmPrefixCache
from prefixlint.engines.curve import CurveSimulator, grid
from prefixlint.engines.request import Request
from tests.replay.test_replay_trace import SAMPLE

TOKENS = st.integers(0, 5)
GPT_OSS_CONFIG = Path(__file__).parents[2] / "docs" / "examples" / "gpt-oss-120b-config.json"


@st.composite
def token_logs(draw):
    """Requests built from a few shared bases (cut anywhere, often at a block boundary, so
    that whole-block prompts and their duplicates come up), some salted, some skipping the
    lookup, with generated tokens."""
    block = draw(st.sampled_from([1, 2, 3, 4]))
    bases = draw(st.lists(st.lists(TOKENS, min_size=1, max_size=24), min_size=1, max_size=3))
    log = []
    for line in range(draw(st.integers(1, 25))):
        base = draw(st.sampled_from(bases))
        cut = draw(st.integers(0, len(base)))
        if draw(st.booleans()):
            cut -= cut % block
        prompt = base[:cut] + draw(st.lists(TOKENS, max_size=2 * block))
        generated = draw(st.lists(TOKENS, max_size=2 * block))
        log.append(Request(line, "g", prompt or [0], generated, draw(st.sampled_from([None, None, "s"])),
                           skip_lookup=draw(st.integers(0, 9)) == 0))
    return block, log


def needed_blocks(block, log):
    return max(-(-(len(r.prompt) + len(r.generated)) // block) for r in log)


def simulated(block, log, capacity):
    pool = VllmPrefixCache(block, capacity)
    return sum(pool.serve(r.prompt, r.generated, r.salt, None, r.skip_lookup).cached_tokens for r in log)


def curve_of(block, log, capacities):
    curve = CurveSimulator(block, [c * block for c in capacities])
    for request in log:
        curve.serve(request)
    return {p["cache_tokens"] // block: p["cached_tokens"] for p in curve.curve([c * block for c in capacities])}, curve


@settings(max_examples=300, deadline=None)
@given(token_logs(), st.lists(st.integers(0, 30), min_size=1, max_size=4))
def test_curve_equals_the_bounded_simulator_or_its_bound(case, extra):
    block, log = case
    capacities = sorted({needed_blocks(block, log) + e for e in extra})
    duplicates = CurveSimulator(block)
    for request in log:
        duplicates.serve(request)
    low = [max(1, c - duplicates.duplicates) for c in capacities]
    curve, sim = curve_of(block, log, capacities + low)
    for capacity, below in zip(capacities, low):
        real = simulated(block, log, capacity)
        if sim.duplicates == 0:
            assert curve[capacity] == real
        else:
            assert curve[below] <= real <= curve[capacity]


@st.composite
def traces(draw):
    """Hashed-block traces: chains of ids drawn from a small tree, so prefixes are shared."""
    block = draw(st.sampled_from([1, 4, 16]))
    log = []
    for line in range(draw(st.integers(1, 30))):
        ids = draw(st.lists(st.integers(0, 3), min_size=0, max_size=6))
        chain = [hash(tuple(ids[:i + 1])) % 1000 for i in range(len(ids))]
        length = max(0, len(chain) * block - draw(st.integers(0, block - 1))) if chain else draw(st.integers(0, block))
        log.append(Request(line, "t", block_ids=chain, input_length=length,
                           output_length=draw(st.integers(0, 3 * block)), salt=draw(st.sampled_from([None, "a"]))))
    return block, log


@settings(max_examples=150, deadline=None)
@given(traces(), st.lists(st.integers(0, 40), min_size=1, max_size=4))
def test_curve_of_a_trace_is_exact(case, extra):
    block, log = case
    need = max(max(len(r.block_ids), -(-(r.input_length + r.output_length) // block)) for r in log)
    capacities = sorted({max(1, need) + e for e in extra})
    curve, _ = curve_of(block, log, capacities)
    for capacity in capacities:
        pool = VllmPrefixCache(block, capacity)
        real = sum(pool.serve_blocks(r.block_ids, r.input_length, r.output_length, r.salt).cached_tokens for r in log)
        assert curve[capacity] == real


def test_grid_is_log_spaced_from_one_block():
    values = []
    for value in grid():
        values.append(value)
        if value >= 64:
            break
    assert values == [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 13, 16, 19, 23, 27, 32, 38, 45, 54, 64]


def test_curve_of_the_sample_trace():
    # Worked in test_replay_trace: 16 tokens (4 blocks) cache 16 tokens, unlimited 17 of 45.
    result = CliRunner().invoke(cli, ["replay", str(SAMPLE), "--trace-block-size", "4", "--curve-at", "16",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["cached_tokens"] == 17 and data["curve_max_hit_rate"] == round(17 / 45, 6)
    points = {p["cache_tokens"]: p for p in data["curve"]}
    assert points[16] == {"cache_tokens": 16, "cached_tokens": 16, "hit_rate": round(16 / 45, 6),
                          "over_capacity_requests": 0}
    # Request 1 needs 4 blocks: 12 tokens (3 blocks) cannot serve it.
    assert points[12]["over_capacity_requests"] == 2
    assert data["curve"][-1]["cached_tokens"] == 17  # the curve ends where it reaches the unlimited cache


def test_curve_usage_errors():
    runner = CliRunner()
    for args, message in [
        (["--engine", "trtllm", "--curve"], "--curve needs a capacity model"),
        (["--curve", "--cache-tokens", "64"], "name capacities with --curve-at"),
        (["--curve-at", "10,x"], "comma-separated token counts"),
        (["--curve-at", "2"], "every capacity must hold one block (4 tokens)"),
    ]:
        result = runner.invoke(cli, ["replay", str(SAMPLE), "--trace-block-size", "4", *args])
        assert result.exit_code == 2 and message in result.output, (args, result.output)
        assert "Traceback" not in result.output


def test_kv_bytes_per_point_and_for_shares_of_the_best_hit_rate():
    # gpt-oss-120b grows 36,864 bytes per token (tests/test_kv.py works it out).
    result = CliRunner().invoke(cli, ["replay", str(SAMPLE), "--trace-block-size", "4", "--curve",
                                      "--model-config", str(GPT_OSS_CONFIG), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert all(p["kv_bytes"] == p["cache_tokens"] * 36_864 for p in data["curve"])
    # Best: 17/45. 16 tokens (16/45 = 94%) is the smallest capacity serving every request and
    # reaching 50%, 80% and 90% of it; 99% needs the unlimited 17, first reached at 20 tokens.
    assert [(s["share"], s["cache_tokens"], s["kv_bytes"]) for s in data["curve_shares"]] == [
        (0.5, 16, 16 * 36_864), (0.8, 16, 16 * 36_864), (0.9, 16, 16 * 36_864), (0.99, 20, 20 * 36_864)]


def test_plot_writes_a_picture(tmp_path):
    picture = tmp_path / "curve.svg"
    result = CliRunner().invoke(cli, ["replay", str(SAMPLE), "--trace-block-size", "4", "--plot", str(picture)])
    assert result.exit_code == 0, result.output
    assert "<svg" in picture.read_text() and "hit rate (%)" in picture.read_text()
    result = CliRunner().invoke(cli, ["replay", str(SAMPLE), "--trace-block-size", "4", "--plot", str(tmp_path / "c.gif")])
    assert result.exit_code == 2 and "must be .svg or .png" in result.output


@settings(max_examples=100, deadline=None)
@given(token_logs(), st.lists(st.integers(1, 60), min_size=1, max_size=4), st.booleans())
def test_sglang_curve_equals_its_bounded_tree(case, capacities, overlap):
    from prefixlint.engines.profiles import get_profile
    from prefixlint.engines.radix_curve import RadixCurve
    from prefixlint.engines.simulators import RadixSimulator

    page, log = case
    profile = get_profile("sglang", page)
    log = [replace(r, last_sampled=7) for r in log]
    tokens = sorted({c * page for c in capacities})
    curve = RadixCurve(profile, None, overlap, tokens)
    for request in log:
        curve.serve(request)
    points = {p["cache_tokens"]: p for p in curve.curve(tokens)}
    for capacity in tokens:
        sim = RadixSimulator(profile, capacity, None, overlap)
        outcomes = [sim.serve(r) for r in log]
        assert points[capacity]["cached_tokens"] == sum(o.cached_tokens for o in outcomes)
        assert points[capacity]["over_capacity_requests"] == sum(o.over_capacity for o in outcomes)
