"""Configuration: which file applies to a path, what it may hold, and where its mistakes are."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from prefixlint import config as config_module
from prefixlint.config import Config, clear_cache, load_config
from prefixlint.errors import PrefixlintError


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_cache()
    yield
    clear_cache()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git root: the walk up never leaves it, whatever lies above tmp_path."""
    (tmp_path / ".git").mkdir()
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path, **kwargs) -> PrefixlintError:
    with pytest.raises(PrefixlintError) as caught:
        load_config(path, **kwargs)
    return caught.value


# --- which file applies ---------------------------------------------------------------------


def test_no_configuration_gives_the_defaults(repo):
    config = load_config(repo / "prompts" / "a.yaml")
    assert config == Config()
    assert (config.tokenizer, config.engine, config.block_size, config.select, config.ignore) == (
        None, None, None, None, ())
    assert (config.min_stable_tokens, config.extend_volatile, config.exclude, config.source) == (
        16, [], (), None)


def test_the_closest_file_wins_and_files_are_not_merged(repo):
    top = write(repo / "pyproject.toml", '[tool.prefixlint]\ntokenizer = "cl100k_base"\nblock-size = 32\n')
    near = write(repo / "prompts" / ".prefixlint.yaml", "engine: vllm\n")
    assert load_config(repo / "a.yaml") == Config(tokenizer="cl100k_base", block_size=32, source=top)
    deep = load_config(repo / "prompts" / "agents" / "deep" / "b.yaml")
    assert deep == Config(engine="vllm", source=near)
    assert deep.tokenizer is None  # the pyproject.toml above is not merged in


def test_a_directory_path_uses_its_own_configuration(repo):
    near = write(repo / "prompts" / ".prefixlint.yml", "engine: sglang\n")
    assert load_config(repo / "prompts").source == near
    assert load_config(repo / "prompts" / "x.md").source == near


@pytest.mark.parametrize(
    "present, winner",
    [
        ((".prefixlint.yaml", ".prefixlint.yml", "pyproject.toml"), ".prefixlint.yaml"),
        ((".prefixlint.yml", "pyproject.toml"), ".prefixlint.yml"),
        ((".prefixlint.yaml", "pyproject.toml"), ".prefixlint.yaml"),
        (("pyproject.toml",), "pyproject.toml"),
    ],
)
def test_precedence_within_one_directory(repo, present, winner):
    engines = {".prefixlint.yaml": "yaml", ".prefixlint.yml": "yml", "pyproject.toml": "toml"}
    for name in present:
        if name == "pyproject.toml":
            write(repo / name, '[tool.prefixlint]\nengine = "toml"\n')
        else:
            write(repo / name, f"engine: {engines[name]}\n")
    config = load_config(repo / "t.yaml")
    assert (config.engine, config.source) == (engines[winner], repo / winner)


def test_pyproject_without_the_table_does_not_stop_the_search(repo):
    top = write(repo / ".prefixlint.yaml", "tokenizer: o200k_base\n")
    write(repo / "pkg" / "pyproject.toml", '[project]\nname = "pkg"\n\n[tool.ruff]\nline-length = 99\n')
    assert load_config(repo / "pkg" / "p.yaml") == Config(tokenizer="o200k_base", source=top)


def test_an_empty_yaml_file_is_a_configuration_of_defaults(repo):
    write(repo / "pyproject.toml", '[tool.prefixlint]\nengine = "vllm"\n')
    empty = write(repo / "sub" / ".prefixlint.yaml", "# nothing yet\n")
    assert load_config(repo / "sub" / "x.yaml") == Config(source=empty)


def test_the_search_stops_at_the_git_root(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.prefixlint]\nengine = "vllm"\n')
    (tmp_path / "checkout" / ".git").mkdir(parents=True)
    assert load_config(tmp_path / "checkout" / "prompts" / "a.yaml") == Config()
    # A configuration in the git root itself still counts.
    inside = write(tmp_path / "checkout" / ".prefixlint.yaml", "engine: sglang\n")
    clear_cache()
    assert load_config(tmp_path / "checkout" / "prompts" / "a.yaml").source == inside


def test_relative_paths_with_dot_dot_walk_up_the_real_parents(repo, monkeypatch):
    near = write(repo / "a" / ".prefixlint.yaml", "engine: a\n")
    write(repo / "b" / ".prefixlint.yaml", "engine: b\n")
    monkeypatch.chdir(repo / "b")
    assert load_config(Path("../a/x.yaml")).source == near


def test_config_file_applies_to_every_path(repo):
    write(repo / "prompts" / ".prefixlint.yaml", "engine: vllm\n")
    chosen = write(repo / "ci" / "lint.yaml", "engine: sglang\nselect: [PFX001]\n")
    for target in (repo / "prompts" / "a.yaml", repo / "elsewhere" / "b.md"):
        assert load_config(target, config_file=chosen) == Config(
            engine="sglang", select=("PFX001",), source=chosen)


def test_config_file_may_be_a_pyproject(repo):
    chosen = write(repo / "other" / "pyproject.toml", '[tool.prefixlint]\nignore = ["PFX007"]\n')
    assert load_config(repo / "a.yaml", config_file=chosen).ignore == ("PFX007",)


def test_config_file_problems(repo, monkeypatch):
    monkeypatch.chdir(repo)
    write(repo / "pyproject.toml", '[project]\nname = "x"\n')
    missing = error_of(repo / "a.yaml", config_file=Path("nope.yaml"))
    assert (missing.path, missing.message) == ("nope.yaml", "configuration file not found")
    no_table = error_of(repo / "a.yaml", config_file=Path("pyproject.toml"))
    assert (no_table.path, no_table.message) == ("pyproject.toml", "no [tool.prefixlint] table in this file")
    write(repo / "lint.ini", "[prefixlint]\n")
    other = error_of(repo / "a.yaml", config_file=Path("lint.ini"))
    assert (other.path, other.message) == ("lint.ini", "unsupported configuration file type")


def test_isolated_ignores_every_file(repo):
    write(repo / ".prefixlint.yaml", "engine: vllm\n")
    assert load_config(repo / "a.yaml", isolated=True) == Config()
    both = error_of(repo / "a.yaml", isolated=True, config_file=repo / ".prefixlint.yaml")
    assert both.message == "--config and --isolated cannot be used together"


def test_each_directory_and_file_is_read_once(repo):
    write(repo / ".prefixlint.yaml", "engine: vllm\n")
    for index in range(40):
        load_config(repo / "prompts" / f"{index}.yaml")
        load_config(repo / "prompts" / "sub" / f"{index}.yaml")
    assert config_module._read_config_file_cached.cache_info().misses == 1
    # repo/prompts/sub, repo/prompts and repo itself: one lookup each.
    assert config_module._config_in_directory.cache_info().misses == 3
    assert load_config(repo / "x.yaml") is load_config(repo / "prompts" / "y.yaml")


def test_a_broken_file_is_read_once_and_reported_for_every_path(repo):
    write(repo / ".prefixlint.yaml", "engin: vllm\n")
    first, second = error_of(repo / "a.yaml"), error_of(repo / "sub" / "b.yaml")
    assert first.message == second.message
    assert config_module._read_config_file_cached.cache_info().misses == 1


def test_importing_the_module_does_not_import_yaml_or_pathspec():
    code = "import sys, prefixlint.config; print('yaml' in sys.modules, 'pathspec' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False"


# --- what a file may hold -------------------------------------------------------------------


def test_every_key_in_yaml(repo):
    path = write(repo / ".prefixlint.yaml", """\
tokenizer: Qwen/Qwen3-8B
engine: vllm
block-size: 32
select: [PFX0]
ignore:
  - PFX006
  - PFX007
min-stable-tokens: 64
extend-volatile:
  - id: tenant
    class: user-data
    frequency: per_user
    names: [tenant_slug, "tenant_*"]
exclude:
  - "drafts/"
  - "*.generated.yaml"
""")
    assert load_config(repo / "a.yaml") == Config(
        tokenizer="Qwen/Qwen3-8B", engine="vllm", block_size=32, select=("PFX0",),
        ignore=("PFX006", "PFX007"), min_stable_tokens=64,
        extend_volatile=[{"id": "tenant", "class": "user-data", "frequency": "per_user",
                          "names": ["tenant_slug", "tenant_*"]}],
        exclude=("drafts/", "*.generated.yaml"), source=path,
    )


def test_every_key_in_toml(repo):
    path = write(repo / "pyproject.toml", """\
[project]
name = "demo"

[tool.prefixlint]
tokenizer = "o200k_base"
engine = "openai"
block-size = 128
select = ["PFX001", "PFX002"]
ignore = ["PFX002"]
min-stable-tokens = 0
exclude = ["vendor/"]

[[tool.prefixlint.extend-volatile]]
id = "tenant"
class = "user-data"
frequency = "per_user"
names = ["tenant_slug"]

[[tool.prefixlint.extend-volatile]]
id = "clock"
class = "timestamp"
frequency = "per_request"
calls = ["clock.now"]
samples = ['^\\d{10}$']
generate = "epoch"
""")
    assert load_config(repo / "a.yaml") == Config(
        tokenizer="o200k_base", engine="openai", block_size=128, select=("PFX001", "PFX002"),
        ignore=("PFX002",), min_stable_tokens=0,
        extend_volatile=[
            {"id": "tenant", "class": "user-data", "frequency": "per_user", "names": ["tenant_slug"]},
            {"id": "clock", "class": "timestamp", "frequency": "per_request", "calls": ["clock.now"],
             "samples": [r"^\d{10}$"], "generate": "epoch"}],
        exclude=("vendor/",), source=path,
    )


def test_underscore_keys_and_comma_separated_codes_are_accepted(repo):
    write(repo / ".prefixlint.yaml", "block_size: 16\nmin_stable_tokens: 8\nselect: PFX001, PFX005\n")
    config = load_config(repo / "a.yaml")
    assert (config.block_size, config.min_stable_tokens, config.select) == (16, 8, ("PFX001", "PFX005"))


YAML_ERRORS = [
    # (file text, line, column, message)
    ("engine: vllm\nblocksize: 16\n", 2, 1,
     "unknown configuration key 'blocksize' (did you mean 'block-size'? known keys: tokenizer, engine, block-size,"
     " select, extend-select, ignore, per-file-ignores, min-stable-tokens, min-tail-tokens, extend-volatile, exclude,"
     " chat-template, system-prompts, prompts, history-turns, extend, price)"),
    ("block-size: sixteen\n", 1, 13, "block-size: must be an integer, not a string"),
    ("block-size: true\n", 1, 13, "block-size: must be an integer, not a boolean"),
    ("block-size: 0\n", 1, 13, "block-size: must be at least 1, not 0"),
    ("min-stable-tokens: -1\n", 1, 20, "min-stable-tokens: must be at least 0, not -1"),
    ("tokenizer: 200\n", 1, 12, "tokenizer: must be a non-empty string, not an integer"),
    ("select:\n  - PFX001\n  - PFX-2\n", 3, 5,
     "select: 'PFX-2' is not a rule code or code prefix (like PFX001 or PFX0)"),
    ("ignore: [PFX001, E501]\n", 1, 18,
     "ignore: 'E501' is not a rule code or code prefix (like PFX001 or PFX0)"),
    ("ignore: [PFX001, 7]\n", 1, 18, "ignore: item 2 must be a string, not an integer"),
    ("select: {PFX001: true}\n", 1, 9, "select: must be a list of strings, not a table/mapping"),
    ("exclude: drafts/\n", 1, 10, "exclude: must be a list of patterns, not a string"),
    ("extend-volatile:\n  - {id: a, class: timestamp, frequency: per_day, names: [d]}\n  - just a string\n",
     3, 5, "extend-volatile: item 2 must be a table/mapping, not a string"),
    ("extend-volatile:\n  - id: tenant\n    name: tenant_slug\n", 2, 5,
     "extend-volatile: item 1 has unknown key 'name' (signal keys: id, class, frequency, names,"
     " calls, samples, generate)"),
    ("extend-volatile:\n  - {id: t, names: [tenant]}\n", 2, 5, "extend-volatile: item 1 lacks 'class', 'frequency'"),
    ("extend-volatile:\n  - {id: t, class: user-data, frequency: per_user, names: tenant}\n", 2, 5,
     "extend-volatile: item 1 names: must be a list of strings"),
    ("extend-volatile:\n  - {id: t, class: user-data, frequency: per_user, samples: ['[a-']}\n", 2, 5,
     "extend-volatile: item 1 samples: '[a-' is not a regular expression (unterminated character set at"
     " position 0)"),
    ("extend-volatile:\n  - {id: t, class: user-data, frequency: per_user}\n", 2, 5,
     "extend-volatile: item 1 matches nothing: give at least one of names, calls, samples"),
    ("extend-volatile:\n  - {id: 7, class: user-data, frequency: per_user, names: [x]}\n", 2, 5,
     "extend-volatile: item 1 id: must be a non-empty string, not an integer"),
    ("engine: vllm\nblock-size: 8\nblock_size: 16\n", 3, 1,
     "'block_size' is given twice (first as 'block-size' on line 2)"),
    ("- engine: vllm\n", 1, 1, "the configuration must be a mapping of keys to values"),
    ("1: vllm\n", 1, 1, "configuration keys must be strings"),
    # libyaml's wording, as for every YAML input (templates, transcripts: load/yaml_source.py)
    ("engine: vllm\nselect: [PFX001\n", 3, 1, "invalid YAML: did not find expected ',' or ']'"),
    ("engine: vllm\n  bad: indent\n", 2, 6, "invalid YAML: mapping values are not allowed in this context"),
]


@pytest.mark.parametrize("text, line, column, message", YAML_ERRORS)
def test_yaml_mistakes_name_the_file_line_and_column(repo, monkeypatch, text, line, column, message):
    monkeypatch.chdir(repo)
    write(repo / "prompts" / ".prefixlint.yaml", text)
    error = error_of(repo / "prompts" / "a.yaml")
    assert (error.path, error.line, error.column, error.message) == (
        "prompts/.prefixlint.yaml", line, column, message)


TOML_HEAD = '[project]\nname = "demo"\n\n[tool.prefixlint]\n'
TOML_ERRORS = [
    # (text after the [tool.prefixlint] header on line 4, line, message)
    ('engine = "vllm"\nblocksize = 16\n', 6,
     "tool.prefixlint: unknown configuration key 'blocksize' (did you mean 'block-size'? known keys: tokenizer,"
     " engine, block-size, select, extend-select, ignore, per-file-ignores, min-stable-tokens, min-tail-tokens,"
     " extend-volatile, exclude, chat-template, system-prompts, prompts, history-turns, extend, price)"),
    ('engine = "vllm"\n"block-size" = "16"\n', 6, "tool.prefixlint.block-size: must be an integer, not a string"),
    ('select = ["PFX001", "pfx0x2"]\n', 5,
     "tool.prefixlint.select: 'pfx0x2' is not a rule code or code prefix (like PFX001 or PFX0)"
     " (did you mean 'PFX002'?)"),
    ('select = ["PFX001", "pfx902"]\n', 5,
     "tool.prefixlint.select: 'pfx902' matches no rule (did you mean 'PFX002' or 'PFX102'?)"
     " (the rules: PFX000, PFX001, PFX002, PFX003, PFX004, PFX005, PFX006, PFX007, PFX008, PFX101, PFX102, PFX103)"),
    ('engine = "vllm"\nmin-stable-tokens = 1.5\n', 6,
     "tool.prefixlint.min-stable-tokens: must be an integer, not a number"),
    ('block-size = 8\nblock_size = 8\n', 6,
     "tool.prefixlint: 'block_size' and 'block-size' are the same key; keep one"),
    ('engine = "vllm"\n\n[[tool.prefixlint.extend-volatile]]\nid = "x"\nclass = "timestamp"\n'
     'frequency = "per_day"\nnames = ["d"]\n\n[tool.prefixlint.per-file-ignores]\n"a.yaml" = ["PFX901"]\n', 13,
     "tool.prefixlint.per-file-ignores: 'a.yaml': 'PFX901' matches no rule (did you mean 'PFX001' or 'PFX101'?)"
     " (the rules: PFX000, PFX001, PFX002,"
     " PFX003, PFX004, PFX005, PFX006, PFX007, PFX008, PFX101, PFX102, PFX103)"),
    ('engine = "vllm"\n\n[[tool.prefixlint.extend-volatile]]\nid = "x"\nkind = "per_user"\n', 7,
     "tool.prefixlint.extend-volatile: item 1 has unknown key 'kind' (signal keys: id, class,"
     " frequency, names, calls, samples, generate)"),
]


@pytest.mark.parametrize("body, line, message", TOML_ERRORS)
def test_toml_mistakes_name_the_file_key_and_line(repo, monkeypatch, body, line, message):
    monkeypatch.chdir(repo)
    write(repo / "pyproject.toml", TOML_HEAD + body)
    error = error_of(repo / "a.yaml")
    assert (error.path, error.line, error.message) == ("pyproject.toml", line, message)


def test_toml_dotted_keys_are_located(repo, monkeypatch):
    monkeypatch.chdir(repo)
    write(repo / "pyproject.toml", '[project]\nname = "x"\n[tool]\nprefixlint.engine = "vllm"\nprefixlint.block-size = -4\n')
    error = error_of(repo / "a.yaml")
    assert (error.line, error.message) == (5, "tool.prefixlint.block-size: must be at least 1, not -4")


def test_toml_syntax_error_gives_line_and_column(repo, monkeypatch):
    monkeypatch.chdir(repo)
    write(repo / "pyproject.toml", TOML_HEAD + 'engine = "vllm\n')
    error = error_of(repo / "a.yaml")
    assert (error.path, error.line, error.column) == ("pyproject.toml", 5, 15)
    assert error.message.startswith("invalid TOML: ")
    assert "line" not in error.message


def test_tool_prefixlint_must_be_a_table(repo):
    write(repo / "pyproject.toml", '[tool]\nprefixlint = "yes"\n')
    error = error_of(repo / "a.yaml")
    assert (error.line, error.message) == (2, "tool.prefixlint must be a table")


# --- flags and rule selection -----------------------------------------------------------------


def test_merge_cli_lets_flags_that_are_given_win(repo):
    source = write(repo / ".prefixlint.yaml", "tokenizer: cl100k_base\nengine: vllm\nignore: [PFX007]\n")
    merged = load_config(repo / "a.yaml").merge_cli(
        tokenizer="o200k_base", engine=None, block_size=64, select="PFX001,PFX002", ignore=None,
    )
    assert merged == Config(tokenizer="o200k_base", engine="vllm", block_size=64,
                            select=("PFX001", "PFX002"), ignore=("PFX007",), source=source)
    assert merged.merge_cli(ignore=["PFX1"], exclude=["a/"]).ignore == ("PFX1",)
    # click gives () for a multiple=True option that was not used: that is "not given".
    assert merged.merge_cli(select=(), ignore=(), exclude=()) == merged


def test_merge_cli_rejects_bad_codes_and_unknown_flags():
    with pytest.raises(PrefixlintError) as caught:
        Config().merge_cli(select="PFX001,PFX2a")
    assert caught.value.message == "--select: 'PFX2a' is not a rule code or code prefix (like PFX001 or PFX0)"
    with pytest.raises(TypeError):
        Config().merge_cli(colour="always")


def test_config_is_frozen_and_hashable(repo):
    config = Config(select=("PFX001",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.engine = "vllm"  # type: ignore[misc]
    assert hash(config) == hash(Config(select=("PFX001",)))
    assert Config().exclude_root is None
    assert Config(source=repo / "sub" / "pyproject.toml").exclude_root == repo / "sub"


@pytest.mark.parametrize(
    "select, ignore, enabled",
    [
        (None, (), {"PFX000", "PFX001", "PFX003", "PFX007", "PFX101"}),
        (("PFX0",), (), {"PFX000", "PFX001", "PFX003", "PFX007"}),
        (("PFX001", "PFX003"), (), {"PFX001", "PFX003"}),
        (None, ("PFX003",), {"PFX000", "PFX001", "PFX007", "PFX101"}),
        (("PFX0",), ("PFX003",), {"PFX000", "PFX001", "PFX007"}),
        # The more specific selector wins, whichever list it is in.
        (("PFX003",), ("PFX0",), {"PFX003"}),
        (("PFX00",), ("PFX0",), {"PFX000", "PFX001", "PFX003", "PFX007"}),
        # At equal specificity ignore wins.
        (("PFX003",), ("PFX003",), set()),
        (None, ("PFX",), set()),
        (("PFX",), ("PFX00",), {"PFX101"}),
        ((), (), set()),
    ],
)
def test_is_enabled_follows_the_longest_matching_prefix(select, ignore, enabled):
    codes = ["PFX000", "PFX001", "PFX003", "PFX007", "PFX101"]
    config = Config(select=select, ignore=ignore)
    assert {code for code in codes if config.is_enabled(code)} == enabled


def test_is_excluded_matches_relative_to_the_configuration_file(repo, monkeypatch):
    source = write(repo / "prompts" / ".prefixlint.yaml", 'exclude: ["/legacy/", "*.generated.yaml"]\n')
    config = load_config(repo / "prompts" / "a.yaml")
    assert config.exclude_root == repo / "prompts"
    monkeypatch.chdir(repo)
    assert [config.is_excluded(Path(name)) for name in (
        "prompts/legacy/old.yaml", "prompts/sub/legacy/kept.yaml", "prompts/sub/x.generated.yaml",
        "prompts/a.yaml",
    )] == [True, False, True, False]
    assert config.is_excluded(repo / "prompts" / "legacy" / "deep" / "b.md") is True
    assert Config().is_excluded(Path("anything.yaml")) is False
    assert source.exists()
