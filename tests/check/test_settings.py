"""`check` and `report` measure a file the same way under the same configuration.

Both build every file's settings with `prefixlint.check.settings.SettingsBuilder` and measure
with the same pipeline; these tests hold them to it: for each configuration key that changes a
measurement, the key changes it (against the defaults) and changes it the same way in both.
The chat-template case is also worked out by hand from the rendered strings (it used to stop
`report` with `KeyError: 'shared_prefix_tokens'`).
"""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.prreport.rows import build_rows
from tests.check.test_check_chat_template import (
    CHAT,
    QUESTION,
    SAMPLES,
    llama32_text,
    shared,
    system,
    vllm_reusable,
    vocabulary,
)
from tests.gitrepo import init_repo
from tests.realfiles import model_dir, real_file

POLICY = "".join(
    f"{n}. Answer questions about orders, refunds and shipping; cite the policy section you used"
    " and never promise a delivery date the carrier has not confirmed (rule {n}).\n"
    for n in range(1, 5)
)
PROMPT = ("You are the support assistant of {{ tenant_slug }}.\nCurrent time: {{ now }}\n" + POLICY
          + "Réponds en français si on te le demande: «Très bien», 東京の天気は？\n")


def project(root, config: str, files: dict[str, str]):
    """A repository whose base commit has only a README; the configuration and the template
    are added in the working tree (so `report` measures the template on the `now` side)."""
    init_repo(root, {"README.md": "A project.\n"})
    (root / ".prefixlint.yaml").write_text(config, encoding="utf-8")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def by_check(root, name: str) -> tuple:
    result = CliRunner().invoke(cli, ["check", "--offline", "--format", "json", str(root / name)])
    assert result.exit_code in (0, 1), result.stderr
    entry = next(e for e in json.loads(result.stdout)["files"] if e["path"] == str(root / name))
    return (entry["tokens"], entry["shared_prefix_tokens"], entry["reusable_tokens"],
            sorted(f["code"] for f in entry["findings"]))


def by_report(root, name: str, monkeypatch) -> tuple:
    monkeypatch.chdir(root)
    rows, _setup = build_rows([name], "main", None, True, None, None)
    (row,) = [row for row in rows if row.path == name]
    assert row.status == "added" and row.now.error is None, row.now
    return (row.now.tokens, row.now.shared_prefix_tokens, row.now.reusable_tokens,
            sorted(f.code for f in row.now.findings))


#: configuration key -> a value that changes the measurement of PROMPT
KEYS = {
    "tokenizer": "tokenizer: cl100k_base\n",  # other ids
    "engine": "engine: sglang\n",  # 1-token pages instead of vLLM's 16-token blocks
    "block-size": "block-size: 6\n",
    "min-stable-tokens": "min-stable-tokens: 100000\n",  # nothing is flagged
    "extend-volatile": (  # the tenant becomes a volatile value: the shared prefix ends there
        "extend-volatile:\n  - {id: tenant, class: user-data, frequency: per_user, names: [tenant_slug]}\n"),
}


@pytest.mark.parametrize("key", KEYS)
def test_each_configuration_key_changes_check_and_report_alike(tmp_path, key, monkeypatch):
    default = project(tmp_path / "default", "{}\n", {"prompt.md": PROMPT})
    configured = project(tmp_path / key, KEYS[key], {"prompt.md": PROMPT})
    measured = by_check(configured, "prompt.md")
    assert measured == by_report(configured, "prompt.md", monkeypatch)
    assert measured != by_check(default, "prompt.md")  # the key does change the measurement
    assert by_check(default, "prompt.md") == by_report(default, "prompt.md", monkeypatch)


def test_the_measurements_behind_the_keys(tmp_path, monkeypatch):
    """What each key changes, from the default measurement (o200k_base, vLLM, 16-token blocks)."""
    tokens, shared_tokens, reusable, codes = by_check(project(tmp_path / "d", "{}\n", {"p.md": PROMPT}), "p.md")
    assert codes == ["PFX001"] and reusable == shared_tokens // 16 * 16
    measured = {key: by_check(project(tmp_path / key, text, {"p.md": PROMPT}), "p.md") for key, text in KEYS.items()}
    assert measured["tokenizer"][0] != tokens
    assert measured["engine"][:3] == (tokens, shared_tokens, shared_tokens)  # every shared token
    assert measured["block-size"][:3] == (tokens, shared_tokens, shared_tokens // 6 * 6)
    assert measured["min-stable-tokens"] == (tokens, shared_tokens, reusable, [])
    assert measured["extend-volatile"][3] == ["PFX001", "PFX003"]  # PFX003: user data ahead of stable text
    assert measured["extend-volatile"][1] < shared_tokens


def test_the_chat_template_key_renders_chat_files_the_same_in_check_and_report(tmp_path, monkeypatch):
    """Llama 3's tokenizer.json without a template, and Llama 3.2's template named by the key."""
    models = model_dir(tmp_path / "models", "llama3/tokenizer.json")
    root = tmp_path / "project"
    project(root, f"tokenizer: {models}\nchat-template: served/llama3.2.jinja\n", {"chats/chat.yaml": CHAT})
    (root / "served").mkdir()
    shutil.copy(real_file("template/llama3.2"), root / "served" / "llama3.2.jinja")
    encoder = vocabulary(models / "tokenizer.json")
    a, b = (encoder.encode(llama32_text(system(now), QUESTION), add_special_tokens=False).ids for now in SAMPLES)
    by_hand = (len(a), shared(a, b), vllm_reusable(shared(a, b), len(b)), ["PFX001"])
    assert by_check(root, "chats/chat.yaml") == by_hand
    assert by_report(root, "chats/chat.yaml", monkeypatch) == by_hand
    # the command itself, with the template file walked too (a chat template is measured on its own)
    monkeypatch.chdir(root)
    result = CliRunner().invoke(cli, ["report", "--offline", "--base", "main", "--fail-on", "none"])
    assert result.exit_code == 0, result.stderr
    assert f"| `chats/chat.yaml` (added) | — → {len(a)} |" in result.stdout
    assert "| `served/llama3.2.jinja` (added) | — → " in result.stdout  # it was a KeyError
