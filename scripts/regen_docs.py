#!/usr/bin/env python3
"""Regenerate every shown command output in README.md and docs/*.md, or check it for drift.

A block is regenerated when the line before its opening fence is a marker comment:

    <!-- output: cwd=docs/examples needs=matplotlib -->
    ```console
    $ prefixlint check samples/
    ...output...
    ```

Each `$ ` line of the block is a command (a trailing `\\` continues it on the next line, a
`# ` comment ends it; `$ echo $?` shows the exit status of the command before it), run from
`cwd` (relative to the repository root, default the root) with `prefixlint` and `python`
meaning this interpreter's (a command with a pipe, a redirection or a leading `NAME=value`
runs through bash, where both are functions calling this interpreter), stdout and stderr
merged as a terminal shows them, NO_COLOR set,
no result cache and no network. Its output replaces the lines up to the next `$ ` line or the
closing fence. A block that shows a line `...` (or `…`) keeps as many first and last lines of
the real output as it shows around it (an excerpt stays an excerpt, and stays true).
`needs=MODULE[,MODULE]` names a heavy dependency: without it the block is not run (and the
test skips it). Blocks without a marker are not touched (illustrations on files the repository
does not ship, timings, hand-cut excerpts).

    python scripts/regen_docs.py            # rewrite the drifted blocks in place
    python scripts/regen_docs.py --check    # print the drift as a diff, exit 1 if any
"""

from __future__ import annotations

import argparse
import atexit
import difflib
import importlib.util
import json
import os
import re
import select
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- output:(?P<options>.*?)-->\s*$")
FENCE = re.compile(r"^```")
ELLIPSES = ("...", "…")
ENV = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
TIMEOUT = 300


def documents(root: Path = ROOT) -> list[Path]:
    """The pages whose blocks are regenerated: README.md and docs/*.md."""
    return [root / "README.md", *sorted((root / "docs").glob("*.md"))]


@dataclass
class Command:
    """One `$ ` command of a block and the output lines the page shows for it."""
    text: list[str]                              # the command's lines as shown, `$ ` included
    shown: list[str] = field(default_factory=list)

    def joined(self) -> str:
        return " ".join(line.removeprefix("$ ").rstrip().removesuffix("\\") for line in self.text)

    def shell(self) -> bool:
        """True when the command needs a shell: a pipe, a redirection, `&&`, or an assignment first."""
        lexer = shlex.shlex(self.joined(), posix=True, punctuation_chars=True)
        lexer.commenters = "#"
        words = list(lexer)
        return bool(words) and (any(set(word) <= set("|&;<>") for word in words) or ENV.match(words[0]) is not None)

    def argv(self) -> list[str]:
        joined = self.joined()
        if self.shell():
            prelude = 'prefixlint() { "$REGEN_PYTHON" -m prefixlint "$@"; }; python() { "$REGEN_PYTHON" "$@"; }; '
            return ["bash", "-c", prelude + "python3() { python \"$@\"; }; " + joined]
        argv = shlex.split(joined, comments=True)
        if argv and argv[0] == "prefixlint":
            return [sys.executable, "-m", "prefixlint", *argv[1:]]
        if argv and argv[0] in ("python", "python3"):
            return [sys.executable, *argv[1:]]
        return argv


@dataclass
class Block:
    """A marked output block: where it is (its body's first and last line index in the page)."""
    path: Path
    line: int                                    # 1-based line of the opening fence
    start: int                                   # index of the body's first line
    end: int                                     # index of the closing fence
    cwd: Path
    needs: tuple[str, ...]
    commands: list[Command]

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path}:{self.line}"

    def missing(self) -> list[str]:
        """The heavy modules this block needs that are not installed."""
        return [name for name in self.needs if importlib.util.find_spec(name) is None]

    def shown(self) -> list[str]:
        return [line for command in self.commands for line in (*command.text, *command.shown)]

    def regenerate(self) -> list[str]:
        """The block's body with every command's output as it runs now (`echo $?` prints the
        exit status of the command before it)."""
        body: list[str] = []
        status = 0
        for command in self.commands:
            if command.argv() == ["echo", "$?"]:
                output = [str(status)]
            else:
                output, status = run_status(command, self.cwd)
            body += [*command.text, *_fit(command.shown, output)]
        return body


def _options(text: str) -> dict[str, str]:
    options = {}
    for word in text.split():
        key, _, value = word.partition("=")
        options[key] = value
    return options


def blocks(path: Path) -> list[Block]:
    """The marked blocks of one page."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    for index, line in enumerate(lines):
        marker = MARKER.match(line)
        if not marker:
            continue
        if index + 1 >= len(lines) or not FENCE.match(lines[index + 1]):
            raise SystemExit(f"{path}:{index + 1}: an output marker must be followed by a ``` fence")
        options = _options(marker["options"])
        start = index + 2
        end = next((i for i in range(start, len(lines)) if FENCE.match(lines[i])), None)
        if end is None:
            raise SystemExit(f"{path}:{index + 2}: the block is not closed")
        commands: list[Command] = []
        continued = False
        for body in lines[start:end]:
            if continued or body.startswith("$ "):
                if continued:
                    commands[-1].text.append(body)
                else:
                    commands.append(Command([body]))
                continued = body.rstrip().endswith("\\")
            elif not commands:
                raise SystemExit(f"{path}:{index + 3}: a marked block starts with a `$ ` command line")
            else:
                commands[-1].shown.append(body)
        needs = tuple(name for name in options.get("needs", "").split(",") if name)
        found.append(Block(path, index + 2, start, end, ROOT / options.get("cwd", "."), needs, commands))
    return found


def run(command: Command, cwd: Path) -> list[str]:
    """The command's output lines, stdout and stderr merged in the order they were written."""
    return run_status(command, cwd)[0]


def environment() -> dict[str, str]:
    """The environment every command runs in: no colour, no network, no result cache (no
    .prefixlint_cache/ left in the pages' folders)."""
    env = {**os.environ, "NO_COLOR": "1", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "PYTHONUNBUFFERED": "1", "COLUMNS": "100", "TERM": "dumb",
           "PREFIXLINT_NO_CACHE": "1", "REGEN_PYTHON": sys.executable}
    env.pop("GITHUB_ACTIONS", None)
    env.pop("FORCE_COLOR", None)
    return env


def run_status(command: Command, cwd: Path) -> tuple[list[str], int]:
    """The command's output lines (as `run`) and its exit status.

    A `prefixlint` command is forked from one prepared process (scripts/regen_zygote.py: the
    same fresh start, without an interpreter start and the imports per command) where fork
    exists, unless REGEN_DOCS_FRESH=1 asks for a new interpreter per command, as any other
    command gets."""
    argv = command.argv()
    if argv[:3] == [sys.executable, "-m", "prefixlint"] and hasattr(os, "fork") and not os.environ.get("REGEN_DOCS_FRESH"):
        return _ZYGOTE.run(argv[3:], cwd)
    done = subprocess.run(argv, cwd=cwd, env=environment(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, timeout=TIMEOUT, check=False)
    return done.stdout.splitlines(), done.returncode


class Zygote:
    """The one process `prefixlint` commands are forked from, started on the first one."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[str] | None = None

    def run(self, args: list[str], cwd: Path) -> tuple[list[str], int]:
        if self.process is None or self.process.poll() is not None:
            self.process = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "regen_zygote.py")],
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment(),
                                            text=True, encoding="utf-8")
            atexit.register(self.stop)
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps({"args": args, "cwd": str(cwd)}) + "\n")
        self.process.stdin.flush()
        ready, _, _ = select.select([self.process.stdout], [], [], TIMEOUT)
        if not ready:
            self.stop()
            raise subprocess.TimeoutExpired(["prefixlint", *args], TIMEOUT)
        reply = json.loads(self.process.stdout.readline())
        return reply["output"].splitlines(), reply["status"]

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


_ZYGOTE = Zygote()


def _fit(shown: list[str], real: list[str]) -> list[str]:
    """The real output, cut as the page cuts it: the first and last lines around a `...`."""
    cut = next((i for i, line in enumerate(shown) if line in ELLIPSES), None)
    if cut is None:
        return real
    head, tail = cut, len(shown) - cut - 1
    if head + tail >= len(real):
        return real
    return [*real[:head], shown[cut], *(real[len(real) - tail:] if tail else [])]


def drift(block: Block) -> list[str]:
    """A unified diff of the block as shown against as it runs now ([] when they agree)."""
    return list(difflib.unified_diff(block.shown(), block.regenerate(), f"{block.name} (shown)",
                                     f"{block.name} (real)", lineterm=""))


def rewrite(path: Path) -> int:
    """Rewrite the page's drifted blocks in place; the number rewritten."""
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    changed = 0
    for block in reversed(blocks(path)):
        if block.missing():
            print(f"{block.name}: not run, needs {', '.join(block.missing())}", file=sys.stderr)
            continue
        new = block.regenerate()
        if new != block.shown():
            lines[block.start:block.end] = [line + "\n" for line in new]
            changed += 1
            print(f"{block.name}: regenerated", file=sys.stderr)
    if changed:
        path.write_text("".join(lines), encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="print the drift, change nothing, exit 1 if any")
    parser.add_argument("pages", nargs="*", type=Path, help="pages to process (default README.md and docs/*.md)")
    args = parser.parse_args(argv)
    pages = [page.resolve() for page in args.pages] or documents()
    if not args.check:
        total = sum(rewrite(page) for page in pages)
        print(f"{total} block(s) regenerated", file=sys.stderr)
        return 0
    drifted = 0
    for page in pages:
        for block in blocks(page):
            if block.missing():
                continue
            diff = drift(block)
            if diff:
                drifted += 1
                print("\n".join(diff))
    print(f"{drifted} block(s) drifted", file=sys.stderr)
    return 1 if drifted else 0


if __name__ == "__main__":
    sys.exit(main())
