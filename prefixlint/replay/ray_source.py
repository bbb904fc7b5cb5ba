"""`replay --ray`: render and tokenize the log with Ray Data, blocks streamed back in log order.

Ray Data reads the log where it is (a local path or an object-storage URL, JSON Lines with
`read_text` or Parquet with `read_parquet`), an actor pool prepares batches of lines exactly
as the replay's own process would (`prepared.prepare_lines`), and the batches come back in
the log's order (`preserve_order`) to the simulator, which runs here. Ray is an optional
extra (`pip install 'prefixlint[ray]'`); it connects to `RAY_ADDRESS` when set, else starts
a local Ray for the run and stops it after.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import pickle
import socket
from typing import Any, Iterator
from urllib.parse import urlsplit

from prefixlint.errors import PrefixlintError
from prefixlint.replay.parallel import CHUNK_LINES, died
from prefixlint.replay.prepared import Setup, prepare_lines, renumber

#: Seconds to wait for RAY_ADDRESS to answer before giving up.
CONNECT_SECONDS = 5.0
INSTALL = "pip install 'prefixlint[ray]'"


def _address(text: str) -> tuple[str, int] | None:
    """(host, port) of a RAY_ADDRESS; None for `auto` and `local` (Ray decides)."""
    if text in ("auto", "local"):
        return None
    parts = urlsplit(text if "://" in text else f"ray-gcs://{text}")
    default = 10001 if parts.scheme == "ray" else 6379
    try:
        return parts.hostname or "", parts.port or default
    except ValueError:
        raise PrefixlintError(f"RAY_ADDRESS {text!r} is not HOST:PORT or ray://HOST:PORT") from None


def check_ray(log: str) -> None:
    """Fail fast: Ray missing, standard input, a missing local file, RAY_ADDRESS unreachable."""
    if importlib.util.find_spec("ray") is None:
        raise PrefixlintError("--ray needs Ray, which is not installed", hint=f"{INSTALL}, or use --workers N")
    if log == "-":
        raise PrefixlintError("--ray reads the log itself: give a path or a URL, not standard input")
    if "://" not in log and not os.path.exists(log):
        raise PrefixlintError("no such file", path=log)
    address = os.environ.get("RAY_ADDRESS", "").strip()
    where = _address(address) if address else None
    if where is None:
        return
    try:
        socket.create_connection(where, timeout=CONNECT_SECONDS).close()
    except OSError as exc:
        raise PrefixlintError(f"RAY_ADDRESS {address}: no Ray cluster answers there ({exc.strerror or exc})",
                              hint="start it (ray start --head), or unset RAY_ADDRESS to start a local Ray") from None


def _without_nulls(value: Any) -> Any:
    """Parquet gives every row every column (null where a line had no such key)."""
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


class _Prepare:
    """A Ray Data actor: loads the tokenizer once, prepares batches of lines."""

    def __init__(self, setup: Setup, parquet: bool) -> None:
        self.setup = setup
        self.parquet = parquet

    def __call__(self, batch):
        import pyarrow as pa

        if self.parquet:
            lines = [json.dumps(_without_nulls(row), default=str).encode() + b"\n" for row in batch.to_pylist()]
        else:
            lines = [text.encode("utf-8") + b"\n" for text in batch.column("text").to_pylist()]
        records = prepare_lines(lines, 1, self.setup)
        return pa.table({"records": [pickle.dumps(records)], "lines": [len(lines)]})


def _dataset(ray, log: str, setup: Setup):
    parquet = log.lower().rstrip("/").endswith((".parquet", ".pq"))
    data = ray.data.read_parquet(log) if parquet else ray.data.read_text(log, drop_empty_lines=False)
    workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    class Prepare(_Prepare):  # the setup travels with the class, not as constructor arguments
        def __init__(self) -> None:
            super().__init__(setup, parquet)

    return data.map_batches(Prepare, batch_size=CHUNK_LINES,
                            batch_format="pyarrow", concurrency=workers, num_cpus=0.5,
                            ray_remote_args_fn=lambda: {"max_restarts": 0})


def prepared_with_ray(log: str, setup: Setup) -> Iterator:
    import ray
    import ray.data

    for name in ("ray", "ray.data"):
        logging.getLogger(name).setLevel(logging.ERROR)
    started = not ray.is_initialized()
    if started:
        ray.init(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True
    context.enable_progress_bars = False
    done = 0
    try:
        for row in _dataset(ray, log, setup).iter_rows():
            for record in pickle.loads(row["records"]):
                yield renumber(record, done)
            done += row["lines"]
    except ray.exceptions.RayError as exc:
        raise died(f"a Ray task failed ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from None
    except (OSError, ValueError) as exc:
        raise PrefixlintError(f"Ray Data cannot read the log: {exc}", path=log) from None
    finally:
        if started:
            ray.shutdown()
