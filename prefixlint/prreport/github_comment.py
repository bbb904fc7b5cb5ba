"""The one sticky pull-request comment: find ours by its hidden marker, update it or create it.

Uses the GitHub REST API through urllib (no extra dependency): list the issue comments of
the pull request page by page (following the `Link: rel="next"` header), PATCH the first one
whose body holds the marker, or POST a new one when none does.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.request
from dataclasses import dataclass

from prefixlint import __version__
from prefixlint.errors import PrefixlintError
from prefixlint.prreport.markdown import MARKER

DEFAULT_API_URL = "https://api.github.com"
#: GitHub refuses a comment body longer than this many characters.
MAX_BODY = 65536
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


class GitHubError(PrefixlintError):
    def __init__(self, message: str, status: int, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status


@dataclass(frozen=True)
class PullRequest:
    repository: str  # owner/name
    number: int


@dataclass(frozen=True)
class GitHubAPI:
    url: str
    token: str
    timeout: float = 30.0

    def request(self, method: str, url: str, body: dict | None = None) -> tuple[object, str | None]:
        """The decoded JSON answer and the URL of the next page, if any."""
        if not url.startswith(("http://", "https://")):
            url = self.url.rstrip("/") + url
        data = json.dumps(body).encode() if body is not None else None
        headers = {
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {self.token}",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": f"prefixlint/{__version__}",
        }
        if data is not None:
            headers["Content-Type"] = "application/json"
        call = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(call, timeout=self.timeout) as answer:
                payload = answer.read()
                link = answer.headers.get("Link", "")
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", errors="replace")
            try:
                detail = json.loads(detail).get("message", detail)
            except (ValueError, AttributeError):
                pass
            hint = None
            if exc.code in (401, 403, 404):
                hint = ("give the job `permissions: pull-requests: write` and pass GITHUB_TOKEN; a pull"
                        " request from a fork gets a read-only token")
            raise GitHubError(f"GitHub API {method} {url}: {exc.code} {detail}".strip(), exc.code, hint) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise GitHubError(f"GitHub API {method} {url}: {reason}", 0) from None
        found = _NEXT.search(link)
        return (json.loads(payload) if payload else None), (found.group(1) if found else None)


def comments(api: GitHubAPI, pr: PullRequest) -> list[dict]:
    """Every comment on the pull request's conversation, following pagination."""
    found: list[dict] = []
    url: str | None = f"/repos/{pr.repository}/issues/{pr.number}/comments?per_page=100"
    while url:
        page, url = api.request("GET", url)
        found += page if isinstance(page, list) else []
    return found


def upsert_comment(api: GitHubAPI, pr: PullRequest, body: str, marker: str = MARKER,
                   create: bool = True) -> tuple[str, dict | None]:
    """Update the comment holding `marker` (the first, if several) or create one (unless not
    `create`: then ("skipped", None) when there is none to update).

    Returns ("updated" or "created", the comment as the API returned it).
    """
    if marker not in body:
        body = f"{marker}\n{body}"
    if len(body) > MAX_BODY:
        note = "\n\n… (cut to GitHub's comment limit: the job's step summary has the whole report)\n"
        body = body[: MAX_BODY - len(note)] + note
    for comment in comments(api, pr):
        if marker in (comment.get("body") or ""):
            updated, _ = api.request("PATCH", f"/repos/{pr.repository}/issues/comments/{comment['id']}", {"body": body})
            return "updated", updated  # type: ignore[return-value]
    if not create:
        return "skipped", None
    created, _ = api.request("POST", f"/repos/{pr.repository}/issues/{pr.number}/comments", {"body": body})
    return "created", created  # type: ignore[return-value]


def event_payload() -> dict:
    path = os.environ.get("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError) as exc:
        raise PrefixlintError(f"cannot read the event payload: {exc}", path=path) from None
    return data if isinstance(data, dict) else {}


def find_pull_request(repository: str | None = None, number: int | None = None) -> PullRequest:
    """The pull request to comment on: flags first, then the Actions environment and event."""
    event = event_payload()
    repository = repository or os.environ.get("GITHUB_REPOSITORY") or (event.get("repository") or {}).get("full_name")
    if number is None:
        pull = event.get("pull_request") or (event.get("issue") if (event.get("issue") or {}).get("pull_request") else None)
        number = (pull or {}).get("number") or (event.get("number") if pull else None)
    if not repository or "/" not in repository:
        raise PrefixlintError("no repository to post to", hint="pass --repo OWNER/NAME or set GITHUB_REPOSITORY")
    if not number:
        raise PrefixlintError(
            "no pull request to post to",
            hint="run on a pull_request event (GITHUB_EVENT_PATH), or pass --pr NUMBER",
        )
    return PullRequest(repository, int(number))


def api_from_environment() -> GitHubAPI:
    token = os.environ.get("GITHUB_TOKEN") or os.environ.get("GH_TOKEN")
    if not token:
        raise PrefixlintError("GITHUB_TOKEN is not set", hint="pass `env: GITHUB_TOKEN: ${{ github.token }}` to the step")
    return GitHubAPI(os.environ.get("GITHUB_API_URL") or DEFAULT_API_URL, token)
