"""The check tests run offline, each with the configuration files read afresh."""

import pytest

from prefixlint.config import clear_cache
from tests.check.test_history import enc, tok  # shared with test_served_fix

__all__ = ["enc", "offline", "tok"]


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    clear_cache()
    yield
    clear_cache()
