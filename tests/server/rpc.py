"""A bare JSON-RPC client over the real standard input and output of `python -m prefixlint server`.

As small as an editor's LSP transport gets: Content-Length framed JSON, requests answered by
id, notifications from the server kept in arrival order. A reader thread fills a queue, so
every wait is bounded (`timeout`), and a server that dies shows up as its exit status.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any


class Client:
    def __init__(self, cwd: Path, timeout: float = 60) -> None:
        self.timeout = timeout
        self.process = subprocess.Popen([sys.executable, "-m", "prefixlint", "server"], cwd=cwd,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.messages: queue.Queue = queue.Queue()
        self.notifications: list[dict] = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self.messages.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                key, _, value = line.decode("ascii").partition(":")
                headers[key.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.messages.put(json.loads(body))

    def send(self, message: dict) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any = None) -> Any:
        self.next_id += 1
        wanted = self.next_id
        self.send({"id": wanted, "method": method, "params": params})
        message = self._wait(lambda m: m.get("id") == wanted and "method" not in m)
        if "error" in message:
            raise RuntimeError(f"{method}: {message['error']}")
        return message.get("result")

    def _wait(self, matches) -> dict:
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from the server")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                raise TimeoutError("no answer from the server") from None
            if message is None:
                raise EOFError(f"the server exited ({self.process.wait(5)}): {self.process.stderr.read().decode()}")
            if "method" in message and "id" in message:  # a request from the server: answer it
                self.send({"id": message["id"], "result": None})
            elif "method" in message:
                self.notifications.append(message)
            if matches(message):
                return message

    def diagnostics(self, uri: str, version: int | None = None) -> dict:
        """The next publishDiagnostics for `uri` (of that version, when given)."""
        def matches(m):
            return (m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
                    and (version is None or m["params"].get("version") == version))
        return self._wait(matches)["params"]

    def initialize(self, root: Path, options: Any = None) -> dict:
        result = self.request("initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {},
                                             "initializationOptions": options})
        self.notify("initialized", {})
        return result

    def close(self) -> int:
        """shutdown, exit; the server's exit status."""
        try:
            if self.process.poll() is None:
                self.request("shutdown")
                self.notify("exit")
            return self.process.wait(timeout=self.timeout)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
