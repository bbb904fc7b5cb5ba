"""The sticky pull-request comment against a fake GitHub API on 127.0.0.1."""

import json

import pytest

from prefixlint.errors import PrefixlintError
from prefixlint.prreport.github_comment import (
    MARKER,
    GitHubAPI,
    PullRequest,
    find_pull_request,
    upsert_comment,
)
from tests.fake_github import FakeGitHub


def test_creates_once_then_updates_the_same_comment_across_pages():
    with FakeGitHub() as fake:
        for n in range(5):  # three pages of other people's comments
            fake.add_comment(f"looks good {n}")
        api, pr = GitHubAPI(fake.url, "t0ken"), PullRequest("octo/prompts", 7)

        action, first = upsert_comment(api, pr, f"{MARKER}\nreuse 96.0% -> 13.0%")
        assert action == "created"
        assert [r for r in fake.requests if r[0] != "GET"] == [("POST", "/repos/octo/prompts/issues/7/comments")]
        assert sum(1 for r in fake.requests if r[0] == "GET") == 3

        fake.add_comment("another review comment")  # ours is now on page 3 of 4
        fake.requests.clear()
        action, second = upsert_comment(api, pr, f"{MARKER}\nreuse 96.0% -> 95.5%")
        assert action == "updated" and second["id"] == first["id"]
        assert fake.requests[-1] == ("PATCH", f"/repos/octo/prompts/issues/comments/{first['id']}")
        ours = [c for c in fake.comments if MARKER in c["body"]]
        assert len(ours) == 1 and ours[0]["body"] == f"{MARKER}\nreuse 96.0% -> 95.5%"
        assert len(fake.comments) == 7


def test_the_marker_is_added_when_the_body_lacks_it():
    with FakeGitHub() as fake:
        upsert_comment(GitHubAPI(fake.url, "t0ken"), PullRequest("octo/prompts", 7), "hello")
        assert fake.comments[0]["body"] == f"{MARKER}\nhello"


def test_a_rejected_token_is_a_readable_error_with_a_hint():
    with FakeGitHub() as fake:
        with pytest.raises(PrefixlintError) as info:
            upsert_comment(GitHubAPI(fake.url, "wrong"), PullRequest("octo/prompts", 7), "x")
    assert info.value.message.endswith("401 Bad credentials")
    assert "pull-requests: write" in info.value.hint


def test_pull_request_from_the_event_payload(tmp_path, monkeypatch):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": 42, "pull_request": {"number": 42}, "repository": {"full_name": "a/b"}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    assert find_pull_request() == PullRequest("a/b", 42)
    assert find_pull_request("c/d", 5) == PullRequest("c/d", 5)


def test_no_pull_request_outside_one(tmp_path, monkeypatch):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}))  # a push event
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.setenv("GITHUB_REPOSITORY", "a/b")
    with pytest.raises(PrefixlintError) as info:
        find_pull_request()
    assert info.value.message == "no pull request to post to"


def test_a_body_over_githubs_limit_is_cut_with_a_note():
    with FakeGitHub() as fake:
        upsert_comment(GitHubAPI(fake.url, "t0ken"), PullRequest("octo/prompts", 7), MARKER + "\n" + "x" * 70000)
        body = fake.comments[0]["body"]
    assert len(body) == 65536 and body.startswith(MARKER + "\nxxx")
    assert body.endswith("… (cut to GitHub's comment limit: the job's step summary has the whole report)\n")


def test_no_comment_is_created_for_a_change_that_touches_no_template_but_one_is_updated():
    with FakeGitHub() as fake:
        api, pr = GitHubAPI(fake.url, "t0ken"), PullRequest("octo/prompts", 7)
        assert upsert_comment(api, pr, f"{MARKER}\nNo template changed.", create=False) == ("skipped", None)
        assert fake.comments == [] and [r for r in fake.requests if r[0] != "GET"] == []
        upsert_comment(api, pr, f"{MARKER}\nreuse 96.0% -> 13.0%")
        action, _ = upsert_comment(api, pr, f"{MARKER}\nNo template changed.", create=False)
        assert action == "updated" and fake.comments[0]["body"] == f"{MARKER}\nNo template changed."
