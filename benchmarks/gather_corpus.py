"""Copy the real-corpus files out of fetched git snapshots into a folder laid out
<repo>/<commit>/<path>, and check out the whole repositories of real_repos.yaml.

    python benchmarks/gather_corpus.py --mirrors /work/.mirror --out /tmp/realcorpus
    python benchmarks/gather_corpus.py --repos-out /tmp/realrepos   # whole repositories too
    python benchmarks/gather_corpus.py --checkouts --out /tmp/realcorpus_checkouts  # each file in its repository

Each (repo, commit) has its own folder, so the two halves of a before/after pair keep their own
text. An entry's `also:` paths (files it reads, such as a promptfoo config's prompt file or a
Prompty sample) are copied beside it at the same commit. An entry marked `source: read_file`
comes from a repository too large to fetch: save its text, read with the read_file tool at
that commit, under `--saved` (<repo>/<commit>/<path>) and it is copied from there (so is a file
whose commit the fetched snapshot no longer holds, after a force-push). `--repos-out` writes each repository
of tests/corpus/real_repos.yaml at its pinned commit under <dir>/<owner>+<name> (`git archive`).

`--checkouts` writes, for each (repo, commit), the whole tree at that commit (`git archive`) with
an empty `.git` folder, so that each file is checked inside its own repository, as a user runs
`check FILE` in a checkout (or pre-commit does): the code that fills and sends a prompt file is
there, as it was when the file was labelled. A file from `--saved` (a repository too large to
fetch) stays alone in its folder.

`--mirrors` holds one git directory per repository, as the `fetch` tool leaves them
(`<owner>+<name>/repo`). Each file of tests/corpus/real_corpus.yaml is read with
`git show <commit>:<path>`; a repository that is missing, or a commit it lacks, is listed at
the end and the file skipped (benchmarks/gather_corpus.md says what to do then). Never write
the output inside this repository: these files are other projects' code.
"""

from __future__ import annotations

import argparse
import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import yaml

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "corpus" / "real_corpus.yaml"
REPOS = CORPUS.with_name("real_repos.yaml")


def git_dir(mirrors: Path, repo: str) -> Path | None:
    base = mirrors / repo.replace("/", "+")
    for candidate in (base / "repo", base):
        if (candidate / "HEAD").exists() or (candidate / ".git").exists():
            return candidate
    return None


def checkout_repos(mirrors: Path, out: Path) -> list[str]:
    """Write each repository of real_repos.yaml at its commit under out/<owner>+<name>."""
    missing = []
    for repo in yaml.safe_load(REPOS.read_text(encoding="utf-8"))["repos"]:
        gdir = git_dir(mirrors, repo["repo"])
        target = out / repo["repo"].replace("/", "+")
        if gdir is None:
            missing.append(f"{repo['repo']}  (no snapshot: fetch github:{repo['repo']})")
            continue
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        archive = subprocess.run(["git", "--git-dir", str(gdir), "archive", repo["commit"]],
                                 capture_output=True)
        if archive.returncode != 0:
            missing.append(f"{repo['repo']}@{repo['commit']}  "
                           f"({archive.stderr.decode().strip()[:80]})")
            continue
        with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
            tar.extractall(target, filter="data")
    print(f"repositories checked out under {out}")
    return missing


def _inside(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
    """tarfile's `data` filter, leaving out (not failing on) a link that points outside."""
    try:
        return tarfile.data_filter(member, path)
    except tarfile.FilterError:
        return None


def checkout_commit(gdir: Path, commit: str, target: Path) -> str | None:
    """Write the tree of `commit` under `target` with an empty `.git` (the repository's mark);
    the error when the snapshot cannot archive it, else None."""
    if (target / ".git").is_dir():
        return None  # another entry of the same commit wrote it
    archive = subprocess.run(["git", "--git-dir", str(gdir), "archive", commit], capture_output=True)
    if archive.returncode != 0:
        return archive.stderr.decode().strip()[:80]
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(target, filter=_inside)
    (target / ".git").mkdir()
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=Path("/tmp/realcorpus"))
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--saved", type=Path, default=Path("/tmp/saved"),
                        help="files saved from the read_file tool, laid out <repo>/<commit>/<path>")
    parser.add_argument("--repos-out", type=Path, default=None,
                        help="also check out real_repos.yaml's repositories under this folder")
    parser.add_argument("--checkouts", action="store_true",
                        help="write each file's whole repository at its commit (an empty .git marks it)")
    args = parser.parse_args(argv)
    entries = yaml.safe_load(args.corpus.read_text(encoding="utf-8"))["files"]
    missing: list[str] = []
    written = 0
    for entry in entries:
        gdir = git_dir(args.mirrors, entry["repo"])
        saved = args.saved / entry["repo"] / entry["commit"] / entry["path"]
        if gdir is None and saved.is_file():  # read with the read_file tool (`source: read_file`)
            target = args.out / entry["repo"] / entry["commit"] / entry["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(saved, target)
            written += 1
            continue
        if gdir is None:
            missing.append(f"{entry['repo']}@{entry['commit']}:{entry['path']}  "
                           f"(no snapshot: fetch github:{entry['repo']})")
            continue
        failed = checkout_commit(gdir, entry["commit"], args.out / entry["repo"] / entry["commit"]) \
            if args.checkouts else "not asked"
        if failed is None and (args.out / entry["repo"] / entry["commit"] / entry["path"]).is_file():
            written += 1
            continue
        for index, path in enumerate([entry["path"], *entry.get("also", [])]):
            target = args.out / entry["repo"] / entry["commit"] / path
            ref = f"{entry['commit']}:{path}"
            shown = subprocess.run(["git", "--git-dir", str(gdir), "show", ref],
                                   capture_output=True)
            kept = args.saved / entry["repo"] / entry["commit"] / path
            if shown.returncode != 0 and kept.is_file():  # a commit the snapshot no longer has
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(kept, target)
                written += index == 0
                continue
            if shown.returncode != 0:
                missing.append(f"{entry['repo']}@{ref}  ({shown.stderr.decode().strip()[:80]})")
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(shown.stdout)
            written += index == 0
    print(f"{written} of {len(entries)} files written under {args.out}")
    if args.repos_out is not None:
        missing += checkout_repos(args.mirrors, args.repos_out)
    for line in missing:
        print(f"  missing: {line}")
    return 0 if not missing else 1


if __name__ == "__main__":
    sys.exit(main())
