#!/usr/bin/env python3
"""The process scripts/regen_docs.py forks each `prefixlint` command of the docs from.

Started once, it imports prefixlint's command line and the pipeline's modules, then reads one
request a line on standard input (JSON: `args`, `cwd`) and forks a child per request: the child
changes to `cwd`, points its standard output and error at one pipe (merged as a terminal shows
them) and runs `prefixlint ARGS` as `python -m prefixlint` would, in a fresh copy of this
process in which no command has run yet. The reply is one JSON line: `output`, `status`.
A command costs its own work only, not an interpreter start and the imports (about 0.3-0.5 s
each on 2 cores, for 60-odd commands).
"""

from __future__ import annotations

import json
import os
import sys


def _warm() -> None:
    """Import what every `check` imports (no command is run, nothing is cached but modules)."""
    import prefixlint.check.runner  # noqa: F401
    import prefixlint.cli  # noqa: F401
    import prefixlint.commands.check  # noqa: F401
    import prefixlint.tokenize.huggingface  # noqa: F401
    import prefixlint.tokenize.tiktoken_family  # noqa: F401


def _child(args: list[str], cwd: str, write_end: int) -> None:
    os.dup2(write_end, 1)
    os.dup2(write_end, 2)
    os.close(write_end)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.chdir(cwd)
    sys.argv = ["prefixlint", *args]
    status = 0
    try:
        from prefixlint.cli import main

        main()
    except SystemExit as done:
        status = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    except BaseException:  # noqa: BLE001 - shown as a traceback, as the interpreter would
        import traceback

        traceback.print_exc()
        status = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001, S110 - the reader may be gone
                pass
        os._exit(status)


def serve() -> None:
    _warm()
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            _child(request["args"], request["cwd"], write_end)
        os.close(write_end)
        with os.fdopen(read_end, "rb") as pipe:
            output = pipe.read()
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        replies.write(json.dumps({"output": output.decode("utf-8", "replace"), "status": code}) + "\n")
        replies.flush()


if __name__ == "__main__":
    serve()
