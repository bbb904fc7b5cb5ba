"""Network and trust (issue 16): `--offline` and a cached tokenizer open no socket at all; in CI a
tokenizer named by a template file comes from the cache only; references and symlinks stay
inside the repository unless `--allow-outside-paths`.

The network tests run prefixlint in a subprocess whose audit hook records every
`socket.getaddrinfo` and `socket.connect` and ends the process there, with status 3 (so a
regression fails fast, offline).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from tests.check.test_check_bad_input import GOOD
from tests.realfiles import hub_cache, real_file

RECORD = """
import sys
LOG = sys.argv.pop(1)

def hook(event, args):
    if event in ("socket.getaddrinfo", "socket.connect"):
        with open(LOG, "a") as log:
            log.write(f"{event} {args[0]!r}\\n")
        import os
        os._exit(3)  # at the first attempt: no retries, no waiting

sys.addaudithook(hook)
from prefixlint.cli import main
sys.argv = ["prefixlint", *sys.argv[1:]]
main()
"""
CHAT = ("messages:\n  - role: system\n    content: You are the assistant of Northwind Bank. Never ask for PINs,"
        " explain fees in plain language, offer an adviser for loans.\n"
        "  - role: user\n    content: '{{ question }}'\n")


def run_recorded(tmp_path: Path, *args: str, **env: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    log = tmp_path / "sockets.log"
    script = tmp_path / "record.py"
    script.write_text(RECORD)
    environment = {k: v for k, v in os.environ.items()
                   if k not in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "GITHUB_ACTIONS")}
    environment.update(HF_HUB_CACHE=str(tmp_path / "hub"), HF_HOME=str(tmp_path / "hf-home"), **env)
    done = subprocess.run([sys.executable, str(script), str(log), *args], capture_output=True, text=True,
                          env=environment, cwd=tmp_path, timeout=120)
    return done, log.read_text().splitlines() if log.exists() else []


@pytest.fixture
def cached(tmp_path):
    hub_cache(tmp_path / "hub", "Qwen/Qwen3-8B", {"tokenizer.json": real_file("qwen3/tokenizer.json"),
                                                  "tokenizer_config.json": real_file("qwen3/tokenizer_config.json")})
    config = tmp_path / "config-source.json"
    config.write_text(json.dumps({"num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                                  "hidden_size": 256, "torch_dtype": "bfloat16"}))
    hub_cache(tmp_path / "hub", "acme/tiny", {"config.json": config})
    (tmp_path / "chat.yaml").write_text(CHAT)
    return tmp_path


@pytest.mark.parametrize(("offline", "name"), [(["--offline"], "chat.yaml"), ([], "good.md")],
                         ids=["offline, through the chat template", "cached"])
def test_a_cached_tokenizer_opens_no_socket(cached, offline, name):
    (cached / "good.md").write_text(GOOD)
    done, sockets = run_recorded(cached, "check", "--isolated", "--fail-level", "info", *offline, "--tokenizer",
                                 "Qwen/Qwen3-8B", name)
    assert sockets == [] and done.returncode == 1, done.stderr  # 1: the findings of the file (PFX102 is info)
    assert f"{name}: " in done.stdout and "internal error" not in done.stderr


@pytest.mark.parametrize("offline", [["--offline"], []], ids=["offline", "cached"])
def test_a_cached_model_config_opens_no_socket(cached, offline):
    done, sockets = run_recorded(cached, "kv", *offline, "acme/tiny", "--format", "json")
    assert sockets == [] and done.returncode == 0, done.stderr
    # 2 layers x 2 KV heads x head_dim 64 (256 / 4) x 2 (K and V) x 2 bytes = 1,024 bytes per token
    assert json.loads(done.stdout)["bytes_per_token"] == 1024


def test_offline_and_not_cached_is_a_diagnostic_without_a_socket(cached):
    done, sockets = run_recorded(cached, "check", "--isolated", "--offline", "--tokenizer", "acme/missing",
                                 "chat.yaml")
    assert sockets == [] and done.returncode == 2
    assert "is not in the Hugging Face cache" in done.stderr and "the hub is offline" in done.stderr


TEMPLATE_TOKENIZER = "tokenizer: acme/from-the-pull-request\nprompt: |\n  Hello {{ user_name }}.\n"


def test_in_ci_a_tokenizer_named_by_a_template_comes_from_the_cache_only(cached):
    (cached / "t.yaml").write_text(TEMPLATE_TOKENIZER)
    done, sockets = run_recorded(cached, "check", "--isolated", "--format", "text", "t.yaml", GITHUB_ACTIONS="true")
    assert sockets == [] and done.returncode == 2
    assert "'acme/from-the-pull-request'" in done.stderr and "the hub is offline" in done.stderr
    # outside CI the same template may download it: the hub is asked (and this test refuses it;
    # in this process, so that the hook's exit status is the run's, not a worker's)
    done, sockets = run_recorded(cached, "check", "--isolated", "--format", "text", "t.yaml", PREFIXLINT_WORKERS="0")
    assert sockets == ["socket.getaddrinfo 'huggingface.co'"] and done.returncode == 3, done.stderr


def test_in_ci_the_workflows_tokenizer_is_still_trusted(cached):
    (cached / "t.yaml").write_text("prompt: |\n  Hello {{ user_name }}.\n")
    done, sockets = run_recorded(cached, "check", "--isolated", "--format", "text", "--tokenizer", "acme/workflow",
                                 "t.yaml", GITHUB_ACTIONS="true")
    assert sockets == ["socket.getaddrinfo 'huggingface.co'"] and done.returncode == 3, done.stderr


def test_a_template_tokenizer_path_outside_the_repository_is_refused(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "tokenizer.json").write_bytes(real_file("llama3/tokenizer.json").read_bytes())
    template = repo / "t.yaml"
    template.write_text(f"tokenizer: {outside / 'tokenizer.json'}\nprompt: |\n  Hello {{{{ user_name }}}}.\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", str(template)])
    assert result.exit_code == 2 and "resolves outside the repository" in result.stderr
    allowed = CliRunner().invoke(cli, ["check", "--isolated", "--allow-outside-paths", str(template)])
    assert allowed.exit_code in (0, 1) and "tokenizer" not in allowed.stderr, allowed.output


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    (root / "good.md").write_text(GOOD)
    return root, secret


def test_a_langchain_template_path_outside_the_repository_is_refused(repo):
    root, secret = repo
    prompt = root / "prompt.json"
    prompt.write_text(json.dumps({"_type": "prompt", "input_variables": [], "template_path": "../secret.txt"}))
    result = CliRunner().invoke(cli, ["check", "--isolated", str(prompt), str(root / "good.md")])
    assert result.exit_code == 2 and f"{root / 'good.md'}:1:7: PFX003" in result.stdout
    assert f"prefixlint: error: {prompt}:1: cannot read ../secret.txt: ../secret.txt resolves outside the" \
           f" repository ({root}); refused" in result.stderr
    allowed = CliRunner().invoke(cli, ["check", "--isolated", "--allow-outside-paths", str(prompt)])
    assert f"{prompt}: " in allowed.stdout and allowed.stderr == ""


def test_a_promptfoo_reference_through_a_symlink_out_of_the_repository_is_refused(repo):
    root, secret = repo
    (root / "linked.txt").symlink_to(secret)
    config = root / "promptfooconfig.yaml"
    config.write_text("prompts:\n  - file://linked.txt\nproviders: [openai:gpt-4o]\n")
    result = CliRunner().invoke(cli, ["check", "--isolated", str(config)])
    assert result.exit_code == 2
    assert f"{config}:2: cannot read linked.txt: linked.txt resolves outside the repository" in result.stderr


def test_a_walk_does_not_follow_a_symlink_out_of_the_repository(repo):
    root, secret = repo
    (root / "prompts").mkdir()  # text files in a prompt folder: prompts by evidence (issue 19)
    (root / "prompts" / "passwd.txt").symlink_to(secret)
    (root / "prompts" / "inside.txt").symlink_to(root / "good.md")
    walked = CliRunner().invoke(cli, ["check", "--isolated", str(root)])
    assert walked.exit_code == 1 and "passwd.txt" not in walked.output
    assert f"{root / 'prompts' / 'inside.txt'}:1:7: PFX003" in walked.stdout  # a link inside is followed
    allowed = CliRunner().invoke(cli, ["check", "--isolated", "--allow-outside-paths", str(root)])
    assert f"{root / 'prompts' / 'passwd.txt'}: " in allowed.stdout


def test_tokenizers_are_never_loaded_with_remote_code():
    """The tokenizer adapters read tokenizer.json with the `tokenizers` library; nothing in the
    package asks transformers for a model or tokenizer class, with or without remote code."""
    package = Path(__file__).parent.parent.parent / "prefixlint"
    sources = "\n".join(path.read_text() for path in package.rglob("*.py"))
    for needle in ("trust_remote_code", "AutoTokenizer", "from_pretrained"):
        assert needle not in sources


def test_report_does_not_read_a_symlink_out_of_the_repository(tmp_path, monkeypatch):
    from tests.gitrepo import commit, init_repo

    root = init_repo(tmp_path / "repo", {"prompts/welcome.md": GOOD})
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0:root:/root:/bin/bash\n")
    (root / "prompts" / "passwd.txt").symlink_to(secret)
    commit(root, "a pull request adds a link")
    monkeypatch.chdir(root)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    result = CliRunner().invoke(cli, ["report", "--base", "HEAD~1", "prompts"])
    assert result.exit_code == 0 and "passwd" not in result.output, result.output
    assert re.search(r"\| `prompts/welcome.md` \| \d+ \|", result.output)  # the prompt is measured, the link not read
