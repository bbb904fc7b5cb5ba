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
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

MOVING = frozenset({"PFX001", "PFX002", "PFX003", "PFX004", "PFX005"})
INVARIANTS = ("loads", "places", "words", "empty", "fewer")
REVIEW = ("persona", "split", "label", "gain")
#: Words a clause loses when it is made a sentence of its own (`, and the date is {d}`).
CONNECTORS = frozenset({"and", "but", "where", "with", "on", "at", "as", "of", "since", "until", "for"})
#: A short label: at most this many words added per fix.
LABEL_WORDS = 4

_WORD = re.compile(r"[^\W_](?:[\w'’-]*[^\W_])?")
_EMPTY_TAG = re.compile(r"<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?>\s*</\1\s*>")
_EMPTY_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n[ \t\n]*\1[ \t]*$", re.MULTILINE)
_EMPTY_QUOTES = re.compile(r'("""|\'\'\'|``)\s*\1|(?<![\w"])""(?![\w"])')
_EMPTY_JSON = re.compile(r"(?<![\w{$])(\{\s*\}|\[\s*\])")
_EMPTY_KEY = re.compile(r"^([ \t]*)(?:- )?[\"']?[\w-]+[\"']?:[ \t]*$")
_HEADER = re.compile(r"^[ \t]*#{1,6}[ \t]+\S.*$|^[ \t]*[A-Z][A-Z0-9 _/&-]{2,60}:[ \t]*$|^[ \t]*\*\*[^*\n]+\*\*:?[ \t]*$"
                     r"|^[ \t]*([=*~#-])\1{2,}[ \t]*\S(?:.*?\S)?[ \t]*\1{3,}[ \t]*$")
_SENTENCE = re.compile(r"[^.!?\n]*[.!?\n]?")
_FENCE = re.compile(r"^[ \t]*(```|~~~)[^\n]*\n.*?^[ \t]*\1[ \t]*$", re.MULTILINE | re.DOTALL)
_ELEMENT = re.compile(r"<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?>.*?</\1\s*>", re.DOTALL)
_INTRO = re.compile(r"[ \t]*(?:#{1,6}[ \t]+\S.*|\S.*:|([=*~#-])\1{2,}[ \t]*\S(?:.*?\S)?[ \t]*\1{3,})[ \t]*")
_OPENER = re.compile(r"[ \t]*(?:<[A-Za-z][^<>]*>|[{\[]|```[^\n]*|~~~[^\n]*)[ \t]*")
_LABEL = re.compile(r"([^\W_][\w'’ -]{0,40}?)[ \t]*[:=][ \t]*[\"'`(\[]?$")


@dataclass
class Prompt:
    format: str
    role_texts: list[tuple[str | None, str, list[tuple[int, int]]]]  # (role, text, placeholder spans)
    names: Counter


@dataclass
class FileJudgement:
    path: str
    failures: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


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


def words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in _WORD.findall(text)]


def blanked(text: str, spans) -> str:
    chars = list(text)
    for start, end in spans:
        for i in range(start, min(end, len(chars))):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)


def read_prompts(path: Path) -> list[Prompt] | None:
    """The file's prompts as its loader reads them: (role, text, placeholder spans), names."""
    from prefixlint.fix.source import source_messages
    from prefixlint.load.registry import load_templates
    from prefixlint.render.compile import compile_template

    try:
        templates = load_templates(str(path))
        out = []
        for template in templates:
            compiled = compile_template(template)
            names: Counter = Counter()
            for placeholder in compiled.placeholders:
                names.update((*placeholder.names, *(f"{c}()" for c in placeholder.calls)))
            messages = source_messages(template, compiled.placeholders)
            texts = [(m.role, m.text, [(s.start, s.end) for s in m.spans]) for m in messages]
            out.append(Prompt(template.format, texts, names))
        return out
    except Exception:  # noqa: BLE001 - a file that no longer loads is what is judged
        return None


def empty_containers(text: str) -> int:
    count = (len(_EMPTY_TAG.findall(text)) + len(_EMPTY_FENCE.findall(text)) + len(_EMPTY_JSON.findall(text))
             + len(_EMPTY_QUOTES.findall(text)))
    lines = text.split("\n")
    for number, line in enumerate(lines):
        following = next((x for x in lines[number + 1 :] if x.strip()), None)
        if _HEADER.fullmatch(line) and (following is None or _HEADER.fullmatch(following)):
            count += 1
        key = _EMPTY_KEY.fullmatch(line)
        if key and not _HEADER.fullmatch(line):  # `key:` with nothing nested under it
            indent = len(key.group(1))
            if following is None or len(following) - len(following.lstrip()) <= indent:
                count += 1
    return count


def containers(text: str, spans) -> list[str]:
    """Each fence, JSON example or XML-like element of `text` holding a placeholder, as written."""
    found = []
    for pattern in (_FENCE, _ELEMENT):
        for match in pattern.finditer(text):
            if any(match.start() <= s < match.end() for s, _ in spans):
                found.append(match.group(0).strip())
    for start, end in _json_blocks(text):
        if any(start <= s < end for s, _ in spans):
            found.append(text[start:end].strip())
    return found


def _json_blocks(text: str):
    """[start, end) of each bracketed block that opens at the end of a line and closes on a later one."""
    for match in re.finditer(r"[{\[][ \t]*\n", text):
        depth, index = 0, match.start()
        pairs = {"{": "}", "[": "]"}
        stack = []
        while index < len(text):
            char = text[index]
            if char in pairs:
                stack.append(pairs[char])
            elif stack and char == stack[-1]:
                stack.pop()
                if not stack:
                    yield match.start(), index + 1
                    break
            depth += 1
            index += 1
            if depth > 20000:
                break


def opening(text: str, spans) -> str:
    """The message's first sentence, values blanked, as words."""
    plain = blanked(text, spans).lstrip()
    first = _SENTENCE.match(plain)
    return " ".join(words(first.group(0) if first else ""))


def labels(text: str, spans) -> Counter:
    """(label, placeholder text) for every placeholder written right after `Label:` on its line,
    and for every placeholder alone on its line (or opening a tag under it) whose line above
    (past blank lines) introduces it: a header, or a line ending with `:`."""
    out: Counter = Counter()
    plain = blanked(text, spans)
    for start, end in spans:
        line_start = text.rfind("\n", 0, start) + 1
        line_end = text.find("\n", start)
        line_end = len(text) if line_end < 0 else line_end
        match = _LABEL.search(plain[line_start:start])
        if match:
            out[(" ".join(words(match.group(1))[-3:]), text[start:end])] += 1
            continue
        if plain[line_start:line_end].strip():
            continue
        above = [line for line in text[:line_start].split("\n") if line.strip()][-2:]
        if above and _OPENER.fullmatch(above[-1]):  # `<Messages>` over the value: the line above the tag
            above = above[:-1]
        if above and _INTRO.fullmatch(above[-1]):
            out[(above[-1].strip()[-40:], text[start:end])] += 1
    return out


def judge_file(path: str, before: list[Prompt] | None, after: list[Prompt] | None, volatile_before: int,
               volatile_after: int, after_error: str | None, fixes: int) -> FileJudgement:
    judged = FileJudgement(path)
    fail = judged.failures.append
    if after is None or after_error or before is None or [p.format for p in before] != [p.format for p in after]:
        fail(f"loads: {after_error or 'the fixed file does not load as the same prompts'}")
        return judged
    names_before = sum((p.names for p in before), Counter())
    names_after = sum((p.names for p in after), Counter())
    if names_before != names_after:
        fail(f"places: lost {dict(names_before - names_after)} gained {dict(names_after - names_before)}")
    texts_before = [t for p in before for t in p.role_texts]
    texts_after = [t for p in after for t in p.role_texts]
    wb = Counter(w for _, text, spans in texts_before for w in words(blanked(text, spans)))
    wa = Counter(w for _, text, spans in texts_after for w in words(blanked(text, spans)))
    lost = {w: n for w, n in (wb - wa).items() if w not in CONNECTORS}
    added = sum((wa - wb).values())
    if lost or added > LABEL_WORDS * max(fixes, 1):
        fail(f"words: lost {sorted(lost)[:4]}, added {added}")
    if sum(empty_containers(t) for _, t, _ in texts_after) > sum(empty_containers(t) for _, t, _ in texts_before):
        fail("empty: an empty tag, fence, container or header is left")
    if volatile_after >= volatile_before:
        fail(f"fewer: {volatile_before} -> {volatile_after} volatile findings")
    for (role, text, spans), (_, text_after, spans_after) in zip(texts_before, texts_after):
        first = opening(text, spans)
        if len(first.split()) > LABEL_WORDS and opening(text_after, spans_after) != first:
            fail(f"persona: the opening {first[:50]!r} of a {role or 'prompt'} message moved")
    whole = "\n".join(t for _, t, _ in texts_after)
    for _, text, spans in texts_before:
        for container in containers(text, spans):
            if container not in whole:
                fail(f"split: {container.splitlines()[0][:40]!r}... is not kept whole")
    label_before = sum((labels(t, s) for _, t, s in texts_before), Counter())
    label_after = sum((labels(t, s) for _, t, s in texts_after), Counter())
    for label, value in (label_before - label_after):
        fail(f"label: {value} left its label {label!r}")
    return judged


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
