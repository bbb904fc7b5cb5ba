"""Invariants of `check` over generated templates (real o200k_base): positions point at the
placeholder as written, and the measured numbers are consistent with the engine's rounding."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prefixlint.check.runner import check_file
from prefixlint.check.settings import Settings

STABLE = [
    "You are the support assistant of Acme Corp.",
    "Answer in short paragraphs and cite the policy section you rely on.",
    "Never guess order numbers, prices or delivery dates.",
    "Refunds are possible within 30 days of delivery for unused items.",
    "Escalate legal complaints to a human colleague.",
]
VOLATILE = ["{{ now }}", "{{ session_id }}", "{{ user_name }}", "{{ iteration }}", "{{ question }}"]

lines = st.lists(
    st.tuples(st.sampled_from(STABLE), st.sampled_from(["", *VOLATILE]), st.sampled_from(["before", "after"])),
    min_size=1, max_size=12,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=lines, engine=st.sampled_from(["vllm", "sglang", "lmcache"]))
def test_positions_and_numbers(tmp_path, lines, engine):
    text = "\n".join(
        (f"{value} {sentence}" if where == "before" else f"{sentence} {value}").strip() for sentence, value, where in lines
    ) + "\n"
    path = tmp_path / "p.md"
    path.write_text(text)
    result = check_file(str(path), Settings(engine=engine))
    assert result.error is None, result.error
    unit = {"vllm": 16, "sglang": 1, "lmcache": 256}[engine]
    assert 0 <= result.reusable_tokens <= result.tokens and result.reusable_tokens % unit == 0
    file_lines = text.split("\n")
    for f in result.findings:
        placeholder = f.extra["placeholder"]
        assert file_lines[f.line - 1][f.column - 1 :].startswith(placeholder)
        assert 0 <= f.reusable_tokens <= f.shared_prefix_tokens <= f.tokens
        assert f.reusable_tokens % unit == 0 and f.fixed_reusable_tokens % unit == 0
        if f.code in ("PFX001", "PFX002", "PFX003", "PFX004", "PFX005"):
            assert f.extra["stable_tokens_after"] >= 16
            # the promise is the file's fixed text, every value different (issue 24 item 4): never
            # below the file's reuse now, and the file's own "after the suggested fixes"
            assert f.fixed_reusable_tokens >= result.reusable_tokens
            if f.extra.get("fix"):
                assert f.fixed_reusable_tokens == result.fixed_reusable_tokens
    # The last line's value, with nothing after it, is never reported as ahead of stable content.
    last_sentence, last_value, where = lines[-1]
    if last_value and where == "after" and text.count(last_value) == 1:
        assert not any(f.extra.get("placeholder") == last_value and f.code < "PFX006" for f in result.findings)
