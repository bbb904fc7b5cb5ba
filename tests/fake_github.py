"""A fake GitHub REST API on 127.0.0.1 for the sticky-comment tests: issue comments only.

It pages comment lists two at a time whatever per_page asks for, so pagination is exercised
with a handful of comments, and it records every request it served.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

PAGE = 2


class FakeGitHub:
    def __init__(self, repository: str = "octo/prompts", number: int = 7, token: str = "t0ken") -> None:
        self.repository, self.number, self.token = repository, number, token
        self.comments: list[dict] = []
        self.requests: list[tuple[str, str]] = []
        self.next_id = 100
        self.read_only = False  # as GITHUB_TOKEN is on a pull request from a fork
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    def add_comment(self, body: str, user: str = "someone") -> dict:
        comment = {"id": self.next_id, "body": body, "user": {"login": user}}
        self.next_id += 1
        self.comments.append(comment)
        return comment

    def __enter__(self) -> "FakeGitHub":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:
                pass

            def reply(self, status: int, body, headers: dict | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def body(self) -> dict:
                return json.loads(self.rfile.read(int(self.headers["Content-Length"])))

            def route(self, method: str) -> None:
                url = urlparse(self.path)
                fake.requests.append((method, url.path))
                if self.headers.get("Authorization") != f"Bearer {fake.token}":
                    return self.reply(401, {"message": "Bad credentials"})
                issue = f"/repos/{fake.repository}/issues/{fake.number}/comments"
                edit = f"/repos/{fake.repository}/issues/comments/"
                if method == "GET" and url.path == issue:
                    page = int(parse_qs(url.query).get("page", ["1"])[0])
                    chunk = fake.comments[(page - 1) * PAGE : page * PAGE]
                    headers = {}
                    if page * PAGE < len(fake.comments):
                        headers["Link"] = f'<{fake.url}{issue}?per_page=100&page={page + 1}>; rel="next"'
                    return self.reply(200, chunk, headers)
                if method != "GET" and fake.read_only:
                    return self.reply(403, {"message": "Resource not accessible by integration"})
                if method == "POST" and url.path == issue:
                    comment = fake.add_comment(self.body()["body"], user="github-actions[bot]")
                    return self.reply(201, comment)
                if method == "PATCH" and url.path.startswith(edit):
                    wanted = int(url.path[len(edit):])
                    for comment in fake.comments:
                        if comment["id"] == wanted:
                            comment["body"] = self.body()["body"]
                            return self.reply(200, comment)
                return self.reply(404, {"message": "Not Found"})

            def do_GET(self) -> None:
                self.route("GET")

            def do_POST(self) -> None:
                self.route("POST")

            def do_PATCH(self) -> None:
                self.route("PATCH")

        return Handler
