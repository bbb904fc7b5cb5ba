"""A log of token-id prompts (completions `prompt: [ids]`) replayed at the speed of reading it:
the ids checked in one pass when the line allows it (the same answer as the full check), no
tokenizer loaded, the report's texts from the rank file (the same as tiktoken's)."""

from __future__ import annotations

import json

import tiktoken
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.cli import cli
from prefixlint.replay.linecheck import _token_ids, check_prompt
from prefixlint.tokenize import registry

ITEMS = st.one_of(
    st.integers(min_value=0, max_value=2**31 - 1), st.integers(min_value=-5, max_value=2**32), st.booleans(),
    st.none(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=3),
    st.lists(st.integers(0, 9), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(0, 9), max_size=1),
)


def _full_check(prompt: list) -> bool:
    """The definition: integers, not booleans, from 0 to 2**31 - 1."""
    return all(type(x) is int and 0 <= x < 2**31 for x in prompt)


@settings(max_examples=400, deadline=None)
@given(st.lists(ITEMS, min_size=1, max_size=12), st.dictionaries(st.sampled_from(["model", "user", "n"]),
                                                                 st.one_of(st.text(max_size=4), st.booleans(),
                                                                           st.integers(-3, 3)), max_size=2))
def test_the_fast_check_of_token_ids_is_the_full_check(prompt, others):
    text = json.dumps({"prompt": prompt, **others})
    data = json.loads(text)
    assert _token_ids(data["prompt"], text) is _full_check(data["prompt"])
    assert _token_ids(data["prompt"], None) is _full_check(data["prompt"])


def test_the_fast_check_at_the_bounds():
    for prompt, ok in (([0, 2**31 - 1], True), ([2**31 - 1, 2**31 - 1], True), ([2**31], False), ([1, True], False),
                       ([1, 1.0], False), ([1, -1], False), ([7, None], False), ([7, [1]], False), ([7, "7"], False)):
        assert _token_ids(prompt, json.dumps({"prompt": prompt})) is ok, prompt
    check_prompt([5, 6], '{"prompt": [5, 6]}')  # no error


def test_a_token_id_log_loads_no_tokenizer_and_shows_the_places_as_text(tmp_path, monkeypatch):
    enc = tiktoken.get_encoding("o200k_base")
    system = enc.encode("You are the support assistant of ACME Rockets. Answer in two sentences at most, be"
                        " friendly, cite the order number when there is one, and never promise refunds.")
    first = system + enc.encode(" Current time: 10:00:07. Where is my order?")
    second = system + enc.encode(" Current time: 10:02:31. Do you ship to Mars?")
    log = tmp_path / "ids.jsonl"
    log.write_text("".join(json.dumps({"prompt": p}) + "\n" for p in (first, second)))

    def no_tokenizer(*args, **kwargs):
        raise AssertionError("a log of token ids without responses needs no tokenizer")

    monkeypatch.setattr(registry, "load", no_tokenizer)
    result = CliRunner().invoke(cli, ["replay", str(log), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    shared = next(i for i, (a, b) in enumerate(zip(first, second)) if a != b)
    assert data["tokenizer"] == "o200k_base"
    assert data["cached_tokens"] == shared // 16 * 16
    (place,) = data["places"]
    assert place["position"] == shared
    assert place["this_side"] == enc.decode(second[shared:shared + 12])
    block_end = (shared // 16 + 1) * 16
    assert place["cached_side"] == enc.decode(first[shared:min(block_end, shared + 12)])
    assert place["before"] == enc.decode(second[shared - 8:shared])


def test_the_rank_file_texts_are_tiktokens():
    texts = registry.load_texts("o200k_base")
    enc = tiktoken.get_encoding("o200k_base")
    for token in range(0, enc.n_vocab, 7):
        try:
            expected = enc.decode_single_token_bytes(token).decode("utf-8", errors="replace")
        except KeyError:
            continue
        assert texts.token_text(token) == expected, token
    assert texts.token_text(199999) == "<|endoftext|>"  # a special token: asked of tiktoken


def test_an_id_without_text_is_shown_by_number(tmp_path):
    # 199998 is no token of o200k_base (its rank file stops at 199997; 199999 is <|endoftext|>).
    first = list(range(1000, 1040))
    second = first[:20] + [199998] + list(range(2000, 2020))
    log = tmp_path / "ids.jsonl"
    log.write_text(json.dumps({"prompt": first}) + "\n" + json.dumps({"prompt": second}) + "\n")
    result = CliRunner().invoke(cli, ["replay", str(log), "--format", "json"])
    assert result.exit_code == 0, result.output
    (place,) = json.loads(result.output)["places"]
    assert place["position"] == 20
    assert place["this_side"].startswith("<token 199998>")
