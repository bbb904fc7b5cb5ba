"""Reading files at a git revision: tree listing, contents, renames, and clear errors."""

import pytest

from prefixlint.errors import PrefixlintError
from prefixlint.load.gitrev import open_repository, repository_root
from tests.gitrepo import git, init_repo, write


@pytest.fixture
def repo(tmp_path):
    root = init_repo(tmp_path / "repo", {"prompts/a.md": "alpha\n", "prompts/b.md": "beta\n", "README.md": "r\n"})
    return root


def test_tree_lists_files_with_blob_ids_and_blob_reads_them(repo):
    r = open_repository(repo / "prompts")
    assert r.root == repo.resolve()
    head = r.commit("HEAD")
    assert head == git(repo, "rev-parse", "HEAD").stdout.strip()
    tree = r.tree(head)
    assert sorted(tree) == ["README.md", "prompts/a.md", "prompts/b.md"]
    assert tree["prompts/a.md"] == git(repo, "hash-object", "prompts/a.md").stdout.strip()
    assert r.blob(tree["prompts/b.md"]) == b"beta\n"
    assert r.blob(tree["prompts/a.md"]) == b"alpha\n"


def test_renames_between_a_revision_and_the_working_tree(repo):
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    git(repo, "mv", "prompts/a.md", "prompts/renamed.md")
    write(repo, {"prompts/b.md": "beta changed\n"})
    assert open_repository(repo).renames(base) == {"prompts/renamed.md": "prompts/a.md"}


def test_unknown_revision_is_a_readable_error(repo):
    with pytest.raises(PrefixlintError) as info:
        open_repository(repo).commit("no-such-branch")
    assert str(info.value).startswith("unknown git revision 'no-such-branch'")
    assert "fetch-depth: 0" in info.value.hint


def test_outside_a_repository(tmp_path):
    with pytest.raises(PrefixlintError) as info:
        open_repository(tmp_path)
    assert info.value.message == "not inside a git repository"
    assert repository_root(tmp_path) == tmp_path.resolve()


def test_relative_paths_are_repository_relative(repo, monkeypatch):
    monkeypatch.chdir(repo / "prompts")
    r = open_repository()
    assert r.relative("a.md") == "prompts/a.md"
    with pytest.raises(PrefixlintError):
        r.relative(repo.parent / "elsewhere.md")


def test_compare_reports_added_removed_modified_renamed_unchanged(repo):
    base = git(repo, "rev-parse", "HEAD").stdout.strip()
    write(repo, {"prompts/c.md": "new\n", "prompts/b.md": "beta 2\n", "notes.txt": "not wanted\n",
                 ".gitignore": "ignored.md\n", "prompts/ignored.md": "x\n"})
    git(repo, "mv", "prompts/a.md", "prompts/moved.md")
    write(repo, {"README.md": None})
    (repo / ".gitignore").write_text("prompts/ignored.md\n")
    changes = open_repository(repo).compare(base, lambda path: path.endswith(".md"))
    assert [(c.path, c.status, c.old_path) for c in changes] == [
        ("README.md", "removed", None),
        ("prompts/b.md", "modified", None),
        ("prompts/c.md", "added", None),
        ("prompts/moved.md", "renamed", "prompts/a.md"),
    ]
    write(repo, {"prompts/b.md": "beta\n"})
    (unchanged,) = [c for c in open_repository(repo).compare(base, lambda p: p == "prompts/b.md")]
    assert unchanged.status == "unchanged"
    assert unchanged.base_blob == git(repo, "rev-parse", f"{base}:prompts/b.md").stdout.strip()
