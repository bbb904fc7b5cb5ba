"""Read a log as it comes and serve each request: bad lines counted, the tokenizer loaded only
when the log has requests with text (a hashed-block trace needs none)."""

from __future__ import annotations

import contextlib
import sys
from collections import deque
from dataclasses import dataclass, field
from itertools import chain
from typing import IO, Any, Callable, Hashable, Iterable, Iterator, NamedTuple

from prefixlint.engines.request import Request
from prefixlint.engines.serve import serve
from prefixlint.errors import PrefixlintError
from prefixlint.explain.context import context_of
from prefixlint.replay.requestlog import BadLine, LoggedRequest, open_log, read_log
from prefixlint.replay.tally import Replay


class Fatal(Exception):
    """Raised by `prepare` for an error that stops the whole replay (no chat template)."""

    def __init__(self, error: PrefixlintError) -> None:
        super().__init__(error.message)
        self.error = error


@dataclass(frozen=True)
class Failed:
    """A line that could not be rendered (a bad line; with --strict, fatal), or a fatal error
    at that line (no chat template; a log that mixes requests and trace lines)."""

    line: int
    message: str
    hint: str | None = None
    fatal: bool = False


class Rendered(NamedTuple):
    request: Request
    #: The line names its template (`metadata.template` and the like).
    named: bool
    #: What its messages hold, for explaining a miss (`prefixlint.explain.kinds.Context`).
    context: Any = None


#: What a pass over the log serves, in log order: a trace line is a `Request` as it is.
Record = Rendered | Request | BadLine | Failed


def records(items: Iterable[LoggedRequest | Request | BadLine], prepare: Callable[[LoggedRequest], Request]) -> Iterator[Record]:
    """Render and tokenize the request lines of a parsed log (in this process, a worker
    process or a Ray task); `prepare` raises PrefixlintError for a bad line."""
    try:
        for item in items:
            if isinstance(item, (Request, BadLine)):
                yield item
                continue
            try:
                yield Rendered(prepare(item), item.template is not None, context_of(item.body, item.request_id))
            except Fatal as fatal:
                yield Failed(item.line, fatal.error.message, fatal.error.hint, fatal=True)
            except PrefixlintError as exc:
                yield Failed(item.line, exc.message, exc.hint)
    except PrefixlintError as exc:  # the log mixes trace and request lines
        yield Failed(exc.line or 0, exc.message, exc.hint, fatal=True)


@dataclass
class LogRun:
    """What a pass over the log saw besides the replay's tallies."""

    replay: Replay | None = None
    bad: list[BadLine] = field(default_factory=list)
    templates: int = 0
    plain: int = 0
    trace: bool = False
    #: The `Rendered.context` of the request being served (see `replay_log(observe=...)`).
    context: Any = None

    @property
    def group_by(self) -> str:
        if self.trace:
            return "trace (no text)"
        if self.templates and not self.plain:
            return "template (metadata)"
        return "leading text (first line, numbers as #)" if not self.templates else "template, else leading text"


def replay_log(log: str, make_replay: Callable[[bool], Replay], prepare: Callable[[LoggedRequest], Request], *,
               strict: bool, trace_block_size: int, lora_of: Callable[[Any], Hashable | None] | None = None,
               progress: Callable[[int | None], Any] | None = None,
               source: Callable[[IO[bytes] | None], Iterator[Record]] | None = None, opened: bool = True,
               observe: Callable[[Request, Any, Any], Any] | None = None) -> LogRun:
    """Serve every request of `log` through the replay `make_replay(is_trace)` builds at the
    first request. `prepare` renders and tokenizes a logged request (raises PrefixlintError
    for a request that cannot be rendered: a bad line). `source(stream)` gives the records
    when something else prepares them (`--workers`, `--ray`; `opened=False`: it reads the
    log itself). `observe(request, outcome, context)` sees what each request reused (the
    explanation of `--per-request` and the causes)."""
    run = LogRun()
    stream, size = open_log(log) if opened else (None, None)
    with contextlib.ExitStack() as stack:
        if stream is not None and stream is not sys.stdin.buffer:
            stack.callback(stream.close)
        bar = progress(size) if progress is not None else None
        if bar is not None:
            stack.enter_context(bar)
        if source is None:
            assert stream is not None  # no other source: this process opened the log
            items = records(read_log(stream, log, trace_block_size, lora_of), prepare)
        else:
            items = source(stream)
        requests = _requests(items, run, make_replay, log, strict, stream, bar)
        first = next(requests, None)  # builds the replay: a trace's or a request log's
        if first is not None:
            assert run.replay is not None  # built at the first request
            served = serve(chain([first], requests), run.replay)
            if observe is None or run.trace:
                deque(served, maxlen=0)
            else:
                for request, outcome in served:  # the hook: what each request reused, explained
                    observe(request, outcome, run.context)
    if run.replay is None:
        run.replay = make_replay(False)
    return run


def _requests(items: Iterable[Record], run: LogRun, make_replay: Callable[[bool], Replay], log: str, strict: bool,
              stream, bar) -> Iterator[Request]:
    """The requests of a pass, in log order; bad lines counted in `run` (raised with --strict);
    `run.replay` built at the first request."""
    for number, record in enumerate(items, 1):
        if isinstance(record, Failed):
            if record.fatal or strict:
                raise PrefixlintError(record.message, path=log, line=record.line or None, hint=record.hint)
            run.bad.append(BadLine(record.line, record.message))
            continue
        if isinstance(record, BadLine):
            if strict:
                raise PrefixlintError(record.message, path=log, line=record.line,
                                      hint="drop --strict to skip and count bad lines")
            run.bad.append(record)
            continue
        trace = isinstance(record, Request)
        if run.replay is None:
            run.trace = trace
            run.replay = make_replay(trace)
        elif trace != run.trace:  # only seen here when chunks of the log were read apart
            raise PrefixlintError("a hashed-block trace line (`hash_ids`) among request lines" if trace
                                  else "a request line among hashed-block trace lines (`hash_ids`)",
                                  path=log, line=record.line if isinstance(record, Request) else record.request.line,
                                  hint="one log is either a request log or a trace, not both")
        if isinstance(record, Request):
            yield record
        else:
            run.templates += record.named
            run.plain += not record.named
            run.context = record.context  # read by the hook while this request is served
            yield record.request
        if bar is not None and number % 256 == 0:
            bar.update(stream.tell() - bar.pos)
