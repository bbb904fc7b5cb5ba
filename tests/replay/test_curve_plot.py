"""`replay --plot`: the figure's own objects (tick texts, artists), not its pixels."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.replay.curve_report import figure
from tests.replay.test_replay_trace import SAMPLE

pytest.importorskip("matplotlib")


def _curve(*args: str) -> dict:
    result = CliRunner().invoke(cli, ["replay", str(SAMPLE), "--trace-block-size", "4", "--curve",
                                      "--format", "json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _labels(axis, minor: bool = False) -> list[str]:
    axis.figure.canvas.draw()
    return [t.get_text() for t in axis.get_ticklabels(minor=minor) if t.get_text()]


def test_the_figure_marks_the_over_capacity_points_and_draws_the_unlimited_line():
    from matplotlib import pyplot

    data = _curve()
    points, best = data["curve"], data["curve_max_hit_rate"]
    over = [p["cache_tokens"] for p in points if p["over_capacity_requests"]]
    assert over == [4, 8, 12] and best == pytest.approx(17 / 45, abs=1e-6)  # trace_sample: 5 requests, 45 tokens
    drawn = figure(points, best, "title")
    try:
        (axes,) = drawn.axes
        curve, unlimited = axes.get_lines()
        assert list(curve.get_xdata()) == [p["cache_tokens"] for p in points]
        assert list(curve.get_ydata()) == pytest.approx([100 * p["hit_rate"] for p in points])
        assert list(unlimited.get_ydata()) == pytest.approx([100 * best] * 2)
        assert unlimited.get_linestyle() == "--"
        (marked,) = axes.collections
        assert [tuple(xy) for xy in marked.get_offsets()] == [(x, 0.0) for x in over]
        assert [t.get_text() for t in axes.get_legend().get_texts()] == [
            "hit rate", "capacity smaller than a request", "unlimited cache: 37.8%"]
        assert axes.get_ylim() == pytest.approx((0, 100 * best * 1.1))
    finally:
        pyplot.close(drawn)


def test_tick_labels_are_plain_numbers_as_the_text_report_writes_them():
    from matplotlib import pyplot

    wide = [{"cache_tokens": 16 * 4**i, "hit_rate": 0.05 * i, "over_capacity_requests": 0} for i in range(8)]
    for points, expected in ((wide, {"100", "1K", "10K", "100K"}), (_curve()["curve"], {"10"})):
        drawn = figure(points, 0.4, "title")
        try:
            axes = drawn.axes[0]
            labels = _labels(axes.xaxis) + _labels(axes.xaxis, minor=True) + _labels(axes.yaxis)
            assert expected <= set(labels)
            assert not [t for t in labels if "$" in t or "e" in t or "^" in t or "×" in t], labels
            assert axes.yaxis.get_offset_text().get_text() == ""
        finally:
            pyplot.close(drawn)
    drawn = figure(_curve()["curve"], 0.4, "title")  # under two decades: the ticks between are labelled
    try:
        assert {"4", "6", "20"} <= set(_labels(drawn.axes[0].xaxis, minor=True))
    finally:
        pyplot.close(drawn)


def test_the_picture_holds_the_legend(tmp_path):
    picture = tmp_path / "curve.svg"
    result = CliRunner().invoke(cli, ["replay", str(SAMPLE), "--trace-block-size", "4", "--plot", str(picture)])
    assert result.exit_code == 0, result.output
    assert "unlimited cache: 37.8%" in picture.read_text()
