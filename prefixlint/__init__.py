"""prefixlint: measure and lint LLM prompt prefix-cache reuse, token-exact."""

__version__ = "0.1.0"  # the one place: pyproject.toml reads it; the release tag is v + this
#: The repository (pyproject.toml's [project.urls] Repository, checked by tests/test_release.py).
REPOSITORY = "https://github.com/prefixlint/prefixlint"
