"""Read a log as it comes and serve each request: bad lines counted, the tokenizer loaded only
when the log has requests with text (a hashed-block trace needs none)."""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable

from prefixlint.errors import PrefixlintError
from prefixlint.replay.driver import Replay
from prefixlint.replay.request import Request
from prefixlint.replay.requestlog import BadLine, LoggedRequest, open_log, read_log


class Fatal(Exception):
    """Raised by `prepare` for an error that stops the whole replay (no chat template)."""

    def __init__(self, error: PrefixlintError) -> None:
        super().__init__(error.message)
        self.error = error


@dataclass
class LogRun:
    """What a pass over the log saw besides the replay's tallies."""

    replay: Replay | None = None
    bad: list[BadLine] = field(default_factory=list)
    templates: int = 0
    plain: int = 0
    trace: bool = False

    @property
    def group_by(self) -> str:
        if self.trace:
            return "trace (no text)"
        if self.templates and not self.plain:
            return "template (metadata)"
        return "leading text (first line, numbers as #)" if not self.templates else "template, else leading text"


def replay_log(log: str, make_replay: Callable[[bool], Replay], prepare: Callable[[LoggedRequest], Request], *,
               strict: bool, trace_block_size: int, lora_of: Callable[[Any], Hashable | None] | None = None,
               progress: Callable[[int | None], Any] | None = None) -> LogRun:
    """Serve every request of `log` through the replay `make_replay(is_trace)` builds at the
    first request. `prepare` renders and tokenizes a logged request (raises PrefixlintError
    for a request that cannot be rendered: a bad line)."""
    run = LogRun()
    stream, size = open_log(log)
    with contextlib.ExitStack() as stack:
        if stream is not sys.stdin.buffer:
            stack.callback(stream.close)
        bar = progress(size) if progress is not None else None
        if bar is not None:
            stack.enter_context(bar)
        for number, item in enumerate(read_log(stream, log, trace_block_size, lora_of), 1):
            if isinstance(item, BadLine):
                if strict:
                    raise PrefixlintError(item.message, path=log, line=item.line,
                                          hint="drop --strict to skip and count bad lines")
                run.bad.append(item)
                continue
            if run.replay is None:
                run.trace = isinstance(item, Request)
                run.replay = make_replay(run.trace)
            if run.trace:
                run.replay.serve(item)
            else:
                try:
                    request = prepare(item)
                except Fatal as fatal:
                    raise fatal.error.located(log, item.line) from None
                except PrefixlintError as exc:
                    if strict:
                        raise exc.located(log, item.line) from None
                    run.bad.append(BadLine(item.line, exc.message))
                    continue
                run.templates += item.template is not None
                run.plain += item.template is None
                run.replay.serve(request)
            if bar is not None and number % 256 == 0:
                bar.update(stream.tell() - bar.pos)
    if run.replay is None:
        run.replay = make_replay(False)
    return run
