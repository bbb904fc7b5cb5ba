"""The pull-request comment read at a glance, and `report --format json` (issue 14)."""

from __future__ import annotations

import json

import pytest

from prefixlint.prreport.bars import bar
from tests.gitrepo import commit, git, write
from tests.prreport.test_report_command import BAD, CLEAN, A, B, invoke, numbers, render, repo, tokenizer  # noqa: F401


def test_bars_by_hand():
    # 20 cells of 5 points each, the last filled cell in eighths (▏▎▍▌▋▊▉).
    assert bar(100.0) == "█" * 20
    assert bar(0.0) == "░" * 20
    assert bar(92.5) == "█" * 18 + "▌" + "░"  # 18.5 cells
    assert bar(1.8) == "▎" + "░" * 19  # 0.36 cells: 2 eighths
    assert bar(50.0) == "█" * 10 + "░" * 10


def test_the_header_names_both_sides_and_the_rounding(repo, tmp_path, monkeypatch):  # noqa: F811
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 3, "base": {"ref": "main", "sha": base},
                                                  "head": {"ref": "add-clock", "sha": "f" * 40}}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    result = invoke("--base", base, "--fail-on", "none")
    assert f"`main` (`{base[:7]}`) → `add-clock` (`fffffff`)" in result.output
    assert "`main` → `add-clock`: █ reused" in result.output  # the bars use the same label
    assert "Tokenizer `o200k_base` · engine `vllm`, 16-token blocks" in result.output
    assert "| Template | Tokens | Exact shared prefix | Reused by vllm (16-token blocks) | Change |" in result.output
    monkeypatch.delenv("GITHUB_EVENT_PATH")
    local = invoke("--base", "main", "--fail-on", "none")
    assert f"`main` (`{base[:7]}`) → the working tree" in local.output


def test_a_picture_per_changed_template(repo, tokenizer):  # noqa: F811
    bt, _, br = numbers(render(CLEAN, A), render(CLEAN, B), tokenizer)
    nt, _, nr = numbers(render(BAD, A), render(BAD, B), tokenizer)
    result = invoke("--base", "main", "--fail-on", "none")
    picture = result.output.split("```text\n", 1)[1].split("```", 1)[0]
    lines = picture.splitlines()
    at = lines.index("prompts/support.yaml")
    assert lines[at + 1] == f"  main          {bar(100 * br / bt)} {100 * br / bt:5.1f}%"
    assert lines[at + 2] == f"  working tree  {bar(100 * nr / nt)} {100 * nr / nt:5.1f}%"
    assert "Reused by vllm (16-token blocks), `main` → `working tree`: █ reused, ░ computed again" in result.output


def test_findings_the_change_fixes_are_credited(repo):  # noqa: F811
    write(repo, {"prompts/support.yaml": BAD})
    commit(repo, "a timestamp at the top")
    write(repo, {"prompts/support.yaml": CLEAN})
    result = invoke("--base", "HEAD")
    assert result.exit_code == 0
    assert "**1 fixed finding**\n\n- Fixed: **PFX001** timestamp-before-stable: `{{ now }}` in" \
           " `prompts/support.yaml` (line 4 at `HEAD`)" in result.output
    assert "No new findings." in result.output


def test_report_json_for_bots(repo, tokenizer):  # noqa: F811
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    result = invoke("--base", "main", "--format", "json")
    assert result.exit_code == 1  # the verdict is the same whatever the format
    data = json.loads(result.stdout)
    assert data["base"] == {"ref": "main", "commit": base}
    assert data["head"] == {"ref": None, "commit": None, "working_tree": True, "label": "working tree"}
    assert data["price"] is None and data["templates"][0]["cost_per_1000_requests"] is None
    assert data["engine"] == {"name": "vllm", "block_size": 16, "tokenizer": "o200k_base",
                              "rounding": "Reused by vllm (16-token blocks)"}
    by_path = {t["path"]: t for t in data["templates"]}
    support = by_path["prompts/support.yaml"]
    bt, bs, br = numbers(render(CLEAN, A), render(CLEAN, B), tokenizer)
    nt, ns, nr = numbers(render(BAD, A), render(BAD, B), tokenizer)
    assert (support["tokens"], support["shared_prefix_tokens"], support["reusable_tokens"]) == (
        [bt, nt], [bs, ns], [br, nr])
    assert support["status"] == "modified"
    assert [(f["code"], f["line"], f["column"]) for f in support["new_findings"]] == [("PFX001", 4, 17)]
    assert support["fixed_findings"] == []
    retired = by_path["prompts/retired.md"]
    assert retired["status"] == "removed" and retired["tokens"][1] is None
    assert by_path["prompts/faq.md"]["status"] == "unchanged"


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_report_format_choices(repo, fmt):  # noqa: F811
    assert invoke("--base", "main", "--fail-on", "none", "--format", fmt).exit_code == 0


def test_price_from_the_flag_or_the_configuration_adds_the_cost(repo, tokenizer):  # noqa: F811
    bt, _, br = numbers(render(CLEAN, A), render(CLEAN, B), tokenizer)
    nt, _, nr = numbers(render(BAD, A), render(BAD, B), tokenizer)
    base, now = 1000 * ((bt - br) * 3 + br * 0.3) / 1e6, 1000 * ((nt - nr) * 3 + nr * 0.3) / 1e6
    flagged = invoke("--base", "main", "--fail-on", "none", "--price", "3/0.3")
    assert f"| ${base:.2f} → ${now:.2f} (+${now - base:.2f}) |" in flagged.output
    data = json.loads(invoke("--base", "main", "--fail-on", "none", "--price", "3/0.3", "--format", "json").stdout)
    support = next(t for t in data["templates"] if t["path"] == "prompts/support.yaml")
    assert support["cost_per_1000_requests"] == [round(base, 6), round(now, 6)]
    (repo / ".prefixlint.yaml").write_text('price: "3/0.3"\n')
    from prefixlint.config import clear_cache

    clear_cache()
    configured = invoke("--base", "main", "--fail-on", "none")
    assert f"| ${base:.2f} → ${now:.2f} (+${now - base:.2f}) |" in configured.output
    bad = invoke("--base", "main", "--price", "cheap")
    assert bad.exit_code == 2 and "--price: 'cheap' is not a price" in bad.output
    clear_cache()
