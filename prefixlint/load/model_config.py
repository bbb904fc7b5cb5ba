"""Read a model's `config.json`: a path, a directory holding one, or a hub id from the local cache.

Hub ids are resolved through huggingface_hub's own cache exactly as tokenizers are
(`prefixlint.tokenize.huggingface`): with `--offline` or `HF_HUB_OFFLINE=1` nothing is fetched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefixlint.errors import PrefixlintError
from prefixlint.limits import read_bytes

CONFIG_FILE = "config.json"


def load_model_config(spec: str, *, offline: bool = False) -> tuple[str, dict[str, Any]]:
    """(where it was read from, the parsed config) for a path, a directory or a hub id."""
    path = Path(spec).expanduser()
    if path.is_dir():
        path = path / CONFIG_FILE
        if not path.is_file():
            raise PrefixlintError(f"no {CONFIG_FILE} in this directory", path=spec)
    elif not path.exists():
        from prefixlint.tokenize.huggingface import is_hub_id

        if not is_hub_id(spec):
            raise PrefixlintError(
                "no such file, and not a Hugging Face hub id (org/name)", path=spec,
                hint="pass a config.json, the model directory, or a hub id such as meta-llama/Llama-3.1-8B",
            )
        path = _from_hub(spec, offline=offline)
    return str(path), _read(path, spec)


def _from_hub(spec: str, *, offline: bool) -> Path:
    from prefixlint.tokenize.huggingface import cached_file, go_offline, hub_cache_dir, hub_offline

    repo_id, _, revision = spec.partition("@")
    local_only = hub_offline(offline)
    if local_only:
        go_offline()
    import huggingface_hub
    from huggingface_hub import errors as hub_errors

    fix = f"download it once with `hf download {repo_id} {CONFIG_FILE}`, or pass a path to a config.json"
    try:
        cached = cached_file(repo_id, CONFIG_FILE, revision or None, hub_cache_dir())
        if cached is not None:  # no socket for what is in the cache
            return Path(cached)
        return Path(huggingface_hub.hf_hub_download(
            repo_id, CONFIG_FILE, revision=revision or None, local_files_only=local_only
        ))
    except hub_errors.LocalEntryNotFoundError:
        raise PrefixlintError(
            f"{CONFIG_FILE} of {repo_id!r} is not in the Hugging Face cache"
            + (" and the hub is offline" if local_only else " and could not be downloaded"),
            hint=fix,
        ) from None
    except Exception as exc:  # not found, gated, invalid id, no network: all mean "cannot load"
        raise PrefixlintError(f"cannot load {CONFIG_FILE} of {repo_id!r}: {exc}", hint=fix) from None


def _read(path: Path, shown: str) -> dict[str, Any]:
    from prefixlint.load.json_source import load_json

    try:
        text = read_bytes(str(path)).decode("utf-8")
    except PrefixlintError as exc:
        exc.path = shown
        raise
    except (OSError, UnicodeDecodeError) as exc:
        raise PrefixlintError(f"cannot read: {exc}", path=shown) from None
    data = load_json(text, shown, "not JSON")
    if not isinstance(data, dict):
        raise PrefixlintError("expected a JSON object (a model's config.json)", path=shown)
    return data
