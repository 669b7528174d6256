"""The book's figure helpers (:mod:`greenelm_book.report`): log axes labelled without overlap."""

from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker as ticker
import pytest

from greenelm_book.report import log_ticks, spaced_values


def labels_of(ticks) -> list[str]:
    return [t.get_text() for t in ticks if t.get_text()]


def test_spaced_values_keep_the_smallest_then_each_far_enough_from_the_last_kept():
    assert spaced_values([1500, 500, 1000, 1200, 3000, 3000]) == [500, 1000, 3000]
    # the hardware chapter's sizes: 30,000 and 60,000 are closer than 1.6x to the last kept one
    assert spaced_values([5000, 10000, 20000, 30000, 45000, 60000]) == [5000, 10000, 20000, 45000]
    assert spaced_values([100, 200], ratio=3) == [100]


def test_log_axes_label_spaced_values_without_breaking_and_no_minor_labels():
    fig, (left, right) = plt.subplots(1, 2)
    left.plot([500, 1200, 3000], [1, 2, 3])
    left.set_xscale("log")
    log_ticks(left, [500, 1000, 1200, 1500, 3000])
    fig.canvas.draw()
    assert labels_of(left.get_xticklabels()) == ["500", "1\u202f000", "3\u202f000"]
    assert isinstance(left.xaxis.get_minor_formatter(), ticker.NullFormatter)
    right.plot([0.05, 2000], [1, 2])
    right.set_xscale("log")
    log_ticks(right)
    fig.canvas.draw()
    labels = labels_of(right.get_xticklabels())
    assert "1\u202f000" in labels and "0.1" in labels
    assert isinstance(right.xaxis.get_minor_formatter(), ticker.NullFormatter)
    plt.close(fig)


def test_log_ticks_label_the_y_axis_when_asked_and_leave_the_x_axis_alone():
    fig, ax = plt.subplots()
    ax.plot([1, 2], [100, 8000])
    ax.set(xscale="log", yscale="log")
    x_formatter = ax.xaxis.get_major_formatter()
    log_ticks(ax, [100, 1000, 8000], axis="y")
    fig.canvas.draw()
    assert labels_of(ax.get_yticklabels()) == ["100", "1\u202f000", "8\u202f000"]
    assert ax.xaxis.get_major_formatter() is x_formatter
    with pytest.raises(ValueError, match="axis must be 'x' or 'y', got 'z'"):
        log_ticks(ax, axis="z")
    plt.close(fig)
