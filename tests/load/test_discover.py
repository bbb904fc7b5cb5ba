"""File discovery: what a directory walk picks up, what it skips, and what it refuses."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prefixlint.errors import PrefixlintError
from prefixlint.load.discover import DEFAULT_PATTERNS, discover


def make(root: Path, *names: str, text: str = "x\n") -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def spelled(paths: list[Path]) -> list[str]:
    return [path.as_posix() for path in paths]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / ".git" / "info").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_directory_walk_takes_the_default_patterns_in_sorted_order(repo):
    make(repo, "prompts/support.yaml", "prompts/agent.yml", "prompts/notes/guide.md",
         "prompts/plain.txt", "prompts/a.j2", "prompts/b.jinja", "prompts/c.jinja2",
         "prompts/d.prompty", "prompts/e.prompt", "prompts/Upper.YAML",
         # not templates by extension
         "prompts/data.json", "prompts/build.py", "prompts/image.png", "prompts/yaml",
         # skipped directories and hidden files
         "prompts/.hidden.yaml", "prompts/.cache/x.yaml", "prompts/node_modules/pkg/x.yaml",
         "prompts/.venv/lib/x.yaml", "prompts/venv/x.yaml", "prompts/__pycache__/x.yaml")
    assert spelled(discover(["prompts"])) == [
        "prompts/Upper.YAML", "prompts/a.j2", "prompts/agent.yml", "prompts/b.jinja",
        "prompts/c.jinja2", "prompts/d.prompty", "prompts/e.prompt", "prompts/notes/guide.md",
        "prompts/plain.txt", "prompts/support.yaml",
    ]


def test_paths_keep_the_spelling_they_were_given_in(repo):
    make(repo, "prompts/a.yaml")
    assert spelled(discover(["./prompts/"])) == ["prompts/a.yaml"]
    assert discover([str(repo / "prompts")]) == [repo / "prompts" / "a.yaml"]


def test_files_named_on_the_command_line_are_taken_as_given(repo):
    make(repo, ".gitignore", text="*.yaml\nREADME.md\n")
    make(repo, "notes.json", "tool.py", "ignored.yaml", "README.md", ".hidden.yml")
    assert spelled(discover(["tool.py", "notes.json", "ignored.yaml", "README.md", ".hidden.yml"],
                            exclude=("*.json",))) == [
        ".hidden.yml", "README.md", "ignored.yaml", "notes.json", "tool.py"]


def test_force_exclude_applies_exclude_to_named_files_too(repo):
    make(repo, ".gitignore", text="ignored.yaml\n")
    make(repo, "drafts/a.yaml", "b.yaml", "ignored.yaml", "c.generated.yaml")
    named = ["drafts/a.yaml", "b.yaml", "ignored.yaml", "c.generated.yaml"]
    exclude = ("drafts/", "*.generated.yaml")
    assert spelled(discover(named, exclude=exclude)) == ["b.yaml", "c.generated.yaml", "drafts/a.yaml", "ignored.yaml"]
    # Only `exclude` is forced: .gitignore still never filters a file named on the command line.
    assert spelled(discover(named, exclude=exclude, force_exclude=True)) == ["b.yaml", "ignored.yaml"]


def test_each_file_appears_once(repo):
    make(repo, "prompts/a.yaml", "prompts/b.md")
    found = discover(["prompts", "prompts/a.yaml", "./prompts/b.md", "prompts", str(repo / "prompts/a.yaml")])
    assert spelled(found) == ["prompts/a.yaml", "prompts/b.md"]


def test_nested_gitignore_files_apply_below_their_directory(repo):
    make(repo, ".gitignore", text="drafts/\n*.gen.yaml\n")
    make(repo, "prompts/.gitignore", text="local.md\n!keep.gen.yaml\n")
    make(repo, "prompts/a.yaml", "prompts/local.md", "prompts/x.gen.yaml", "prompts/keep.gen.yaml",
         "prompts/drafts/d.yaml", "prompts/sub/local.md", "prompts/sub/y.gen.yaml",
         "other/local.md", "other/z.gen.yaml", "other/keep.gen.yaml", "drafts/top.yaml")
    assert spelled(discover(["."], prompts=("*.md",))) == [
        "other/local.md", "prompts/a.yaml", "prompts/keep.gen.yaml",
    ]


def test_gitignore_files_above_the_walked_directory_apply(repo):
    make(repo, ".gitignore", text="/prompts/old/\n*.bak.md\n")
    make(repo, "prompts/new.yaml", "prompts/old/v1.yaml", "prompts/sub/x.bak.md", "prompts/old.yaml")
    assert spelled(discover(["prompts"])) == ["prompts/new.yaml", "prompts/old.yaml"]
    os.chdir(repo / "prompts")
    assert spelled(discover(["."])) == ["new.yaml", "old.yaml"]


def test_git_info_exclude_applies(repo):
    (repo / ".git" / "info" / "exclude").write_text("scratch.md\n", encoding="utf-8")
    make(repo, "p/scratch.md", "p/real.md")
    assert spelled(discover(["p"], prompts=("*.md",))) == ["p/real.md"]


def test_outside_a_git_repository_only_gitignore_files_inside_the_walk_apply(monkeypatch):
    with tempfile.TemporaryDirectory() as name:
        root = Path(name)
        make(root, ".gitignore", text="*.md\n")
        make(root, "p/a.md", "p/b.yaml", "p/q/.gitignore", text="b.yaml\n")
        make(root, "p/b.yaml", "p/q/b.yaml", "p/q/c.md")
        monkeypatch.chdir(root / "p")
        if any((parent / ".git").exists() for parent in root.parents):
            pytest.skip("the temporary directory lies inside a git repository")
        assert spelled(discover(["."], prompts=("*.md",))) == ["a.md", "b.yaml", "q/c.md"]


def test_respect_gitignore_false_takes_ignored_files(repo):
    make(repo, ".gitignore", text="gen/\n*.md\n")
    make(repo, "p/a.md", "p/gen/b.yaml", "p/c.yaml", "p/.hidden/d.yaml")
    assert spelled(discover(["p"])) == ["p/c.yaml"]
    assert spelled(discover(["p"], respect_gitignore=False, prompts=("*.md",))) == [
        "p/a.md", "p/c.yaml", "p/gen/b.yaml"]


def test_exclude_patterns_are_gitignore_patterns_relative_to_the_working_directory(repo):
    make(repo, "prompts/a.yaml", "prompts/drafts/b.yaml", "prompts/sub/drafts/c.yaml",
         "prompts/x.generated.yaml", "prompts/sub/keep.yaml", "prompts/sub/top.yaml", "top.yaml")
    found = discover(["."], exclude=("drafts/", "*.generated.yaml", "/top.yaml"))
    assert spelled(found) == ["prompts/a.yaml", "prompts/sub/keep.yaml", "prompts/sub/top.yaml"]
    anchored = discover(["prompts"], exclude=("/prompts/sub/",))
    assert spelled(anchored) == ["prompts/a.yaml", "prompts/drafts/b.yaml", "prompts/x.generated.yaml"]


def test_exclude_root_anchors_patterns_from_a_configuration_file(repo):
    make(repo, "proj/prompts/a.yaml", "proj/prompts/legacy/b.yaml", "proj/legacy/c.yaml")
    found = discover(["proj"], exclude=("/prompts/legacy/",), exclude_root=repo / "proj")
    assert spelled(found) == ["proj/legacy/c.yaml", "proj/prompts/a.yaml"]


def test_project_files_are_not_templates(repo):
    make(repo, "README.md", "readme.txt", "docs/CHANGELOG.md", "LICENSE.txt", "requirements-dev.txt",
         "docker-compose.yml", "mkdocs.yml", "CONTRIBUTING.md", "prompts/system.md", "prompts/README.md",
         "constraints.txt", "notes.txt",
         # prompts whose names merely resemble project files are kept
         "prompts/support.md", "prompts/history.md", "prompts/news_digest.md", "prompts/readme_writer.md")
    skipped: dict[str, str] = {}
    assert spelled(discover(["."], skipped=skipped)) == [
        "prompts/history.md", "prompts/news_digest.md", "prompts/readme_writer.md",
        "prompts/support.md", "prompts/system.md"]
    assert skipped["README.md"] == skipped["prompts/README.md"] == (
        "a project file (README, LICENSE, a manifest), not a prompt")
    assert skipped["docs/"] == "a documentation, website or fixture tree (docs/), not prompts"
    assert skipped["notes.txt"].startswith("Markdown or text with no evidence that it is a prompt")


def test_custom_patterns_extend_the_defaults(repo):
    make(repo, "p/a.json", "p/b.yaml", "p/c.toml")
    assert spelled(discover(["p"], patterns=DEFAULT_PATTERNS + ("*.json",))) == ["p/a.json", "p/b.yaml"]
    assert "*.json" not in DEFAULT_PATTERNS


def test_symlinked_directories_are_not_followed_but_symlinked_files_are(repo):
    make(repo, "real/a.yaml", "p/b.yaml")
    os.symlink(repo / "real", repo / "p" / "linked")
    os.symlink(repo / "real" / "a.yaml", repo / "p" / "alias.yaml")
    os.symlink(repo / "p", repo / "p" / "loop")
    os.symlink(repo / "missing.yaml", repo / "p" / "broken.yaml")
    assert spelled(discover(["p"])) == ["p/alias.yaml", "p/b.yaml"]


def test_standard_input_is_passed_through(repo):
    make(repo, "a.yaml")
    assert spelled(discover(["-", "a.yaml"])) == ["-", "a.yaml"]


def test_a_missing_path_is_an_error_naming_it(repo):
    with pytest.raises(PrefixlintError) as caught:
        discover(["prompts/nope.yaml"])
    assert (caught.value.path, caught.value.message) == ("prompts/nope.yaml", "no such file or directory")


def test_a_directory_without_templates_is_an_error(repo):
    make(repo, "src/table.csv", "src/logo.png")
    with pytest.raises(PrefixlintError) as caught:
        discover(["src"])
    assert caught.value.message == (
        "no template files found under src (patterns: *.yaml *.yml *.md *.txt *.j2 *.jinja"
        " *.jinja2 *.prompty *.prompt)")
    assert caught.value.hint == "name a file on the command line to check it whatever its name"


def test_a_directory_whose_files_are_all_skipped_for_what_they_are_is_no_error(repo):
    """Program source with no prompt, a README, a page with no evidence: each skipped with its
    reason (issue 19: a walk never fails on what is not a prompt), and nothing left is no error."""
    make(repo, "src/main.py", "src/data.json", "src/README.md", "src/notes.md")
    skipped: dict[str, str] = {}
    assert discover(["src"], skipped=skipped) == []
    assert sorted(skipped) == ["src/README.md", "src/data.json", "src/main.py", "src/notes.md"]
    assert discover(["src", "src/"]) == []  # named twice: the second walk notes nothing new, still no error


def test_the_hint_counts_files_that_were_skipped(repo):
    make(repo, ".gitignore", text="*.yaml\n")
    make(repo, "docs/a.yaml", "docs/b.yaml")
    with pytest.raises(PrefixlintError) as caught:
        discover(["docs"], exclude=())
    assert caught.value.hint == (
        "2 matching files skipped by .gitignore, exclude or as a link out of the repository;"
        " name a file on the command line to check it whatever its name")


def test_an_errors_list_collects_problems_and_discovery_goes_on(repo):
    make(repo, "p/a.yaml", "empty/x.csv", "b.md")
    errors: list[PrefixlintError] = []
    found = discover(["missing", "p", "empty", "b.md"], errors=errors)
    assert spelled(found) == ["b.md", "p/a.yaml"]
    assert [(error.path, error.message.split(" (")[0]) for error in errors] == [
        ("missing", "no such file or directory"), (None, "no template files found under empty")]


def test_importing_the_module_does_not_import_pathspec():
    code = "import sys, prefixlint.load.discover; print('pathspec' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# A property: whatever the tree, the walk returns exactly the files whose name matches a
# pattern and whose path has no hidden or skipped part, sorted, each once.
NAME = st.sampled_from(["a", "b", "Prompt", ".h", "node_modules", "sub", "x y"])
EXTENSION = st.sampled_from([".yaml", ".yml", ".md", ".j2", ".json", ".py", ""])
TREE = st.lists(st.tuples(st.lists(NAME, max_size=3), NAME, EXTENSION), min_size=1, max_size=12)


@settings(max_examples=40, deadline=None)
@given(TREE)
def test_the_walk_matches_an_independent_filter(tree):
    with tempfile.TemporaryDirectory() as name:
        root = Path(name) / "t"
        expected, markdown, sniffed = set(), [], []
        for folders, stem, extension in tree:
            relative = Path(*folders, stem + extension)
            target = root / relative
            if any((root / Path(*relative.parts[:i])).is_file() for i in range(1, len(relative.parts))):
                continue  # a file already sits where this needs a directory
            if target.is_dir():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("x", encoding="utf-8")
            hidden = any(part.startswith(".") or part == "node_modules" for part in relative.parts)
            prompt_named = any("prompt" in part.lower() for part in (*folders, stem))
            if not hidden and extension in (".yaml", ".yml", ".j2"):
                expected.add((root / relative).as_posix())
            elif not hidden and extension == ".md":
                markdown.append((target, prompt_named))
            elif not hidden and extension in (".json", ".py"):
                sniffed.append(target)  # read, and skipped with its reason: no prompt in "x"
        # Markdown is taken on evidence: a prompt-like name, or a template file (.j2) beside it
        expected |= {target.as_posix() for target, named in markdown
                     if named or any(p.suffix == ".j2" and p.is_file() for p in target.parent.iterdir())}
        if not expected and (markdown or sniffed):
            # every file skipped for what it is (Markdown without evidence, JSON data): no error
            assert discover([str(root)], respect_gitignore=False) == []
            return
        if not expected:
            with pytest.raises(PrefixlintError):
                discover([str(root)], respect_gitignore=False)
            return
        found = spelled(discover([str(root)], respect_gitignore=False))
        assert found == sorted(found, key=lambda item: Path(item).parts)
        assert set(found) == expected and len(found) == len(expected)
