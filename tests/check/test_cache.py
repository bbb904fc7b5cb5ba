"""The result cache: a re-run reads the stored results, and every input of a file invalidates them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.check import cache as cache_module
from prefixlint.cli import cli
from prefixlint.config import clear_cache

STABLE = ("You are the support assistant of Northwind Bank. Answer questions about accounts, cards, "
          "transfers and fees. Be brief and precise, and never give investment advice to anyone. ") * 3


@pytest.fixture
def repo(tmp_path, monkeypatch):
    monkeypatch.delenv("PREFIXLINT_NO_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "home-cache"))  # the signing key
    (tmp_path / ".git").mkdir()
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "a.md").write_text("Today is {{ today }}.\n" + STABLE + "\n")
    monkeypatch.chdir(tmp_path)
    clear_cache()
    calls = []
    original = cache_module.ResultCache.put

    def counted(self, key, results, reads):
        calls.append([getattr(r, "path", r) for r in results])
        return original(self, key, results, reads)

    monkeypatch.setattr(cache_module.ResultCache, "put", counted)
    yield tmp_path, calls
    clear_cache()


def run(*args: str):
    result = CliRunner().invoke(cli, ["check", "--output-format", "json", *args, "prompts"])
    assert result.exit_code in (0, 1), result.output
    return json.loads(result.stdout)


def test_a_rerun_takes_the_stored_results_and_prints_the_same(repo):
    root, stored = repo
    first = run()
    assert stored == [["prompts/a.md"]] and first["files"][0]["findings"][0]["code"] == "PFX001"
    assert len(list((root / ".prefixlint_cache").rglob("*"))) >= 3  # version/xx/key, and .gitignore
    assert run() == first and len(stored) == 1  # nothing checked again
    assert (root / ".prefixlint_cache" / ".gitignore").read_text().endswith("*\n")


def test_content_configuration_and_flags_are_part_of_the_key(repo):
    root, stored = repo
    run()
    (root / "prompts" / "a.md").write_text("Session {{ session_id }}.\n" + STABLE + "\n")
    assert run()["files"][0]["findings"][0]["code"] == "PFX002" and len(stored) == 2
    (root / ".prefixlint.yaml").write_text("ignore: [PFX002]\n")
    clear_cache()
    assert run()["files"][0]["findings"] == [] and len(stored) == 3
    assert run("--engine", "sglang")["files"][0]["engine"] == "sglang" and len(stored) == 4
    run("--engine", "sglang")
    assert len(stored) == 4


def test_a_changed_referenced_file_is_a_miss(repo):
    root, stored = repo
    assert cache_module.ResultCache().get("0" * 64) is None
    entry = cache_module.ResultCache()
    key = "ab" * 32
    entry.put(key, ["result"], [str(root / "prompts" / "a.md")])
    assert entry.get(key) == ["result"]
    (root / "prompts" / "a.md").write_text("changed\n")
    assert entry.get(key) is None


def test_an_entry_not_signed_with_this_users_key_is_not_loaded(repo, monkeypatch):
    root, _ = repo
    run()
    (entry,) = [p for p in (root / ".prefixlint_cache").rglob("*") if p.is_file() and p.name != ".gitignore"]
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / "another-user"))
    assert cache_module.ResultCache().get(entry.name) is None  # a committed or foreign cache
    data = entry.read_bytes()
    entry.write_bytes(data[:32] + data[32:].replace(b"PFX001", b"PFX009"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(root / "home-cache"))
    assert cache_module.ResultCache().get(entry.name) is None  # tampered


def test_no_cache_neither_reads_nor_writes(repo):
    root, stored = repo
    run("--no-cache")
    assert stored == [] and not (root / ".prefixlint_cache").exists()


def test_a_changed_file_of_prefixlint_itself_is_a_new_build(tmp_path, monkeypatch):
    """An edited checkout must not be served results its older code computed."""
    package = tmp_path / "prefixlint"
    (package / "check").mkdir(parents=True)
    (package / "check" / "cache.py").write_text("# stand-in\n")
    (package / "rules.yaml").write_text("a: 1\n")
    monkeypatch.setattr(cache_module, "__file__", str(package / "check" / "cache.py"))
    cache_module.build_identity.cache_clear()
    first = cache_module.build_identity()
    cache_module.build_identity.cache_clear()
    assert cache_module.build_identity() == first  # the same files: the same build
    (package / "rules.yaml").write_text("a: 22\n")  # another size
    cache_module.build_identity.cache_clear()
    second = cache_module.build_identity()
    cache_module.build_identity.cache_clear()
    assert second != first


def test_the_files_a_promptfoo_configuration_references_keep_their_place_with_the_cache(repo):
    root, _ = repo
    samples = Path(__file__).resolve().parents[2] / "samples"
    (root / "prompts" / "p").mkdir()
    (root / "prompts" / "p" / "prompts").mkdir()
    for name in ("promptfooconfig.yaml", "prompts/translate_chat.json"):
        (root / "prompts" / "p" / name).write_text((samples / "promptfoo" / name).read_text())
    (root / "prompts" / "z.md").write_text("Session {{ session_id }}.\n" + STABLE + "\n")
    order = ["prompts/a.md", "prompts/p/prompts/translate_chat.json", "prompts/z.md"]
    uncached = run("--no-cache")
    assert [f["path"] for f in uncached["files"]] == order
    assert run() == uncached  # the first run, storing a.md and z.md
    assert run() == uncached  # a.md and z.md from the cache, the configuration checked again
