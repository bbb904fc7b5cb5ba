"""Engine profiles: the facts and worked examples of docs/engines.md, and brute-force rounding."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from prefixlint.engines.profiles import DEFAULT_ENGINE, all_profiles, get_profile
from prefixlint.errors import PrefixlintError
from prefixlint.match.prefix import PrefixCache

# What docs/engines.md says of each profile, written out again here (not read from
# engines.toml): unit, only whole units, last prompt token held back, minimum, step above it.
ENGINES_MD = {
    "vllm": dict(unit=16, whole=True, keep_last=True, minimum=0, step=0),
    "sglang": dict(unit=1, whole=True, keep_last=True, minimum=0, step=0),
    "trtllm": dict(unit=32, whole=False, keep_last=True, minimum=0, step=0),
    "llamacpp": dict(unit=1, whole=True, keep_last=True, minimum=0, step=0),
    "lmcache": dict(unit=256, whole=True, keep_last=True, minimum=0, step=0),
    "tgi": dict(unit=1, whole=True, keep_last=True, minimum=0, step=0),
    "openai": dict(unit=1, whole=True, keep_last=False, minimum=1024, step=128),
    "anthropic": dict(unit=1, whole=True, keep_last=False, minimum=1024, step=0),
    "gemini": dict(unit=1, whole=True, keep_last=False, minimum=1024, step=0),
    "deepseek": dict(unit=64, whole=True, keep_last=False, minimum=64, step=0),
}
UNVERIFIED = {"openai", "anthropic", "gemini", "deepseek"}
HOSTED_APIS = {"openai", "anthropic", "gemini"}  # no block size for a user to set


def reference_reusable(rules: dict, shared: int, prompt: int) -> int:
    """The largest count the engine may serve from cache, by trying every count."""
    best = 0
    for count in range(1, min(shared, prompt) + 1):
        if rules["keep_last"] and count > prompt - 1:
            continue  # the last prompt token is recomputed to get logits
        if rules["whole"] and count % rules["unit"]:
            continue  # only full blocks are matched
        if count < rules["minimum"]:
            continue
        if rules["step"] and (count - rules["minimum"]) % rules["step"]:
            continue
        best = count
    return best


def test_every_profile_of_engines_md_is_there_with_its_numbers():
    profiles = all_profiles()
    assert set(ENGINES_MD) <= set(profiles)
    assert DEFAULT_ENGINE == "vllm"
    for name, rules in ENGINES_MD.items():
        p = profiles[name]
        assert (p.unit, p.whole_units_only, p.last_token_recomputed, p.min_tokens, p.increment) == (
            rules["unit"], rules["whole"], rules["keep_last"], rules["minimum"], rules["step"]), name
        assert p.verified is (name not in UNVERIFIED), name
        assert p.block_size_option is (name not in HOSTED_APIS), name
        assert p.source


# docs/engines.md, "Worked examples (vllm, 16-token blocks)".
BASE = list(range(1000, 3003))  # 2,003 distinct token ids
VLLM_TABLE = [
    ("2,003 tokens (cold)", BASE, 0, 0),
    ("same first 2,002 tokens, then 2 others", BASE[:2002] + [7, 8], 2002, 2000),
    ("exactly the first 2,000 tokens again", BASE[:2000], 2000, 1984),
    ("one token prepended, then the same 2,000", [5] + BASE[:2000], 0, 0),
    ("the first 37 tokens", BASE[:37], 37, 32),
    ("the first 33 tokens", BASE[:33], 33, 32),
    ("the first 32 tokens", BASE[:32], 32, 16),
]


def test_the_vllm_worked_examples_served_in_order():
    cache, profile = PrefixCache(), get_profile("vllm")
    for what, request, shared, cached in VLLM_TABLE:
        found = cache.match_and_insert(request)
        assert (found.length, profile.reusable_tokens(found.length, len(request))) == (shared, cached), what


@pytest.mark.parametrize("name, shared, prompt, reusable", [
    # openai: nothing below 1,024, then 128-token steps: 1024, 1152, 1280, ...
    ("openai", 1023, 5000, 0), ("openai", 1024, 5000, 1024), ("openai", 1151, 5000, 1024),
    ("openai", 1152, 5000, 1152), ("openai", 1300, 5000, 1280), ("openai", 1024, 1024, 1024),
    # trtllm: partial reuse of the last 32-token block, the last token held back
    ("trtllm", 50, 100, 50), ("trtllm", 64, 64, 63), ("trtllm", 31, 200, 31),
    # lmcache: 256-token chunks, whole chunks only, one token back on a full hit
    ("lmcache", 300, 1000, 256), ("lmcache", 255, 1000, 0), ("lmcache", 512, 512, 256),
    # token-granular engines keep one token back on a full hit only
    ("sglang", 37, 37, 36), ("sglang", 37, 50, 37), ("llamacpp", 10, 10, 9), ("tgi", 10, 11, 10),
    ("anthropic", 1023, 4000, 0), ("anthropic", 1025, 4000, 1025), ("gemini", 2000, 2000, 2000),
    ("deepseek", 63, 500, 0), ("deepseek", 130, 500, 128),
])
def test_profile_examples(name, shared, prompt, reusable):
    assert get_profile(name).reusable_tokens(shared, prompt) == reusable


def test_block_size_overrides_the_unit():
    assert get_profile("vllm", 64).reusable_tokens(2002, 2003) == 1984  # FlashMLA blocks
    assert get_profile("sglang", 64).reusable_tokens(100, 200) == 64     # MLA pages
    assert get_profile("tgi", 256).reusable_tokens(300, 400) == 256      # flashdecoding
    assert get_profile("trtllm", 64).unit == 64
    assert get_profile("vllm").unit == 16  # the override does not change the shared profile


@pytest.mark.parametrize("name, block_size, message", [
    ("vllm", 0, "at least 1"), ("vllm", -16, "at least 1"),
    ("trtllm", 48, "power-of-two"), ("trtllm", 3, "power-of-two"),
])
def test_bad_block_sizes_are_refused(name, block_size, message):
    with pytest.raises(PrefixlintError, match=message):
        get_profile(name, block_size)


@pytest.mark.parametrize("name", sorted(HOSTED_APIS))
def test_hosted_apis_have_no_block_size_to_override(name):
    with pytest.raises(PrefixlintError, match="does not apply"):
        get_profile(name, 128)


def test_an_unknown_engine_lists_the_known_ones():
    with pytest.raises(PrefixlintError, match="unknown engine 'vlm'") as caught:
        get_profile("vlm")
    assert "vllm" in caught.value.hint and "sglang" in caught.value.hint
    assert get_profile(" VLLM ").name == "vllm"


@st.composite
def engine_case(draw):
    name = draw(st.sampled_from(sorted(ENGINES_MD)))
    rules = dict(ENGINES_MD[name])
    block_size = None
    if name not in HOSTED_APIS and draw(st.booleans()):
        exponent = draw(st.integers(0, 9))
        block_size = 2 ** exponent if name == "trtllm" else draw(st.integers(1, 512))
        rules["unit"] = block_size
    prompt = draw(st.integers(0, 3000))
    shared = draw(st.integers(0, prompt))
    return name, block_size, rules, shared, prompt


@given(engine_case())
def test_every_profile_rounds_as_the_brute_force_reference(case):
    name, block_size, rules, shared, prompt = case
    profile = get_profile(name, block_size)
    assert profile.reusable_tokens(shared, prompt) == reference_reusable(rules, shared, prompt)


def test_the_engine_help_texts_list_engines_toml():
    import tomllib

    from click.testing import CliRunner

    from prefixlint.cli import cli
    from prefixlint.package_data import package_dir

    names = list(tomllib.loads(package_dir("prefixlint.engines").joinpath("engines.toml").read_text()))
    assert names[:2] == ["vllm", "sglang"] and len(names) == 10
    for command in ("compare", "check", "replay", "transcript"):
        shown = " ".join(CliRunner().invoke(cli, [command, "--help"]).output.split())
        assert ", ".join(names) in shown, command
