"""The folder of data files shipped inside one of prefixlint's packages (rules, engines.toml).

`importlib.resources.files()` would do, but on every call it imports its zip-archive support
(`zipfile` and friends, about 3 ms) for a package that pip always installs as plain files.
So the package's own folder is used when it has one, and importlib.resources otherwise.

A package that pyproject.toml maps onto a folder of the repository (`prefixlint.catalog` is
`rules/`) exists only once installed; run from a source tree that is not installed in place
(`python -m prefixlint` inside a clone), the folder itself is used.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any

#: Packages pyproject.toml's `package-dir` maps onto a folder of the repository's top level.
_MAPPED = {"prefixlint.catalog": "rules"}


@lru_cache(maxsize=None)
def package_dir(package: str) -> Any:
    """A Path (or, for a package not on the file system, a Traversable) of `package`'s folder."""
    try:
        spec = importlib.util.find_spec(package)
    except ModuleNotFoundError:
        spec = None
    if spec is None and package in _MAPPED:  # a source tree, not installed in place
        mapped = Path(__file__).resolve().parent.parent / _MAPPED[package]
        if mapped.is_dir():
            return mapped
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    if len(locations) == 1 and Path(locations[0]).is_dir():
        return Path(locations[0])
    from importlib import resources

    return resources.files(package)
