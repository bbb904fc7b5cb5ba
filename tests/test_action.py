"""action.yml: its inputs, and its report step's script run for real against a fake GitHub API.

The install step (pip into a fresh venv) is left out here; the pre-commit test covers a
from-scratch install. The report step runs with this environment's `prefixlint` on PATH,
with the environment the action maps its inputs to, twice: one comment, created then updated.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.fake_github import FakeGitHub
from tests.gitrepo import git, init_repo, write
from tests.prreport.test_report_command import BAD, CLEAN, expected_rows

CHECKOUT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def action():
    return yaml.safe_load((CHECKOUT / "action.yml").read_text(encoding="utf-8"))


def test_inputs_and_composite_steps(action):
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) >= {"paths", "tokenizer", "engine", "block-size", "fail-on"}
    assert action["inputs"]["fail-on"]["default"] == "findings"
    install, page, report = (step for step in action["runs"]["steps"] if "run" in step)
    assert "${{" not in page["run"]
    assert '"$GITHUB_ACTION_PATH"' in install["run"]  # installs the action's own checkout
    assert report["env"]["PREFIXLINT_BASE"] == "${{ inputs.base || github.event.pull_request.base.sha }}"
    assert "${{" not in report["run"]  # inputs reach the script through env only
    # PATH is left as it was: no GITHUB_PATH, setup-python without update-environment, and the
    # steps call the venv's prefixlint by its path.
    text = (CHECKOUT / "action.yml").read_text(encoding="utf-8")
    assert "GITHUB_PATH" not in text and "GITHUB_ENV" not in text
    (python,) = [s for s in action["runs"]["steps"] if s.get("uses", "").startswith("actions/setup-python")]
    assert python["with"]["update-environment"] is False
    assert page["env"]["PREFIXLINT_BIN"] == report["env"]["PREFIXLINT_BIN"] == \
        "${{ runner.temp }}/prefixlint-venv/bin/prefixlint"
    (cache,) = [s for s in action["runs"]["steps"] if s.get("uses", "").startswith("actions/cache")]
    assert cache["with"]["path"] == "~/.cache/pip"
    (upload,) = [s for s in action["runs"]["steps"] if s.get("uses", "").startswith("actions/upload-artifact")]
    assert upload["with"]["archive"] is False  # the link opens the HTML page, not a zip


def run_report_step(action, repo: Path, env: dict) -> subprocess.CompletedProcess:
    (report,) = [step for step in action["runs"]["steps"] if step.get("name", "").startswith("Report")]
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(["bash", "-e", "-c", report["run"]], cwd=repo, capture_output=True, text=True,
                          env={**os.environ, "PATH": path, **env}, timeout=120)


def test_the_report_step_posts_one_comment_and_updates_it(tmp_path, action):
    repo = init_repo(tmp_path / "repo", {"prompts/support.yaml": CLEAN})
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    write(repo, {"prompts/support.yaml": BAD})
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "head": {"sha": "feedface"}}}))
    summary = tmp_path / "summary.md"
    with FakeGitHub("octo/prompts", 7, "t0ken") as fake:
        env = {
            "GITHUB_TOKEN": "t0ken", "GITHUB_API_URL": fake.url, "GITHUB_REPOSITORY": "octo/prompts",
            "GITHUB_EVENT_PATH": str(event), "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_ACTIONS": "true", "HF_HUB_OFFLINE": "1",
            "PREFIXLINT_BASE": base, "PREFIXLINT_PATHS": "prompts", "PREFIXLINT_TOKENIZER": "o200k_base",
            "PREFIXLINT_ENGINE": "vllm", "PREFIXLINT_BLOCK_SIZE": "16", "PREFIXLINT_FAIL_ON": "findings",
            "PREFIXLINT_POST": "true",
        }
        first = run_report_step(action, repo, env)
        assert first.returncode == 1, first.stderr  # a new finding fails the job
        assert [m for m, _ in fake.requests if m != "GET"] == ["POST"]
        (comment,) = fake.comments
        markdown = first.stdout
        assert "::" not in markdown.replace("::warning", "").split("<!--", 1)[1]  # no workflow command
        annotations = first.stderr.split("\n::", 1)[1] if "\n::" in first.stderr else first.stderr.split("::", 1)[1]
        assert comment["body"] == markdown
        assert expected_rows()["support"] in comment["body"]
        assert "https://github.com/octo/prompts/blob/feedface/prompts/support.yaml#L4" in comment["body"]
        assert annotations.startswith("error file=prompts/support.yaml,line=4,col=17,title=PFX001 timestamp-before-stable::")
        assert "prefixlint: created comment" in first.stderr

        write(repo, {"prompts/support.yaml": CLEAN})  # the author fixes it
        second = run_report_step(action, repo, {**env, "PREFIXLINT_FAIL_ON": "findings"})
        assert second.returncode == 0, second.stderr
        assert [m for m, _ in fake.requests if m != "GET"] == ["POST", "PATCH"]
        (comment,) = fake.comments
        assert "No template changed." in comment["body"]
    assert summary.read_text().count("<!-- prefixlint-report -->") == 2
