"""Score `prefixlint check` on the real-world corpus of issue 11, or on our own fixtures.

    # the fixtures (tests/corpus/fixtures, verdicts in tests/corpus/expected.yaml)
    python benchmarks/score_corpus.py --fixtures
    # the real files, gathered into a folder laid out <repo>/<commit>/<path> (gather_corpus.md)
    python benchmarks/score_corpus.py --real /tmp/realcorpus
    # whole repositories at pinned commits (tests/corpus/real_repos.yaml), checked out under DIR
    python benchmarks/score_corpus.py --repos /tmp/realrepos

Each listed file is checked on its own by the installed command, as a user runs it
(`prefixlint check --format json --isolated FILE`, a subprocess), and its result compared with
the verdict: FIRE when at least one finding of a volatile-value rule (PFX001-PFX005, PFX101,
PFX102) at warning or error severity is reported for the file or for a file it references (a
promptfoo config's prompt files), CLEAN when none is (an `info` finding, such as a value fixed
once per process, is printed but is not a FIRE), REFUSED when the command exits 2 or reports an
error for it. Each (repo, commit, path) has its own folder, so the two halves of a before/after
pair are each scored on their own text; a file not gathered is listed and left out of the score.
An entry marked `prompt: false` (a documentation page, code that calls no model) is right when
nothing is reported for it; named alone it may be refused, but not with an internal error.
A refusal is never right: a FIRE file refused is a missed finding, a CLEAN file refused a wrong
verdict. Prints every file's verdict and result, precision and recall of FIRE, the share of
verdicts right, the expected codes found, and the refusals per source kind. Not run in CI: it
prints figures, it asserts nothing (exit 0 unless the corpus itself cannot be read).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent.parent / "tests" / "corpus"
VOLATILE_CODES = {"PFX001", "PFX002", "PFX003", "PFX004", "PFX005", "PFX101", "PFX102"}


@dataclass
class Case:
    ident: str
    file: Path
    kind: str
    verdict: str
    codes: list[str]
    variable: str | None
    reason: str = ""
    gathered: bool = True
    prompt: bool = True  # False: not a prompt (docs, non-LLM code); named alone it may be refused
    held_out: bool = False  # a held-out file (labelled apart, scored apart with --held-out)


@dataclass
class Outcome:
    result: str  # FIRE, CLEAN or REFUSED
    codes: list[str] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    error: str = ""


def load_cases(args: argparse.Namespace) -> list[Case]:
    if args.real is not None:
        entries = yaml.safe_load((HERE / "real_corpus.yaml").read_text(encoding="utf-8"))["files"]
        return [
            Case(e["id"], real_path(args.real, e), e["kind"], e["verdict"],
                 e.get("codes") or [], e.get("variable"), e.get("reason", ""),
                 real_path(args.real, e).is_file(), e.get("prompt", True), e.get("held_out", False))
            for e in entries
        ]
    root = args.root or HERE / "fixtures"
    entries = yaml.safe_load((HERE / "expected.yaml").read_text(encoding="utf-8"))["files"]
    return [
        Case(e["path"], root / e["path"], e["kind"], e["verdict"], e.get("codes") or [],
             e.get("variable"), e.get("reason", ""))
        for e in entries
    ]


def real_path(root: Path, entry: dict) -> Path:
    """Where gather_corpus.py writes an entry: its own folder per (repo, commit)."""
    return root / entry["repo"] / entry["commit"] / entry["path"]


def volatile_findings(report: dict) -> tuple[list[str], list[str], list[str]]:
    """Codes and variables of the volatile-value findings at warning or above, and the info ones."""
    codes, variables, info = [], [], []
    for entry in report.get("files", []):
        for finding in entry.get("findings", []):
            if finding.get("code") not in VOLATILE_CODES:
                continue
            name = str(finding.get("variable") or finding.get("name") or "")
            if finding.get("severity") == "info":
                info.append(f"{finding['code']} {name}")
            else:
                codes.append(finding["code"])
                variables.append(name)
    return codes, variables, info


def run_check(command: list[str], case: Case, timeout: float, hook: bool = False) -> Outcome:
    if not case.file.is_file():
        return Outcome("REFUSED", error="file not gathered")
    argv = [*command, "check", "--format", "json", "--isolated", *(["--skip-non-templates"] if hook else []),
            case.file.name]
    try:
        done = subprocess.run(argv, cwd=case.file.parent, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return Outcome("REFUSED", error=f"timed out after {timeout:.0f} s")
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        tail = (done.stderr.strip().splitlines() or ["no output"])[-1]
        return Outcome("REFUSED", error=f"exit {done.returncode}: {tail[:120]}")
    errors = report.get("errors") or []
    codes, variables, _info = volatile_findings(report)
    if done.returncode == 2 or errors:
        message = errors[0].get("message", "") if errors else "exit 2"
        return Outcome("REFUSED", codes, variables, error=message[:120])
    return Outcome("FIRE" if codes else "CLEAN", codes, variables)


def is_right(case: Case, outcome: Outcome) -> bool:
    """A file that is not a prompt is right when nothing is reported for it: named alone on
    the command line it may be refused ("no prompt found"), but never with an internal error."""
    if not case.prompt and outcome.result == "REFUSED":
        return case.verdict == "CLEAN" and not outcome.error.startswith("internal error")
    return outcome.result == case.verdict


def print_table(cases: list[Case], outcomes: list[Outcome]) -> None:
    width = max(len(c.ident) for c in cases)
    print(f"{'file':<{width}}  {'kind':<22} verdict  result   ok  detail")
    for case, out in zip(cases, outcomes):
        mark = "yes" if is_right(case, out) else "NO"
        if out.result == "REFUSED":
            detail = out.error
        elif out.codes:
            detail = ", ".join(f"{c} {v}" for c, v in zip(out.codes, out.variables))[:100]
        else:
            detail = ""
        print(f"{case.ident:<{width}}  {case.kind:<22} {case.verdict:<7}  {out.result:<8} "
              f"{mark:<3} {detail}")


def summarize(cases: list[Case], outcomes: list[Outcome]) -> dict:
    tp = sum(c.verdict == "FIRE" and o.result == "FIRE" for c, o in zip(cases, outcomes))
    fp = sum(c.verdict == "CLEAN" and o.result == "FIRE" for c, o in zip(cases, outcomes))
    fn = sum(c.verdict == "FIRE" and o.result != "FIRE" for c, o in zip(cases, outcomes))
    right = sum(is_right(c, o) for c, o in zip(cases, outcomes))
    code_hits = sum(
        c.verdict == "FIRE" and o.result == "FIRE" and bool(set(c.codes) & set(o.codes))
        for c, o in zip(cases, outcomes)
    )
    first_hits = sum(
        c.verdict == "FIRE" and o.result == "FIRE" and c.variable in o.variables[:1]
        for c, o in zip(cases, outcomes)
    )
    refusals: dict[str, Counter] = defaultdict(Counter)
    for case, out in zip(cases, outcomes):
        refusals[case.kind]["files"] += 1
        if out.result == "REFUSED":
            refusals[case.kind]["refused"] += 1
    return {
        "files": len(cases), "fire": sum(c.verdict == "FIRE" for c in cases),
        "clean": sum(c.verdict == "CLEAN" for c in cases),
        "true_positives": tp, "false_positives": fp, "false_negatives": fn,
        "precision": tp / (tp + fp) if tp + fp else None,
        "recall": tp / (tp + fn) if tp + fn else None,
        "right": right, "right_share": right / len(cases) if cases else None,
        "expected_code_found": code_hits, "expected_variable_first": first_hits,
        "refused": sum(o.result == "REFUSED" for o in outcomes),
        "refusals_by_kind": {k: dict(v) for k, v in sorted(refusals.items())},
    }


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def print_summary(s: dict) -> None:
    print()
    print(f"{s['files']} files ({s['fire']} FIRE, {s['clean']} CLEAN): "
          f"{s['right']} verdicts right ({pct(s['right_share'])}), {s['refused']} refused")
    print(f"FIRE: precision {pct(s['precision'])} ({s['true_positives']} of "
          f"{s['true_positives'] + s['false_positives']} reported files), recall "
          f"{pct(s['recall'])} ({s['true_positives']} of {s['fire']}); expected code among the "
          f"findings in {s['expected_code_found']} of {s['true_positives']}, expected value "
          f"reported first in {s['expected_variable_first']}")
    print("refusals per kind:")
    for kind, counts in s["refusals_by_kind"].items():
        print(f"  {kind:<22} {counts.get('refused', 0)} of {counts['files']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--fixtures", action="store_true", help="score tests/corpus/fixtures")
    group.add_argument("--real", type=Path, metavar="DIR",
                       help="score the real files gathered into DIR/<repo>/<commit>/<path>")
    group.add_argument("--repos", type=Path, metavar="DIR",
                       help="score whole repositories checked out under DIR/<owner>+<name>")
    parser.add_argument("--root", type=Path, help="fixtures folder (default tests/corpus/fixtures)")
    parser.add_argument("--command", default=None,
                        help="the prefixlint command (default: the one beside this Python)")
    parser.add_argument("--kind", action="append", help="only files of this source kind (repeatable)")
    parser.add_argument("--held-out", "--heldout", dest="held_out", action="store_true",
                        help="with --real: only the entries marked `held_out: true` (scored apart)")
    parser.add_argument("--hook", action="store_true",
                        help="check each file as the pre-commit hook does (`--skip-non-templates`: a "
                             "file a walk of its repository would skip is skipped); with files gathered "
                             "`--checkouts`, each file is judged as in its repository")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--json", type=Path, help="also write the per-file results and summary here")
    args = parser.parse_args(argv)
    command = args.command.split() if args.command else [default_command()]
    if args.repos is not None:
        from corpus_repos import score_repos

        return score_repos(command, args.repos, HERE / "real_repos.yaml", args.timeout, args.json)
    cases = [c for c in load_cases(args) if (not args.kind or c.kind in args.kind)
             and (not args.held_out or c.held_out)]
    missing = [c for c in cases if not c.gathered]
    cases = [c for c in cases if c.gathered]
    for case in missing:
        print(f"not gathered (left out): {case.ident}  {case.file}")
    outcomes = [run_check(command, case, args.timeout, args.hook) for case in cases]
    print_table(cases, outcomes)
    summary = summarize(cases, outcomes)
    print_summary(summary)
    if args.json:
        rows = [{"id": c.ident, "kind": c.kind, "verdict": c.verdict, "result": o.result,
                 "codes": o.codes, "variables": o.variables, "error": o.error}
                for c, o in zip(cases, outcomes)]
        args.json.write_text(json.dumps({"files": rows, "summary": summary}, indent=2) + "\n")
    return 0


def default_command() -> str:
    beside = Path(sys.executable).with_name("prefixlint")
    return str(beside) if beside.exists() else (shutil.which("prefixlint") or "prefixlint")


if __name__ == "__main__":
    sys.exit(main())
