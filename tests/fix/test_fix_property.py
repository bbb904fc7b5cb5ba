"""Property: for a generated template with a volatile value ahead of stable instructions, the
fix (safe or unsafe) removes the finding, keeps every placeholder, and the fixed file's
measured reuse is what the finding and its file promised (issue 24 item 4)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fix.helpers import check, measure_value, placeholder_names
from tests.fix.test_fix_guarantees import apply_json_fix

WORDS = ["answer", "the", "customer", "politely", "cite", "policy", "section", "never", "guess", "prices",
         "refunds", "orders", "shipping", "within", "days", "support", "team", "always", "short"]
sentence = st.lists(st.sampled_from(WORDS), min_size=4, max_size=12).map(lambda w: " ".join(w).capitalize() + ".")
paragraph = st.lists(sentence, min_size=1, max_size=4).map(" ".join)


@st.composite
def templates(draw):
    """(file name, text): a plain prompt or a native YAML chat, the value on its own line or in
    a sentence, somewhere ahead of at least 60 words of instructions."""
    value = draw(st.sampled_from(["{{ current_date }}", "{{ request_id }}", "{{ user_name }}"]))
    own_line = draw(st.booleans())
    head = draw(st.lists(paragraph, max_size=2))
    body = draw(st.lists(paragraph, min_size=6, max_size=9))
    line = f"Note: {value}" if own_line else f"Hello, {value}. " + draw(paragraph) + " " + " ".join(WORDS)
    lines = head + [line] + body
    if draw(st.booleans()):
        return "prompt.txt", "\n".join(lines) + "\n\nQuestion: {{ question }}\n"
    block = "".join(f"      {text}\n" if text else "\n" for text in lines)
    return "chat.yaml", ("messages:\n  - role: system\n    content: |\n" + block
                         + "  - role: user\n    content: \"{{ question }}\"\n")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(templates())
def test_fix_then_check_again(tmp_path_factory, case):
    name, text = case
    path = tmp_path_factory.mktemp("t") / name
    path.write_text(text, encoding="utf-8")
    (result,) = check(path)
    assert result.error is None
    moving = [f for f in result.findings if f.code in ("PFX001", "PFX002", "PFX003")]
    assert moving and all(f.extra.get("fix") for f in moving)  # each such value here can be moved
    for finding in moving:
        fixed = path.with_name("fixed_" + name)
        fixed.write_text(apply_json_fix(text, finding.extra["fix"]), encoding="utf-8")
        (after,) = check(fixed)
        assert after.error is None
        assert (finding.code, finding.variable) not in [(f.code, f.variable) for f in after.findings]
        assert placeholder_names(fixed) == placeholder_names(path)
        if len(moving) == 1:  # one number: the promise is the fixed file's reuse, measured as `check` does
            assert (after.tokens, after.shared_prefix_tokens, after.reusable_tokens) == (
                finding.extra["fixed_tokens"], finding.extra["fixed_shared_prefix_tokens"],
                finding.fixed_reusable_tokens) == (result.fixed_tokens, result.fixed_shared_prefix_tokens,
                                                   result.fixed_reusable_tokens)
        item = measure_value(fixed, finding.variable)
        assert item is None or item.now.reusable_tokens > finding.reusable_tokens
