"""Score `prefixlint check .` on whole repositories at pinned commits (tests/corpus/real_repos.yaml).

Used by `python benchmarks/score_corpus.py --repos DIR`. Each repository is checked out (by
`benchmarks/gather_corpus.py --repos-out DIR`) under DIR/<owner>+<name>, and the installed
command runs at its root as a user runs it: `prefixlint check --format json .`, no `--isolated`
(a repository's own configuration applies). Scored per repository: the exit status (2 is never
right), the files reported as errors and the internal errors among them, and each judged place:

- a FIRE place (a true finding, or a miss the tool should not make) is right when a finding of a
  volatile-value rule at warning or error severity is reported in that file on a line of the
  place (`line`, or `lines: [first, last]`, give or take `slack` lines, default 2) and, when the
  place names a `variable`, for that value (compared without case, `_` or punctuation, so
  `currentDate` is `current_date`); a finding for another value nearby does not count;
- a CLEAN place (a false alarm to avoid) is right when no such finding is reported there (the
  whole file when the place names no line) and the file is not reported as an error.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

VOLATILE_CODES = {"PFX001", "PFX002", "PFX003", "PFX004", "PFX005", "PFX101", "PFX102"}


@dataclass
class RepoRun:
    exit_status: int | None
    findings: dict[str, list[dict]] = field(default_factory=dict)  # path -> volatile findings
    errors: dict[str, str] = field(default_factory=dict)  # path -> message
    note: str = ""


def run_repo(command: list[str], root: Path, timeout: float) -> RepoRun:
    argv = [*command, "check", "--format", "json", "."]
    try:
        done = subprocess.run(argv, cwd=root, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return RepoRun(None, note=f"timed out after {timeout:.0f} s")
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return RepoRun(done.returncode, note=f"no JSON: {tail[:160]}")
    run = RepoRun(done.returncode)
    for entry in report.get("files", []):
        path = normalise(entry.get("path", ""))
        if entry.get("error"):
            run.errors[path] = str(entry["error"].get("message", entry["error"])
                                   if isinstance(entry["error"], dict) else entry["error"])
        found = [f for f in entry.get("findings", [])
                 if f.get("code") in VOLATILE_CODES and f.get("severity") != "info"]
        if found:
            run.findings[path] = found
    for error in report.get("errors") or []:
        path = normalise(str(error.get("path") or ""))
        run.errors.setdefault(path, str(error.get("message", "")))
    return run


def normalise(path: str) -> str:
    return path[2:] if path.startswith("./") else path


def place_lines(place: dict) -> tuple[int, int] | None:
    slack = int(place.get("slack", 2))
    if "lines" in place:
        first, last = place["lines"]
    elif "line" in place:
        first = last = place["line"]
    else:
        return None
    return first - slack, last + slack


def squash(name: object) -> str:
    return "".join(ch for ch in str(name or "").lower() if ch.isalnum())


def names_value(finding: dict, variable: str) -> bool:
    wanted = squash(variable)
    return any(wanted and (wanted in squash(got) or squash(got) and squash(got) in wanted)
               for got in (finding.get("variable"), finding.get("placeholder")))


def judge_place(place: dict, run: RepoRun) -> tuple[bool, str]:
    span = place_lines(place)
    found = [f for f in run.findings.get(place["path"], [])
             if span is None or span[0] <= f.get("line", 0) <= span[1]]
    seen = ", ".join(f"{f['code']} {f.get('variable')} l.{f.get('line')}" for f in found)[:90]
    if place["verdict"] == "FIRE":
        if place.get("variable"):
            found = [f for f in found if names_value(f, place["variable"])]
        return bool(found), seen or "no finding there"
    if place["path"] in run.errors:
        return False, f"error: {run.errors[place['path']][:80]}"
    return not found, seen


def score_repos(command: list[str], root: Path, listing: Path, timeout: float,
                json_out: Path | None) -> int:
    repos = yaml.safe_load(listing.read_text(encoding="utf-8"))["repos"]
    rows, totals = [], Counter()
    for repo in repos:
        where = root / repo["repo"].replace("/", "+")
        if not where.is_dir():
            print(f"not checked out (left out): {repo['repo']}  {where}")
            continue
        run = run_repo(command, where, timeout)
        internal = {p: m for p, m in run.errors.items() if m.startswith("internal error")}
        print(f"\n{repo['repo']}@{repo['commit'][:12]}: exit {run.exit_status}, "
              f"{len(run.errors)} file errors ({len(internal)} internal), "
              f"{sum(map(len, run.findings.values()))} findings in {len(run.findings)} files"
              f"{'; ' + run.note if run.note else ''}")
        for path, message in list(run.errors.items())[:8]:
            print(f"    error  {path}: {message[:110]}")
        right = 0
        for place in repo["places"]:
            ok, detail = judge_place(place, run)
            right += ok
            where_line = place.get("line") or place.get("lines") or "file"
            print(f"  {'yes' if ok else 'NO ':<3} {place['verdict']:<5} {place['path']}:{where_line}"
                  f" {place.get('variable') or ''}  {detail}")
        totals.update(repos=1, places=len(repo["places"]), right=right,
                      exit2=run.exit_status not in (0, 1), errors=len(run.errors),
                      internal=len(internal))
        rows.append({"repo": repo["repo"], "exit": run.exit_status, "errors": run.errors,
                     "internal": sorted(internal), "places": len(repo["places"]), "right": right})
    share = totals["right"] / totals["places"] if totals["places"] else 0.0
    print(f"\n{totals['repos']} repositories: exit 2 (or no report) in {totals['exit2']}, "
          f"{totals['errors']} file errors ({totals['internal']} internal); judged places "
          f"right {totals['right']} of {totals['places']} ({100 * share:.1f}%)")
    if json_out:
        json_out.write_text(json.dumps({"repos": rows, "summary": dict(totals)}, indent=2) + "\n")
    return 0
