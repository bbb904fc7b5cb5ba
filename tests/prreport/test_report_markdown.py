"""The pull-request Markdown: rows, arrows, links, folding, marker (numbers given, layout checked)."""

from hypothesis import given
from hypothesis import strategies as st

from prefixlint.prreport.markdown import MARKER, Measured, Setup, TemplateChange, blob_link, to_markdown
from prefixlint.prreport.rows import introduced
from prefixlint.results import Finding

FOUND = Finding(path="prompts/support.yaml", line=3, column=14, code="PFX001", name="timestamp-before-stable",
                severity="error", message="{{ now }} ends the shared prefix | <at token 6>")
SETUP = Setup("o200k_base", "vllm", 16, "main", "0123456789abcdef", rounding="Reused by vllm (16-token blocks)")


def test_changed_added_removed_and_unchanged_rows():
    rows = [
        TemplateChange("prompts/support.yaml", "modified", Measured(2000, 1990, 1984),
                       Measured(2010, 6, 0, (FOUND,)), new_findings=(FOUND,)),
        TemplateChange("prompts/new.md", "added", None, Measured(512, 511, 496)),
        TemplateChange("prompts/old.md", "removed", Measured(400, 399, 384), None),
        TemplateChange("prompts/b.md", "renamed", Measured(100, 50, 48), Measured(100, 99, 96), old_path="a.md"),
        TemplateChange("prompts/same.md", "unchanged", None, Measured(64, 63, 48)),
    ]
    text = to_markdown(rows, SETUP)
    assert text.startswith(MARKER + "\n### prefixlint: prompt-cache reuse\n")
    assert "\n`main` (`0123456`) → the working tree\n\nTokenizer `o200k_base` · engine `vllm`, 16-token blocks\n" in text
    assert "| Template | Tokens | Exact shared prefix | Reused by vllm (16-token blocks) | Change |" in text
    assert (
        "| `prompts/support.yaml` | 2,000 → 2,010 | 99.5% → 0.3% | 99.2% → 0.0% | ▼ 99.2 pts | 1,984 → 0 (-1,984) |\n"
        "| `prompts/new.md` (added) | — → 512 | — → 99.8% | — → 96.9% | added | — → 496 |\n"
        "| `prompts/old.md` (removed) | 400 → — | 99.8% → — | 96.0% → — | removed | 384 → — |\n"
        "| `a.md` → `prompts/b.md` | 100 → 100 | 50.0% → 99.0% | 48.0% → 96.0% | ▲ 48.0 pts | 48 → 96 (+48) |\n"
    ) in text
    assert (
        "**1 new finding**\n\n- `prompts/support.yaml:3:14` **PFX001** timestamp-before-stable:"
        " {{ now }} ends the shared prefix \\| &lt;at token 6&gt;\n"
    ) in text
    assert text.endswith(
        "<details><summary>1 unchanged template</summary>\n\n"
        "| Template | Tokens | Exact shared prefix | Reused by vllm (16-token blocks) |\n|:--|--:|--:|--:|\n"
        "| `prompts/same.md` | 64 | 98.4% | 75.0% |\n\n</details>\n"
    )


def test_links_point_at_the_line_on_github():
    link = blob_link("https://github.com", "octo/prompts", "feature/x")
    setup = Setup("o200k_base", "vllm", 16, "main", "0123456789abcdef", link)
    text = to_markdown([TemplateChange("prompts/support.yaml", "modified", Measured(10, 9, 0),
                                       Measured(10, 0, 0), new_findings=(FOUND,))], setup)
    assert ("- [`prompts/support.yaml:3:14`](https://github.com/octo/prompts/blob/feature/x/"
            "prompts/support.yaml#L3) **PFX001**") in text


def test_nothing_changed():
    text = to_markdown([TemplateChange("a.md", "unchanged", None, Measured(10, 9, 0))], SETUP)
    assert "No template changed.\n" in text and "<details><summary>1 unchanged template</summary>" in text


def test_equal_share_and_errors():
    rows = [TemplateChange("a.md", "modified", Measured(10, 9, 0), Measured(12, 11, 0)),
            TemplateChange("b.md", "modified", Measured(10, 9, 0), Measured(error="b.md:2: unexpected '}'"))]
    text = to_markdown(rows, SETUP)
    assert "| `a.md` | 10 → 12 | 90.0% → 91.7% | 0.0% → 0.0% | = 0.0 pts | 0 → 0 (+0) |" in text
    assert "| `b.md` | 10 → error | 90.0% → error | 0.0% → error | error | 0 → error |" in text
    assert "**Could not be measured**\n\n- `b.md`: b.md:2: unexpected '}'" in text


def test_a_price_adds_the_cost_per_1000_requests():
    from dataclasses import replace

    rows = [TemplateChange("a.md", "modified", Measured(2000, 1990, 1984), Measured(2000, 6, 0))]
    text = to_markdown(rows, replace(SETUP, price=(2.5, 0.25)))
    # base: 16 computed at $2.50/M and 1,984 cached at $0.25/M per request, times 1,000
    base = 1000 * (16 * 2.5 + 1984 * 0.25) / 1e6
    now = 1000 * (2000 * 2.5) / 1e6
    assert f"| ▼ 99.2 pts | 1,984 → 0 (-1,984) | ${base:.2f} → ${now:.2f} (+${now - base:.2f}) |" in text
    assert "| Change | Reused tokens per request | Cost per 1,000 requests |\n|:--|--:|--:|--:|:--|--:|--:|" in text
    assert "Cost at $2.5 per million input tokens computed and $0.25 per million reused" in text


# --- which findings are new: a property of the matching, whatever the findings are ------------


FINDINGS = st.lists(st.builds(
    lambda code, variable, line: Finding("p.md", line, 1, code, "n", "error", "m", variable),
    st.sampled_from(["PFX001", "PFX002", "PFX006"]), st.sampled_from([None, "now", "session_id"]),
    st.integers(1, 4)), max_size=8)
TEXT = "a\nb\na\nc\n"  # lines 1 and 3 have the same text


@given(FINDINGS, FINDINGS)
def test_new_findings_are_the_multiset_difference(base, now):
    new = introduced(Measured(findings=tuple(base)), TEXT, Measured(findings=tuple(now)), TEXT)
    assert introduced(Measured(findings=tuple(now)), TEXT, Measured(findings=tuple(now)), TEXT) == ()
    assert set(new) <= set(now)

    def key(f):
        return (f.code, f.variable or TEXT.splitlines()[f.line - 1])

    from collections import Counter
    expected = Counter(map(key, now)) - Counter(map(key, base))
    assert Counter(map(key, new)) == expected


def test_a_long_list_of_unchanged_templates_is_cut():
    rows = [TemplateChange(f"p/{n:03}.md", "unchanged", None, Measured(10, 9, 0)) for n in range(103)]
    text = to_markdown(rows, SETUP)
    assert "<summary>103 unchanged templates</summary>" in text
    assert "| `p/099.md` |" in text and "| `p/100.md` |" not in text
    assert text.endswith("| `p/099.md` | 10 | 90.0% | 0.0% |\n\n… and 3 more.\n\n</details>\n")
