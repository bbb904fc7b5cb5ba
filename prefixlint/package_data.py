"""The folder of data files shipped inside one of prefixlint's packages (rules, engines.toml).

`importlib.resources.files()` would do, but on every call it imports its zip-archive support
(`zipfile` and friends, about 3 ms) for a package that pip always installs as plain files.
So the package's own folder is used when it has one, and importlib.resources otherwise.
"""

from __future__ import annotations

import importlib.util
from functools import lru_cache
from pathlib import Path
from typing import Any


@lru_cache(maxsize=None)
def package_dir(package: str) -> Any:
    """A Path (or, for a package not on the file system, a Traversable) of `package`'s folder."""
    spec = importlib.util.find_spec(package)
    locations = list(spec.submodule_search_locations or ()) if spec is not None else []
    if len(locations) == 1 and Path(locations[0]).is_dir():
        return Path(locations[0])
    from importlib import resources

    return resources.files(package)
