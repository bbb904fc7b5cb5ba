"""Hugging Face tokenizers: a `tokenizer.json`, a directory holding one, or a hub id.

A hub id is resolved through huggingface_hub's own cache (`HF_HOME`, `HF_HUB_CACHE`), so a
model that was downloaded once is found offline. With `--offline` or `HF_HUB_OFFLINE=1`
nothing is fetched.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Mapping, Sequence

from prefixlint.errors import PrefixlintError
from prefixlint.tokenize.base import BaseTokenizer

TOKENIZER_FILE = "tokenizer.json"
CONFIG_FILE = "tokenizer_config.json"
TEMPLATE_FILE = "chat_template.jinja"
#: A hub id: `org/name`, optionally `@revision`.
HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+(@[\w./-]+)?$")


def is_hub_id(spec: str) -> bool:
    return HUB_ID.match(spec) is not None


def hub_offline(offline: bool) -> bool:
    """True when the hub must not be contacted: `--offline`, HF_HUB_OFFLINE or TRANSFORMERS_OFFLINE."""
    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return offline or value.strip().lower() in {"1", "on", "yes", "true"}


def go_offline() -> None:
    """`--offline` for the whole process, before huggingface_hub or transformers is imported:
    they read HF_HUB_OFFLINE once, at import, and without it even a cache lookup builds request
    headers that fetch a registry from the hub. If the hub is already imported, its constant too."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    import sys

    constants: Any = sys.modules.get("huggingface_hub.constants")
    if constants is not None:
        constants.HF_HUB_OFFLINE = True


def cached_file(repo_id: str, filename: str, revision: str | None, cache_dir: str) -> str | None:
    """The path of `filename` of `repo_id` in the hub cache, else None, read from the file system
    only (`try_to_load_from_cache`): no request headers, no socket."""
    from huggingface_hub import try_to_load_from_cache

    found = try_to_load_from_cache(repo_id, filename, cache_dir=cache_dir, revision=revision)
    return found if isinstance(found, str) else None


def hub_cache_dir() -> str:
    """huggingface_hub's cache directory, read from the environment now.

    huggingface_hub computes `constants.HF_HUB_CACHE` once, when it is first imported, and
    `hf_hub_download(cache_dir=None)` uses that value; resolving it here at call time (same
    variables, same order) means a change of HF_HUB_CACHE or HF_HOME is always seen.
    """
    def expand(value: str) -> str:
        return os.path.expandvars(os.path.expanduser(value))

    if os.environ.get("HF_HUB_CACHE"):
        return expand(os.environ["HF_HUB_CACHE"])
    if os.environ.get("HUGGINGFACE_HUB_CACHE"):
        return expand(os.environ["HUGGINGFACE_HUB_CACHE"])
    home = os.environ.get("HF_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "huggingface"
    )
    return os.path.join(expand(home), "hub")


def _read_json(path: Path) -> dict[str, Any]:
    from prefixlint.limits import loads_json, read_bytes

    try:
        data = loads_json(read_bytes(str(path)).decode("utf-8"), str(path))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PrefixlintError(f"cannot read {path.name}: {exc}", path=str(path)) from None
    if not isinstance(data, dict):
        raise PrefixlintError("expected a JSON object", path=str(path))
    return data


def config_chat_template(config: Any) -> str | None:
    """The chat template of a tokenizer_config.json mapping: its `chat_template` string, or the
    `default` one of named templates (`[{"name": "default", "template": ...}]`)."""
    template = config.get("chat_template") if isinstance(config, dict) else None
    if isinstance(template, list):
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        template = named.get("default")
    return template if isinstance(template, str) else None


class HuggingFaceTokenizer(BaseTokenizer):
    family = "huggingface"

    def __init__(self, name: str, tokenizer_file: Path, directory: Path | None = None) -> None:
        from tokenizers import Tokenizer as _Tokenizer

        from prefixlint.limits import regular_file

        try:
            self._tokenizer = _Tokenizer.from_file(regular_file(tokenizer_file))
        except PrefixlintError:
            raise
        except Exception as exc:  # tokenizers raises plain Exception subclasses from Rust
            raise PrefixlintError(
                f"not a Hugging Face tokenizer.json: {exc}", path=str(tokenizer_file)
            ) from None
        self.name = name
        self.path = tokenizer_file
        self.config: Mapping[str, Any] = {}
        self.chat_template: str | None = None
        if directory is not None:
            self._read_config(directory)

    def _read_config(self, directory: Path) -> None:
        config_path = directory / CONFIG_FILE
        if config_path.is_file():
            self.config = _read_json(config_path)
            self.chat_template = config_chat_template(self.config)
        template_path = directory / TEMPLATE_FILE
        if template_path.is_file():
            from prefixlint.limits import read_utf8

            self.chat_template = read_utf8(str(template_path))

    def encode(self, text: str, *, add_special_tokens: bool = False) -> list[int]:
        return self._tokenizer.encode(text, add_special_tokens=add_special_tokens).ids

    def char_offset(self, text: str, ids: Sequence[int], index: int) -> int:
        if index <= 0:
            return 0
        if index >= len(ids):
            return len(text)
        # `ids` came with or without the special tokens (BOS): the encoding of the same length.
        encoding = self._tokenizer.encode(text, add_special_tokens=True)
        if len(encoding.ids) != len(ids):
            encoding = self._tokenizer.encode(text, add_special_tokens=False)
        return encoding.offsets[index][0]

    def token_text(self, token_id: int) -> str:
        return self._tokenizer.decode([token_id], skip_special_tokens=False)

    def token_id(self, text: str) -> int | None:
        return self._tokenizer.token_to_id(text)


def from_path(path: Path, display_name: str | None = None) -> HuggingFaceTokenizer:
    """A tokenizer.json file, or a directory holding one (and tokenizer_config.json)."""
    if path.is_dir():
        tokenizer_file = path / TOKENIZER_FILE
        if not tokenizer_file.is_file():
            raise PrefixlintError(
                f"no {TOKENIZER_FILE} in this directory", path=str(path),
                hint="pass the directory of a Hugging Face model, or the tokenizer.json itself",
            )
        return HuggingFaceTokenizer(display_name or str(path), tokenizer_file, path)
    return HuggingFaceTokenizer(display_name or str(path), path, path.parent)


def _first_line(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def from_hub(repo_id: str, *, offline: bool, revision: str | None = None) -> HuggingFaceTokenizer:
    """Resolve a hub id through huggingface_hub's cache (and the network unless offline)."""
    if hub_offline(offline):
        go_offline()
    import huggingface_hub

    local_only = hub_offline(offline)
    cache_dir = hub_cache_dir()
    shown = f"{repo_id}@{revision}" if revision else repo_id
    fix = (
        f"download it once where there is a network with `hf download {repo_id} {TOKENIZER_FILE} {CONFIG_FILE}"
        + (f" --revision {revision}" if revision else "")
        + "` (older huggingface_hub: `huggingface-cli download ...`; gated models such as Llama need"
        " `hf auth login` and the model's terms accepted first), then run with --offline (or"
        " HF_HUB_OFFLINE=1) to use only the cache; or pass a path to a tokenizer.json or to the model's directory"
    )

    def download(filename: str, local_files_only: bool) -> str:
        return huggingface_hub.hf_hub_download(
            repo_id, filename, revision=revision, cache_dir=cache_dir, local_files_only=local_files_only
        )

    # The cache first: a tokenizer downloaded once is used without contacting the hub at all
    # (fast, no retries when there is no network, and no socket: the file system only). The
    # hub is asked only for a repository whose tokenizer.json is not cached yet, and never
    # when offline.
    try:
        cached = cached_file(repo_id, TOKENIZER_FILE, revision, cache_dir)
    except Exception as exc:  # an invalid id or revision
        raise PrefixlintError(f"cannot load tokenizer {shown!r} from the Hugging Face cache: {_first_line(exc)}",
                              hint=fix) from None
    if cached is not None:  # tokenizer_config.json and chat_template.jinja: beside it in the snapshot
        return HuggingFaceTokenizer(shown, Path(cached), Path(cached).parent)
    if local_only:
        raise PrefixlintError(
            f"tokenizer {shown!r} was taken as a Hugging Face hub id, and its {TOKENIZER_FILE} is not"
            f" in the Hugging Face cache ({cache_dir}) and the hub is offline",
            hint=fix,
        )
    try:
        unreachable = _unreachable_hub()  # at once, instead of huggingface_hub's ~24 s of retries
        if unreachable:
            raise ConnectionError(unreachable)
        huggingface_hub.utils.logging.set_verbosity_error()  # its warnings are not ours to print
        tokenizer_file = download(TOKENIZER_FILE, False)
    except Exception as exc:  # not found, gated, no network: all mean "cannot load"
        raise PrefixlintError(
            f"tokenizer {shown!r} was taken as a Hugging Face hub id; its {TOKENIZER_FILE} is not in the"
            f" Hugging Face cache ({cache_dir}) and could not be downloaded: {_first_line(exc)}",
            hint=fix,
        ) from None
    for extra in (CONFIG_FILE, TEMPLATE_FILE):
        try:
            download(extra, False)
        except Exception:  # optional files: absent from the repository
            pass
    return HuggingFaceTokenizer(shown, Path(tokenizer_file), Path(tokenizer_file).parent)


#: Seconds to wait for the hub's TCP handshake before calling it unreachable.
PROBE_TIMEOUT = 3.0


def _unreachable_hub() -> str | None:
    """Why the hub cannot be reached (one TCP connection to its endpoint), or None when it can
    or a proxy stands between (the proxy decides then)."""
    import socket
    from urllib.parse import urlsplit

    if any(os.environ.get(name) for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
                                                "ALL_PROXY", "all_proxy")):
        return None
    endpoint = os.environ.get("HF_ENDPOINT") or "https://huggingface.co"
    url = urlsplit(endpoint)
    try:
        port = url.port or (443 if url.scheme == "https" else 80)
        socket.create_connection((url.hostname or "", port), timeout=PROBE_TIMEOUT).close()
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        return f"cannot reach {endpoint.rstrip('/')} ({reason})"
    return None
