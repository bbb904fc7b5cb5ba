"""The fix tests run offline, each with the configuration files read afresh (the check tests' fixture)."""

from tests.check.conftest import offline  # noqa: F401  (autouse)
