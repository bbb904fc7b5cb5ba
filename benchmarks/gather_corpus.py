"""Copy the real-corpus files out of fetched git snapshots into a folder laid out <repo>/<path>.

    python benchmarks/gather_corpus.py --mirrors /work/.mirror --out /tmp/realcorpus

`--mirrors` holds one git directory per repository, as the `fetch` tool leaves them
(`<owner>+<name>/repo`). Each file of tests/corpus/real_corpus.yaml is read with
`git show <commit>:<path>`; a repository that is missing, or a commit it lacks, is listed at
the end and the file skipped (benchmarks/gather_corpus.md says what to do then). Never write
the output inside this repository: these files are other projects' code.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "real_corpus.yaml"


def git_dir(mirrors: Path, repo: str) -> Path | None:
    base = mirrors / repo.replace("/", "+")
    for candidate in (base / "repo", base):
        if (candidate / "HEAD").exists() or (candidate / ".git").exists():
            return candidate
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/realcorpus"))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args(argv)
    entries = yaml.safe_load(args.corpus.read_text(encoding="utf-8"))["files"]
    missing: list[str] = []
    written = 0
    for entry in entries:
        target = args.out / entry["repo"] / entry["path"]
        gdir = git_dir(args.mirrors, entry["repo"])
        ref = f"{entry['commit']}:{entry['path']}"
        if gdir is None:
            missing.append(f"{entry['repo']}@{ref}  (no snapshot: fetch github:{entry['repo']})")
            continue
        shown = subprocess.run(["git", "--git-dir", str(gdir), "show", ref], capture_output=True)
        if shown.returncode != 0:
            missing.append(f"{entry['repo']}@{ref}  ({shown.stderr.decode().strip()[:80]})")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(shown.stdout)
        written += 1
    print(f"{written} of {len(entries)} files written under {args.out}")
    for line in missing:
        print(f"  missing: {line}")
    return 0 if not missing else 1


if __name__ == "__main__":
    sys.exit(main())
