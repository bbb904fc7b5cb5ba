"""The one percentage formatter, in its two printed forms."""

import pytest

from prefixlint.numbers import percent


@pytest.mark.parametrize("part, whole, shown", [
    (304, 1110, "27.4%"),   # 30400 / 1110 = 27.387...
    (1, 3, "33.3%"),
    (0, 5, "0.0%"),
    (5, 5, "100.0%"),
    (0, 0, "0.0%"),
])
def test_one_decimal(part, whole, shown):
    assert percent(part, whole) == shown


@pytest.mark.parametrize("part, whole, shown", [
    (304, 1110, "27.4%"),
    (0, 5, "0%"),
    (5, 5, "100%"),
    (0, 0, "0%"),
    (3, 0, "0%"),
    (999, 1000, "99.9%"),
])
def test_bare_ends(part, whole, shown):
    assert percent(part, whole, bare_ends=True) == shown
