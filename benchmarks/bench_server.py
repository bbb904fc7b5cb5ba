"""Benchmark `prefixlint server`'s re-check of an edited document, warm (issue 22: "a 100-line
template re-checked in well under 100 ms once warm").

A 100-line YAML chat template (a timestamp ahead of the instructions, the user's question at
the end) is edited as by typing: each run changes one word on line 50 and checks the new text
as the server does (`prefixlint.server.documents.check_text`, the editor's text, not the disk).
Printed: the median and worst wall and CPU time per re-check after warm-up, against the floor
of tokenizing that text once with the same warm tokenizer (CPU time, so that other
programs on the machine do not distort the ratio), the code actions of the finding's line
(their suppression comment is checked on the edited text), and with `--lsp` the round trip
through the real server over stdio (didChange to publishDiagnostics, debounce 0).

    python benchmarks/bench_server.py [RUNS]      (RUNS defaults to 30)
    python benchmarks/bench_server.py 30 --lsp
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

WORDS = "politely briefly exactly clearly kindly calmly".split()


def template(lines: int = 100, word: str = "politely") -> str:
    head = ["messages:", "  - role: system", "    content: |", "      Current time: {{ now }}", ""]
    tail = ["  - role: user", '    content: "{{ question }}"']
    body = [f"      Rule {n}: answer the customer {word if n == 45 else 'politely'} and check order {n} first."
            for n in range(1, lines - len(head) - len(tail) + 1)]
    return "\n".join(head + body + tail) + "\n"


def in_process(runs: int, root: Path) -> dict:
    from prefixlint.check.settings import SettingsBuilder
    from prefixlint.server.documents import check_text
    from prefixlint.tokenize import load_tokenizer

    path = str(root / "prompt.yaml")
    builder = SettingsBuilder()
    check_text(path, template(), builder)  # warm-up: imports, tokenizer, configuration
    walls, cpus = [], []
    for run in range(runs):
        text = template(word=WORDS[run % len(WORDS)] + str(run))
        wall, cpu = time.perf_counter(), time.process_time()
        checked = check_text(path, text, builder)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
        assert [f.code for f in checked.findings] == ["PFX001"], checked.findings
    # Code actions on the finding's line, once per new version (the suppression comment is
    # checked on the edited text: two re-checks here, `#` refused inside the block scalar).
    from lsprotocol import types

    from prefixlint.server.actions import code_actions

    actions = []
    for run in range(min(runs, 10)):
        checked = check_text(path, template(word=f"a{run}"), builder)
        finding = checked.findings[0]
        at = types.Position(finding.line - 1, 0)
        started = time.perf_counter()
        code_actions("file:///prompt.yaml", checked, types.Range(at, at), None,
                     lambda text: check_text(path, text, builder))
        actions.append(time.perf_counter() - started)
    tokenizer = load_tokenizer("o200k_base")
    text = template()
    repeats = 200  # CPU time of one encode is below the clock's resolution: time many
    started = time.process_time()
    for _ in range(repeats):
        tokenizer.encode(text)
    floor = (time.process_time() - started) / repeats
    return {"lines": len(text.splitlines()), "wall": walls, "cpu": cpus, "floor": floor, "actions": actions}


def over_lsp(runs: int, root: Path) -> list[float]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.server.rpc import Client

    path = root / "prompt.yaml"
    path.write_text(template(), encoding="utf-8")
    client = Client(root)
    try:
        client.initialize(root, {"debounce-ms": 0})
        uri = path.as_uri()
        client.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1,
                                                                "text": template()}})
        client.diagnostics(uri, 1)
        times = []
        for run in range(runs):
            version = run + 2
            started = time.perf_counter()
            client.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version},
                                                     "contentChanges": [{"text": template(word=f"w{run}")}]})
            client.diagnostics(uri, version)
            times.append(time.perf_counter() - started)
        return times
    finally:
        client.close()


def main(argv: list[str]) -> None:
    runs = int(argv[0]) if argv and argv[0].isdigit() else 30
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        found = in_process(runs, root)
        wall, cpu = statistics.median(found["wall"]), statistics.median(found["cpu"])
        print(f"re-check of a {found['lines']}-line template, warm, {runs} runs:"
              f" median {wall * 1000:.1f} ms wall ({cpu * 1000:.1f} ms CPU), worst {max(found['wall']) * 1000:.1f} ms")
        print(f"floor (tokenizing the text once, CPU): {found['floor'] * 1000:.2f} ms;"
              f" a re-check costs {cpu / found['floor']:.1f}x the floor in CPU time")
        print(f"code actions on the finding's line, first request of a version: median"
              f" {statistics.median(found['actions']) * 1000:.1f} ms wall")
        if "--lsp" in argv:
            times = over_lsp(runs, root)
            print(f"through the server (didChange -> publishDiagnostics, debounce 0): median"
                  f" {statistics.median(times) * 1000:.1f} ms, worst {max(times) * 1000:.1f} ms")


if __name__ == "__main__":
    main(sys.argv[1:])
