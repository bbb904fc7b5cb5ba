"""Linear cost on a large prompts module (issue 19 item 9): a Python module of 44 prompts (about
1,400 lines), each with a dated opening ahead of its instructions, checked whole (load, measure,
fixes). The floor is encoding the module's text ten times with the default tokenizer; the target
is the check in at most 3x that floor. CPU time of this process, best of a few runs after a
warm-up. `--scale` checks modules of those many prompts too and prints how the time grows: a
linear cost doubles with the prompts (each ratio near 2.0 for twice the prompts). Run:

    python benchmarks/bench_prompts_module.py [--runs 3] [--prompts 44] [--scale 11,22,44,88]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

PROMPT = '''
def prompt_{n}(date):
    return f"""You are assistant number {n}. Today's date is {{date}}.
{body}"""
'''
LINE = "Rule {i}: answer questions about orders, refunds and shipping, and cite the policy section you used."


def module(prompts: int) -> str:
    body = "\n".join(LINE.format(i=i) for i in range(26))
    head = "from datetime import date\n"
    # filled per request: inside a handler (a module-level call would run once per process)
    calls = "\n\ndef handler():\n" + "".join(f"    prompt_{n}(date.today())\n" for n in range(prompts))
    return head + "".join(PROMPT.format(n=n, body=body) for n in range(prompts)) + calls


def cpu(run) -> float:
    start = time.process_time()
    run()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--prompts", type=int, default=44)
    parser.add_argument("--scale", default="", help="prompt counts to check too, e.g. 11,22,44,88")
    args = parser.parse_args()
    from prefixlint.check.settings import SettingsBuilder
    from prefixlint.tokenize import load_tokenizer

    text = module(args.prompts)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "prompts.py"
        settings = SettingsBuilder({}, False, None, True)(path)
        tokenizer = load_tokenizer(settings.tokenizer)
        best, findings = checked(path, text, settings, args.runs)  # its first run warms up: imports, tokenizer
        tokenizer.encode(text)
        floor = min(cpu(lambda: [tokenizer.encode(text) for _ in range(10)]) for _ in range(args.runs))
        print(f"{args.prompts} prompts, {len(text.splitlines()):,} lines, {findings} findings")
        print(f"floor (encode the text 10x): {floor:.3f} s")
        print(f"check: best {best:.3f} s = {best / floor:.1f}x the floor (target <= 3x)")
        sizes = [int(n) for n in args.scale.split(",") if n.strip()]
        if sizes:
            times = {n: checked(path, module(n), settings, args.runs)[0] for n in sizes}
            steps = [f"{n} prompts {times[n]:.3f} s" + (f" ({times[n] / times[m]:.2f}x for {n / m:.1f}x the prompts)"
                                                        if k else "")
                     for k, (m, n) in enumerate(zip([sizes[0], *sizes], sizes))]
            print("scaling: " + ", ".join(steps))


def checked(path: Path, text: str, settings, runs: int) -> tuple[float, int]:
    """(the best CPU time of checking `text` as `path`, its findings), after one run to warm up."""
    from prefixlint.check.runner import check_path

    path.write_text(text, encoding="utf-8")
    results = check_path(str(path), settings)
    best = min(cpu(lambda: check_path(str(path), settings)) for _ in range(runs))
    return best, sum(len(r.findings) for r in results)


if __name__ == "__main__":
    main()
