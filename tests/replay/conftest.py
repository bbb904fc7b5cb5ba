"""Fixtures the replay tests share: `enc` (o200k_base, by tiktoken) from test_replay."""

from tests.replay.test_replay import enc

__all__ = ["enc"]
