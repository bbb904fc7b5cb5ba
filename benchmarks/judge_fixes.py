"""Judge `prefixlint check --fix --unsafe-fixes .` on whole repositories as a reviewer would
(issue 24, "How it is judged").

    python benchmarks/judge_fixes.py REPO_DIR [REPO_DIR ...] [--details] [--json]

Each repository is copied to a temporary directory (its `.git` left out), checked as a user
runs it (`check --format json .`), fixed (`check --fix --unsafe-fixes .`) and checked again.
Every file whose bytes changed is judged on its own text, with the judge's own reading (not the
fix engine's verifier), for the five invariants:

- `loads`   the fixed file loads with the same loader (same formats, same number of prompts)
            and is not reported as an error;
- `places`  the same multiset of placeholders (names and calls);
- `words`   the same multiset of words outside placeholders, less at most the connecting words
            of a clause made a sentence and plus at most a short label per fix;
- `empty`   no more empty XML-like tag pairs, empty code fences, quotes quoting nothing, empty
            JSON/YAML containers or headers without a body than before;
- `fewer`   strictly fewer volatile findings (PFX001-PFX005) in that file;

and for three defects read in the diff:

- `persona` a message's opening sentence (its persona or first instruction) no longer opens it;
- `split`   a container (code fence, JSON example, XML-like element) that held a placeholder is
            no longer found whole in the fixed text: it was split, or a line taken out of it;
- `gain`    the fixed file, checked again, reuses no more tokens than before the fix;
- `label`   a placeholder no longer follows the label written just before it on its line, or
            the header or `…:` line above it when it stands alone on its line.

Besides, `figure` counts the files, as first checked, whose findings and file give different
after-fix figures (`fixed_reusable_tokens`): a file offering no fix must report the reuse it has
now, and every fixed finding of a one-prompt file the file's own figure. With `--faults`, a
second copy is fixed with every write limited to 1,024 bytes (`prlimit --fsize`): `torn` counts
the changed files left neither as they were nor as fixed. The table has one row per repository; `--details`
names each failing file and invariant.
"""


from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from judge_invariants import INVARIANTS, REVIEW, FileJudgement, Prompt, judge_file, read_prompts

MOVING = frozenset({"PFX001", "PFX002", "PFX003", "PFX004", "PFX005"})


@dataclass
class RepoJudgement:
    name: str
    files: int = 0
    findings_before: int = 0
    findings_after: int = 0
    changed: list[FileJudgement] = field(default_factory=list)
    figure: list[str] = field(default_factory=list)
    exit_fix: int = 0
    #: With --faults: files that a fix under a file-size limit left neither as they were nor fixed.
    torn: list[str] = field(default_factory=list)
    note: str = ""

    def failing(self, invariant: str) -> int:
        return sum(any(f.split(":")[0] == invariant for f in j.failures) for j in self.changed)


def figure_disagreements(entry: dict) -> list[str]:
    """Where a file's "after the suggested fixes" and its findings' promises are not one number:
    a file offering no fix must say the reuse it has now; a one-prompt file's every fixed finding
    promises the file's figure."""
    if entry.get("error") or entry.get("fixed_reusable_tokens") is None:
        return []
    fixed = [f for f in entry.get("findings", []) if f.get("fix")]
    if not fixed:
        if entry["fixed_reusable_tokens"] != entry.get("reusable_tokens"):
            return [f"no fix offered, yet {entry['reusable_tokens']} -> {entry['fixed_reusable_tokens']} after the fixes"]
        return []
    if (entry.get("prompts") or 1) > 1:
        return []
    return [f"{f['code']} line {f['line']} promises {f.get('fixed_reusable_tokens')}, the file "
            f"{entry['fixed_reusable_tokens']}" for f in fixed
            if f.get("fixed_reusable_tokens") != entry["fixed_reusable_tokens"]]


def run(command: list[str], cwd: Path, timeout: float) -> tuple[int, str]:
    try:
        done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return -1, ""
    return done.returncode, done.stdout


def check_json(cwd: Path, timeout: float) -> dict:
    code, out = run([sys.executable, "-m", "prefixlint", "check", "--offline", "--no-cache", "--exit-zero",
                     "--format", "json", "."], cwd, timeout)
    try:
        return json.loads(out)
    except json.JSONDecodeError:
        return {"files": [], "errors": [], "note": f"exit {code}"}


def _by_path(report: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for entry in report.get("files", []):
        out.setdefault(entry["path"], []).append(entry)
    return out


def snapshot(root: Path) -> dict[str, bytes]:
    out = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".prefixlint_cache",)]
        for name in files:
            path = Path(folder, name)
            if path.is_file() and not path.is_symlink():
                out[str(path.relative_to(root))] = path.read_bytes()
    return out


def judge_repo(repo: Path, timeout: float = 900.0, faults: bool = False) -> RepoJudgement:
    result = RepoJudgement(repo.name)
    with tempfile.TemporaryDirectory(prefix="judge-") as temp:
        root = Path(temp) / repo.name
        shutil.copytree(repo, root, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        if faults:
            faulty = Path(temp) / "faults" / repo.name
            shutil.copytree(root, faulty, symlinks=True)
        before_report = check_json(root, timeout)
        before_bytes = snapshot(root)
        prompts_before = {}
        for path, entries in _by_path(before_report).items():
            if any(e.get("fix") for e in entries for e in e.get("findings", [])):
                prompts_before[path] = read_prompts(root / path)
        result.exit_fix, _ = run([sys.executable, "-m", "prefixlint", "check", "--offline", "--no-cache",
                                  "--exit-zero", "--fix", "--unsafe-fixes", "-q", "."], root, timeout)
        after_bytes = snapshot(root)
        after_report = check_json(root, timeout)
        before, after = _by_path(before_report), _by_path(after_report)
        result.files = len(before)
        count = lambda entries: sum(f["code"] in MOVING for e in entries for f in e.get("findings", []))  # noqa: E731
        result.findings_before = sum(count(e) for e in before.values())
        result.findings_after = sum(count(e) for e in after.values())
        for path, entries in before.items():
            for entry in entries:
                result.figure += [f"{path}: {x}" for x in figure_disagreements(entry)]
        changed = sorted(p for p in after_bytes if before_bytes.get(p) != after_bytes[p])
        if faults:  # the same fix with every write limited to 1,024 bytes: each file whole or fixed
            run(["prlimit", "--fsize=1024", sys.executable, "-m", "prefixlint", "check", "--offline", "--no-cache",
                 "--exit-zero", "--fix", "--unsafe-fixes", "-q", "."], faulty, timeout)
            written = snapshot(faulty)
            result.torn = sorted(p for p in changed if written.get(p) not in (before_bytes[p], after_bytes[p]))
        for path in changed:
            entries_after = after.get(path, [])
            error = next((e["error"].get("message", "error") if isinstance(e["error"], dict) else str(e["error"])
                          for e in entries_after if e.get("error")), None)
            error = error or next((e.get("message", "error") for e in after_report.get("errors", [])
                                   if e.get("path") == path), None)
            fixes = sum(bool(f.get("fix")) for e in before.get(path, []) for f in e.get("findings", []))
            prompts = prompts_before.get(path) or _read_bytes(root / path, before_bytes[path])
            judged = judge_file(path, prompts, read_prompts(root / path),
                                count(before.get(path, [])), count(entries_after), error, fixes)
            reused = [sum(e.get("reusable_tokens") or 0 for e in x) for x in (before.get(path, []), entries_after)]
            if not error and reused[1] <= reused[0]:
                judged.failures.append(f"gain: {reused[0]} -> {reused[1]} reusable tokens")
            result.changed.append(judged)
    return result


def _read_bytes(path: Path, data: bytes) -> list[Prompt] | None:
    """The prompts of the file as it was (written back for the read, then restored)."""
    now = path.read_bytes()
    path.write_bytes(data)
    try:
        return read_prompts(path)
    finally:
        path.write_bytes(now)


def table(results: list[RepoJudgement]) -> str:
    head = ["repository", "files", "volatile", "changed", *INVARIANTS, *REVIEW, "figure", "torn"]
    rows = [head]
    for r in results:
        rows.append([r.name[:40], str(r.files), f"{r.findings_before}->{r.findings_after}", str(len(r.changed)),
                     *(str(r.failing(i)) for i in (*INVARIANTS, *REVIEW)), str(len(r.figure)), str(len(r.torn))])
    total = ["total", str(sum(r.files for r in results)),
             f"{sum(r.findings_before for r in results)}->{sum(r.findings_after for r in results)}",
             str(sum(len(r.changed) for r in results)),
             *(str(sum(r.failing(i) for r in results)) for i in (*INVARIANTS, *REVIEW)),
             str(sum(len(r.figure) for r in results)), str(sum(len(r.torn) for r in results))]
    rows.append(total)
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
                     for row in rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--details", action="store_true", help="name each failing file and invariant")
    parser.add_argument("--json", action="store_true", help="print the judgements as JSON")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per prefixlint run")
    parser.add_argument("--faults", action="store_true",
                        help="also fix a second copy with writes limited to 1,024 bytes (prlimit): no file may be torn")
    args = parser.parse_args(argv)
    results = []
    for repo in args.repos:
        try:
            results.append(judge_repo(repo, args.timeout, args.faults))
        except Exception as exc:  # noqa: BLE001 - one repository's failure is reported, the others judged
            results.append(RepoJudgement(repo.name, note=f"{type(exc).__name__}: {exc}"))
        print(f"judged {repo.name}: {len(results[-1].changed)} files changed", file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps([{"repo": r.name, "files": r.files, "changed": [vars(j) for j in r.changed],
                           "figure": r.figure, "findings": [r.findings_before, r.findings_after]}
                          for r in results], indent=2))
        return 0
    print(table(results))
    if args.details:
        for r in results:
            for judged in r.changed:
                for failure in judged.failures:
                    print(f"{r.name}/{judged.path}: {failure}")
            for line in r.figure:
                print(f"{r.name}/{line}: figure")
            if r.note:
                print(f"{r.name}: not judged: {r.note}")
            for path in r.torn:
                print(f"{r.name}/{path}: torn by a write that failed part-way")
    return 0


if __name__ == "__main__":
    sys.exit(main())
