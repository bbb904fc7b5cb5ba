"""Unknown configuration keys: a typo of a known key is an error with "did you mean" at its
line; a namespaced extension key or a well-formed key that is no typo (a newer version's) is
ignored with one warning naming the file and line (docs/configuration.md#unknown-keys)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from prefixlint import __version__, config_files
from prefixlint.cli import cli
from prefixlint.config import clear_cache, load_config
from prefixlint.errors import PrefixlintError


@pytest.fixture(autouse=True)
def fresh(monkeypatch, tmp_path):
    clear_cache()
    monkeypatch.setattr(config_files, "_WARNED", set())
    monkeypatch.setenv("PREFIXLINT_NO_CACHE", "1")
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    yield
    clear_cache()


TOML = '[project]\nname = "x"\n\n[tool.ruff]\nline-length = 100\nfoo = 1\n\n[tool.prefixlint]\nengine = "sglang"\n'


@pytest.mark.parametrize("written, line, why", [
    ('max-cost = 3\n', 10, f"not a key of prefixlint {__version__}, perhaps a newer version's"),
    ('new_feature = true\n', 10, f"not a key of prefixlint {__version__}, perhaps a newer version's"),
    ('x-team = "infra"\n', 10, "an extension key (x-..., or a namespace.key): prefixlint reads none"),
    ('"acme.owner" = "me"\n', 10, "an extension key (x-..., or a namespace.key): prefixlint reads none"),
    ('block-size = 32\n\n[tool.prefixlint.x-acme]\nowner = "me"\n', 12,
     "an extension key (x-..., or a namespace.key): prefixlint reads none"),
])
def test_a_toml_key_no_typo_is_ignored_with_one_warning_at_its_line(tmp_path, capsys, written, line, why):
    (tmp_path / "pyproject.toml").write_text(TOML + written)
    config = load_config(tmp_path / "a.md")
    assert config.engine == "sglang"  # the known keys around it still apply
    load_config(tmp_path / "sub" / "b.md")
    err = capsys.readouterr().err.splitlines()
    key = written.split(" = ")[0].strip('"') if "x-acme" not in written else "x-acme"
    assert err == [f"prefixlint: warning: pyproject.toml:{line}: tool.prefixlint: unknown configuration key"
                   f" {key!r} ignored ({why})"]


@pytest.mark.parametrize("written, column, guess", [
    ("blocksize: 16\n", 1, "did you mean 'block-size'? "),
    ("histroy-turns: 2\n", 1, "did you mean 'history-turns'? "),
    ("Tokenizer: o200k_base\n", 1, "did you mean 'tokenizer'? "),
    ("select-extend: [PFX001]\n", 1, "did you mean 'extend-select'? "),
    ("turns-history: 2\n", 1, "did you mean 'history-turns'? "),  # no close spelling: the words reordered
    ("'my key!': 1\n", 1, ""),
])
def test_a_typo_of_a_known_key_or_a_name_no_version_uses_is_an_error_at_its_line(tmp_path, capsys, written,
                                                                                   column, guess):
    (tmp_path / ".prefixlint.yaml").write_text("engine: vllm\n" + written)
    with pytest.raises(PrefixlintError) as caught:
        load_config(tmp_path / "a.md")
    key = written.split(":")[0].strip("'")
    assert (caught.value.path, caught.value.line, caught.value.column) == (".prefixlint.yaml", 2, column)
    assert caught.value.message.startswith(f"unknown configuration key {key!r} ({guess}known keys: tokenizer,")
    assert capsys.readouterr().err == ""


def test_the_warning_is_printed_once_per_run_and_the_file_is_still_checked(tmp_path):
    (tmp_path / ".prefixlint.yaml").write_text("engine: vllm\nx-owner: infra\n")
    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text("You are a helpful assistant of the support team.\n{{ question }}\n")
    result = CliRunner().invoke(cli, ["check", "a.md", "b.md"])
    assert result.exit_code == 1, result.output  # each file's PFX007: both were checked
    assert result.stderr.count("prefixlint: warning:") == 1
    assert ("prefixlint: warning: .prefixlint.yaml:2: unknown configuration key 'x-owner' ignored"
            in result.stderr)
    assert [line.split(":")[0] for line in result.stdout.splitlines() if "PFX007" in line] == ["a.md", "b.md"]
