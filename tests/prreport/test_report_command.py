"""`prefixlint report --base`: a real git repository, real o200k_base numbers computed here.

Each expected number is recomputed in the test from the rendered text (the declared sample
values substituted by hand), the tokenizer and the engine profile: tokens, the exact shared
prefix of the two renders, and what vLLM reuses of it in 16-token blocks.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.engines.profiles import get_profile
from prefixlint.match.prefix import shared_prefix
from prefixlint.tokenize import load_tokenizer
from tests.gitrepo import commit, git, init_repo, write

A, B = "2025-03-14T09:26:53Z", "2025-03-15T17:42:08Z"
POLICY = "".join(
    f"  {n}. Answer questions about orders, refunds and shipping; cite the policy section you used"
    f" and never promise a delivery date the carrier has not confirmed (rule {n}).\n"
    for n in range(1, 13)
)
HEAD = f'variables:\n  now: {{kind: per_request, samples: ["{A}", "{B}"]}}\nprompt: |\n'
BAD = HEAD + "  Current time: {{ now }}\n  You are the support assistant of Acme Outdoor.\n" + POLICY
CLEAN = HEAD + "  You are the support assistant of Acme Outdoor.\n" + POLICY + "  Current time: {{ now }}\n"
FAQ = "You answer questions about Acme Outdoor's catalogue.\n" + POLICY.replace("  ", "")
RETIRED = "Retired prompt: answer in French.\n" + POLICY.replace("  ", "")


def render(template: str, value: str) -> str:
    """The prompt as the engine receives it: the block scalar unindented, the value substituted."""
    body = template.split("prompt: |\n", 1)[1]
    return "".join(line[2:] + "\n" for line in body.splitlines()).replace("{{ now }}", value)


@pytest.fixture(scope="module")
def tokenizer():
    return load_tokenizer("o200k_base")


def numbers(text_a: str, text_b: str, tok) -> tuple[int, int, int]:
    a, b = tok.encode(text_a), tok.encode(text_b)
    shared = shared_prefix(a, b)
    return len(a), shared, get_profile("vllm").reusable_tokens(shared, len(a))


def share(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%"


def expected_rows(tok=None) -> dict[str, str]:
    tok = tok or load_tokenizer("o200k_base")
    bt, bs, br = numbers(render(CLEAN, A), render(CLEAN, B), tok)
    nt, ns, nr = numbers(render(BAD, A), render(BAD, B), tok)
    drop = round(100 * br / bt - 100 * nr / nt, 1)
    ft, fs, fr = numbers(FAQ, FAQ, tok)
    rt, rs, rr = numbers(RETIRED, RETIRED, tok)
    return {
        "support": f"| `prompts/support.yaml` | {bt:,} → {nt:,} | {share(bs, bt)} → {share(ns, nt)}"
                   f" | {share(br, bt)} → {share(nr, nt)} | ▼ {drop:.1f} pts | {br:,} → {nr:,} ({nr - br:+,}) |",
        "retired": f"| `prompts/retired.md` (removed) | {rt:,} → — | {share(rs, rt)} → — | {share(rr, rt)} → —"
                   f" | removed | {rr:,} → — |",
        "faq": f"| `prompts/faq.md` | {ft:,} | {share(fs, ft)} | {share(fr, ft)} |",
        "new": f"| `prompts/new/support.yaml` (added) | — → {nt:,} | — → {share(ns, nt)} | — → {share(nr, nt)}"
               f" | added | — → {nr:,} |",
    }


@pytest.fixture
def repo(tmp_path, monkeypatch):
    root = init_repo(tmp_path / "repo", {"prompts/support.yaml": CLEAN, "prompts/faq.md": FAQ,
                                         "prompts/retired.md": RETIRED, "README.md": "{{ not a prompt }}\n"})
    write(root, {"prompts/support.yaml": BAD, "prompts/retired.md": None})
    monkeypatch.chdir(root)
    for name in ("GITHUB_STEP_SUMMARY", "GITHUB_ACTIONS", "GITHUB_EVENT_PATH", "GITHUB_SERVER_URL", "GITHUB_HEAD_REF"):
        monkeypatch.delenv(name, raising=False)
    return root


def invoke(*args: str):
    return CliRunner().invoke(cli, ["report", *args])


def test_changed_removed_and_unchanged_templates_with_measured_numbers(repo, tokenizer):
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    result = invoke("--base", "main")
    assert result.exit_code == 1, result.output  # a finding the change introduced
    rows = expected_rows(tokenizer)
    assert result.output.startswith("<!-- prefixlint-report -->\n")
    assert f"`main` (`{base[:7]}`) → the working tree\n\nTokenizer `o200k_base` · engine `vllm`, 16-token blocks" in result.output
    header = "| Change | Reused tokens per request |\n|:--|--:|--:|--:|:--|--:|\n"
    assert f"{header}{rows['retired']}\n{rows['support']}\n\n" in result.output
    # `{{ now }}` is on line 4, at column 17 ("  Current time: " is 16 characters)
    line4 = BAD.splitlines()[3]
    assert line4.index("{{ now }}") + 1 == 17
    assert "**1 new finding**\n\n- `prompts/support.yaml:4:17` **PFX001** timestamp-before-stable: " in result.output
    assert "<summary>1 unchanged template</summary>\n\n| Template | Tokens | Exact shared prefix" in result.output
    assert rows["faq"] in result.output
    assert "README" not in result.output


def test_a_finding_already_at_the_base_is_not_new_and_links_use_the_environment(repo, monkeypatch):
    write(repo, {"prompts/support.yaml": BAD})
    commit(repo, "the timestamp was already there")
    write(repo, {"prompts/support.yaml": BAD.replace("Acme Outdoor.", "Acme Outdoor GmbH."),
                 "prompts/new/support.yaml": BAD})
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.example")
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo/prompts")
    monkeypatch.setenv("GITHUB_HEAD_REF", "fix/time")
    result = invoke("prompts", "--base", "HEAD")
    assert result.exit_code == 1
    assert expected_rows()["new"] in result.output
    assert "**1 new finding**\n\n- [`prompts/new/support.yaml:4:17`]" \
           "(https://github.example/octo/prompts/blob/fix/time/prompts/new/support.yaml#L4)" in result.output
    assert "`prompts/support.yaml:4:17`" not in result.output


def test_fail_on(repo):
    assert invoke("--base", "main", "--fail-on", "none").exit_code == 0
    write(repo, {"prompts/support.yaml": BAD.replace("{kind: per_request", "{kind: stable")})
    assert invoke("--base", "main").exit_code == 0  # no finding, and --fail-on findings is the default
    write(repo, {"prompts/support.yaml": BAD})
    assert invoke("--base", "main", "--fail-on", "drop:99.9").exit_code == 0  # 94.3 points < 99.9
    assert invoke("--base", "main", "--fail-on", "findings,drop:99.9").exit_code == 1
    assert invoke("--base", "main", "--fail-on", "drop:5").exit_code == 1
    bad = invoke("--base", "main", "--fail-on", "sometimes")
    assert bad.exit_code == 2 and "'sometimes': use findings, drop:N or none" in bad.output


def test_step_summary_is_appended(repo, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = invoke("--base", "main", "--fail-on", "none")
    assert summary.read_text() == "earlier step\n" + result.output + "\n"


def test_unknown_base_and_broken_template(repo):
    unknown = invoke("--base", "no-such-branch")
    assert unknown.exit_code == 2
    assert "prefixlint: error: unknown git revision 'no-such-branch'" in unknown.output
    write(repo, {"prompts/support.yaml": BAD + "  {% if %}\n"})
    broken = invoke("--base", "main")
    assert broken.exit_code == 2
    assert "| `prompts/support.yaml` | " in broken.output and "| error |" in broken.output
    assert "**Could not be measured**\n\n- `prompts/support.yaml`: prompts/support.yaml:" in broken.output


def test_post_creates_then_updates_and_a_read_only_token_only_warns(repo, tmp_path, monkeypatch):
    from tests.fake_github import FakeGitHub

    event = tmp_path / "event.json"
    event.write_text('{"pull_request": {"number": 7}}')
    with FakeGitHub("octo/prompts", 7, "t0ken") as fake:
        for key, value in {"GITHUB_TOKEN": "t0ken", "GITHUB_API_URL": fake.url, "GITHUB_REPOSITORY": "octo/prompts",
                           "GITHUB_EVENT_PATH": str(event)}.items():
            monkeypatch.setenv(key, value)
        first = invoke("--base", "main", "--post", "--fail-on", "none")
        second = invoke("--base", "main", "--post", "--fail-on", "none")
        assert (first.exit_code, second.exit_code) == (0, 0)
        assert [m for m, _ in fake.requests if m != "GET"] == ["POST", "PATCH"]
        assert len(fake.comments) == 1 and fake.comments[0]["body"] == second.stdout
        fake.read_only = True
        forked = invoke("--base", "main", "--post")
        assert forked.exit_code == 1  # the verdict of --fail-on findings, not an error
        assert "prefixlint: warning: could not post the comment: GitHub API POST" not in forked.output
        assert "prefixlint: warning: could not post the comment: GitHub API PATCH" in forked.output
        assert "403 Resource not accessible by integration" in forked.output


def test_a_path_without_templates_is_an_error(repo):
    (repo / "src").mkdir()
    (repo / "src" / "app.py").write_text("print('hi')\n")
    result = invoke("src", "prompts", "--base", "main")
    assert result.exit_code == 2
    assert "prefixlint: error: src: no template here, neither at main nor in the working tree" in result.output


def test_yaml_files_that_are_not_templates_are_left_out(repo):
    write(repo, {"prompts/settings.yaml": "retries: 3\nmodel: gpt-4o\n"})
    result = invoke("--base", "main")
    assert result.exit_code == 1 and "settings.yaml" not in result.output
    (repo / "config").mkdir()
    (repo / "config" / "app.yaml").write_text("debug: true\n")
    only = invoke("config", "--base", "main")
    assert only.exit_code == 2 and "config: no template here" in only.output


def test_suggest_adds_the_fix_of_a_template_whose_reuse_fell(repo):
    import difflib

    result = invoke("--base", "main", "--suggest")
    # moving `Current time` back to the end of the block is exactly the base's CLEAN text
    diff = "".join(difflib.unified_diff(BAD.splitlines(True), CLEAN.splitlines(True),
                                        "prompts/support.yaml", "prompts/support.yaml"))
    assert ("**Suggested fix for `prompts/support.yaml`** (`prefixlint check --fix prompts/support.yaml`):\n\n"
            f"```diff\n{diff}```\n") in result.output
    assert "Suggested fix" not in invoke("--base", "main").output
