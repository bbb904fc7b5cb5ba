"""Issue 20's hostile cases, each run as the attack ran it, with the defaults: `prefixlint check
--offline CASE good.md` under a 4 GB address-space cap (`prlimit --as`) and `timeout 60`. For
each case: the exit status, whether the good file was still reported, a traceback or an
"internal error" (neither may appear), the wall time, and the peak memory: the largest resident
set of any process of the run (exact, `wait4`) and the sum over the run's process tree (the run
and its worker together, sampled from /proc every 20 ms). The promise: exit 0, 1 or 2, the
good file reported, <= 30 s and <= 1 GB each (docs/reliability.md has the measured table).

    python benchmarks/bench_hostile.py [NAME ...]     # Linux only (prlimit, /proc)
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOOD = ("Hello {{ user_name }}! You are the support assistant of Northwind Bank. Explain fees and\n"
        "limits in plain language, never ask for a PIN, and hand over to a person when asked.\n")
GOOD_FINDING = "good.md:1:7: PFX003"
WALL_LIMIT, MEMORY_LIMIT = 30.0, 1 << 30


def _nested_for(depth: int) -> str:
    return "".join("{%% for i%d in [1] %%}" % i for i in range(depth)) + "x" + "{% endfor %}" * depth + "\n"


def _lc_mustache() -> str:
    return json.dumps({"lc": 1, "type": "constructor", "id": ["langchain", "prompts", "prompt", "PromptTemplate"],
                       "kwargs": {"template": "{{name}}0:\x950000000:\x810000000:\x81",
                                  "input_variables": ["name"], "template_format": "mustache"}})


DEEP = 50_000
#: name -> (files, extra arguments). Files are written under a fresh repository beside good.md;
#: the ones not starting with "_" or holding "/" are named on the command line.
CASES: dict[str, tuple[dict[str, str], tuple[str, ...]]] = {
    "sum_lists.j2": ({"sum_lists.j2": "{{ ([range(100000)|list] * 300)|sum(start=[]) }}\n"}, ()),
    "bytes_repeat.j2": ({"bytes_repeat.j2": "{{ 'a'.encode() * 2000000000 }}\n"}, ()),
    "translate.j2": ({"translate.j2": "{{ ('a' * 1000).translate({97: 'b' * 10000000}) }}\n"}, ()),
    "str_join.j2": ({"str_join.j2": "{{ ('x' * 1000000).join('a' * 1500) }}\n"}, ()),
    "filter_join.j2": ({"filter_join.j2": "{{ range(1500)|join('x' * 1000000) }}\n"}, ()),
    "dict_repeat.j2": ({"dict_repeat.j2": "{% set d = dict(a='x' * 10000000) %}{{ [d] * 1000 }}\n"}, ()),
    "nested_for.j2": ({"nested_for.j2": _nested_for(45)}, ()),
    "letters.txt": ({"letters.txt": "a" * 9_000_000 + "\n"}, ()),
    "digits.txt": ({"digits.txt": "7" * 9_000_000 + "\n"}, ()),
    "3000_values.md": ({"3000_values.md": "".join(f"Line {i}: the order {{{{ order_id_{i} }}}} is stable.\n"
                                                  for i in range(3000))}, ()),
    "400_values_3.6MB.md": ({"400_values_3.6MB.md": "".join(
        f"Item {i}: {{{{ request_id_{i} }}}}\n" + "Stable policy text about fees. " * 300 + "\n"
        for i in range(400))}, ()),
    "concat.py": ({"concat.py": "SYSTEM_PROMPT = (\n" + "".join(
        f'    "line {i} of the instructions "\n' for i in range(150_000)) + ")\n"}, ()),
    "unary.py": ({"unary.py": "x = " + "-" * 100_000 + "1\n"}, ()),
    "nested.js": ({"nested.js": "const prompt = " + "{a: " * DEEP + "1" + "}" * DEEP + ";\n"}, ()),
    "nested_array.ts": ({"nested_array.ts": "export const PROMPT = " + "[" * DEEP + "'x'" + "]" * DEEP + ";\n"}, ()),
    "nested.py": ({"nested.py": "PROMPT = " + "{'a': " * DEEP + "'x'" + "}" * DEEP + "\n"}, ()),
    "nested.json": ({"nested.json": "[" * DEEP + "\"Hello {{ user_name }}\"" + "]" * DEEP + "\n"}, ()),
    "nested.yaml": ({"nested.yaml": "prompt: " + "[" * DEEP + "x" + "]" * DEEP + "\n"}, ()),
    "nested_block.yaml": ({"nested_block.yaml": "".join("  " * i + f"k{i}:\n" for i in range(1200))
                           + "  " * 1200 + "x\n"}, ()),
    "nested_expr.j2": ({"nested_expr.j2": "{{ " + "(" * DEEP + "1" + ")" * DEEP + " }}\n"}, ()),
    "nested_list.j2": ({"nested_list.j2": "{{ " + "[" * DEEP + "1" + "]" * DEEP + " }}\n"}, ()),
    "history-turns": ({"sub/.prefixlint.yaml": "history-turns: 30000000\n", "sub/prompt.md": GOOD},
                      ("sub/prompt.md",)),
    "promptfoo_glob": ({"promptfooconfig.yaml": "prompts:\n  - file:///*/*/*/*/*/*/*\n"
                        "providers: [openai:gpt-4o-mini]\n"}, ()),
    "tokenizer_outside": ({"sub/.prefixlint.yaml": "tokenizer: /usr/share/tokenizer.json\n",
                           "sub/prompt.md": GOOD}, ("sub/prompt.md",)),
    # a broken configuration is an error of every file it governs (sub/prompt.md), not of good.md
    "toml_range": ({"sub/pyproject.toml": "[tool.prefixlint]\nexclude = [\"[z-a]\"]\n", "sub/prompt.md": GOOD},
                   ("sub/prompt.md",)),
    "lc_mustache.json": ({"lc_mustache.json": _lc_mustache()}, ()),
    "surrogate.ts": ({"surrogate.ts": 'export const SYSTEM_PROMPT = `You are a helpful assistant \\ud800 for '
                                      '${userName}.`;\n'}, ()),
}


def _tree(pid: int) -> list[int]:
    found, stack = [], [pid]
    while stack:
        current = stack.pop()
        found.append(current)
        try:
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        stack += [int(child) for child in children]
    return found


def _rss(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def measure(command: list[str], cwd: Path) -> dict:
    """Run `command` in `cwd` under the cap and the timeout: its status, output, wall time and
    peak memory (largest process, exact; the tree's sum, sampled)."""
    full = ["timeout", "60", "prlimit", f"--as={4 << 30}", *command]
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFIXLINT_")}
    started = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(full, cwd=cwd, stdout=out, stderr=err, env=env)
        tree_peak = 0
        while True:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            tree_peak = max(tree_peak, sum(_rss(p) for p in _tree(process.pid)))
            time.sleep(0.02)
        elapsed = time.monotonic() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    return {"status": process.returncode, "stdout": stdout, "stderr": stderr, "wall": elapsed,
            "max_rss": usage.ru_maxrss * 1024, "tree_rss": max(tree_peak, usage.ru_maxrss * 1024)}


def _repo(root: Path, files: dict[str, str]) -> None:
    (root / ".git").mkdir()
    (root / "good.md").write_text(GOOD)
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="surrogatepass")


def run_case(name: str) -> dict:
    files, extra = CASES[name]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        _repo(root, files)
        named = [n for n in files if not n.startswith(("_", ".")) and "/" not in n and n != "pyproject.toml"]
        return measure([sys.executable, "-m", "prefixlint", "check", "--offline", *named, *extra, "good.md"], root)


def run_big_blob() -> dict:
    """`report --base` where the base revision holds a 1 GiB blob (never written to disk whole)."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)

        def git(*args: str, data: bytes | None = None) -> str:
            return subprocess.run(["git", *args], cwd=root, input=data, capture_output=True, check=True).stdout.decode()

        git("init", "-q")
        git("config", "user.email", "x@example.com")
        git("config", "user.name", "x")
        (root / "prompts").mkdir()
        (root / "prompts/good.md").write_text(GOOD)
        (root / "prompts/big.md").write_text(GOOD)
        with open("/dev/zero", "rb") as zero:
            blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=root, check=True, capture_output=True,
                                  stdin=subprocess.Popen(["head", "-c", str(1 << 30)], stdin=zero,
                                                         stdout=subprocess.PIPE).stdout).stdout.decode().strip()
        git("add", "prompts/good.md")
        git("update-index", "--add", "--cacheinfo", f"100644,{blob},prompts/big.md")
        git("commit", "-qm", "base")
        return measure([sys.executable, "-m", "prefixlint", "report", "--base", "HEAD", "--offline", "prompts/"], root)


def verdict(name: str, result: dict) -> str:
    problems = []
    if result["status"] not in (0, 1, 2):
        problems.append(f"exit {result['status']}")
    if "Traceback" in result["stderr"] or "internal error" in result["stderr"]:
        problems.append("traceback/internal error")
    if "good.md" not in result["stdout"]:
        problems.append("good file not reported")
    if result["wall"] > WALL_LIMIT:
        problems.append("over 30 s")
    if result["tree_rss"] > MEMORY_LIMIT:
        problems.append("over 1 GB")
    return "ok" if not problems else "FAIL: " + ", ".join(problems)


def main(names: list[str]) -> int:
    names = names or [*CASES, "report_base_1GiB_blob"]
    failed = 0
    print(f"{'case':24} exit  wall s  max RSS MB  tree MB  verdict / diagnostic")
    for name in names:
        result = run_big_blob() if name == "report_base_1GiB_blob" else run_case(name)
        ok = verdict(name, result)
        failed += ok != "ok"
        diagnostic = next((line.removeprefix("prefixlint: error: ") for line in result["stderr"].splitlines()
                           if line.startswith("prefixlint: error:") and "good.md" not in line), "(no diagnostic)")
        print(f"{name:24} {result['status']:4} {result['wall']:7.1f} {result['max_rss'] / 1e6:11.0f} "
              f"{result['tree_rss'] / 1e6:8.0f}  {ok} | {diagnostic[:150]}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
