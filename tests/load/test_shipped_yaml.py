"""The shipped YAML files' values, parsed once per content and read back from the user's cache."""

from __future__ import annotations

import pytest

from prefixlint.errors import PrefixlintError
from prefixlint.load import shipped_yaml
from prefixlint.load.shipped_yaml import shipped_values
from prefixlint.load.yaml_source import load_yaml

TEXTS = {"rules/A.yaml": "code: A\noptions: {min_tokens: 1024, ratio: 0.5, fix: true}\ncases: [x, null]\n",
         "rules/B.yaml": "name: b\ndocs:\n  example: |\n    {{ date }}\n"}


@pytest.fixture(autouse=True)
def cache_home(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "prefixlint" / "shipped"


def test_the_values_read_back_are_the_values_parsed(cache_home):
    parsed = {name: load_yaml(text, name) for name, text in TEXTS.items()}
    assert shipped_values(TEXTS) == parsed
    [entry] = cache_home.iterdir()
    entry.write_text('{"rules/A.yaml": {"code": "kept"}, "rules/B.yaml": null}', encoding="utf-8")
    assert shipped_values(TEXTS) == {"rules/A.yaml": {"code": "kept"}, "rules/B.yaml": None}  # read, not parsed
    assert shipped_values({**TEXTS, "rules/B.yaml": "name: c\n"})["rules/B.yaml"] == {"name": "c"}  # new content


def test_a_broken_entry_is_parsed_again_and_replaced(cache_home):
    shipped_values(TEXTS)
    [entry] = cache_home.iterdir()
    entry.write_text('{"rules/A.yaml": ', encoding="utf-8")
    assert shipped_values(TEXTS)["rules/A.yaml"]["options"] == {"min_tokens": 1024, "ratio": 0.5, "fix": True}
    assert [e.name for e in cache_home.iterdir()] == [entry.name]


def test_values_json_would_change_are_not_kept(cache_home):
    texts = {"a.yaml": "when: 2024-05-01\n", "b.yaml": "1: one\n"}
    values = shipped_values(texts)
    assert values["a.yaml"]["when"].isoformat() == "2024-05-01" and values["b.yaml"] == {1: "one"}
    assert not cache_home.exists() or list(cache_home.iterdir()) == []


def test_a_malformed_file_is_its_error_and_an_unwritable_cache_is_no_error(cache_home, monkeypatch):
    with pytest.raises(PrefixlintError) as error:
        shipped_values({"rules/C.yaml": "code: [unclosed\n"})
    assert error.value.path == "rules/C.yaml" and error.value.line == 2
    cache_home.parent.mkdir(parents=True)
    cache_home.write_text("a file where the folder would be", encoding="utf-8")
    monkeypatch.setattr(shipped_yaml, "cache_dir", lambda: cache_home / "below")
    assert shipped_values(TEXTS)["rules/B.yaml"] == {"name": "b", "docs": {"example": "{{ date }}\n"}}
