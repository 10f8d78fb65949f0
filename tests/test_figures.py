"""The shared figure saving: a note under a figure that shows a stand-in, beneath everything it draws, and
the same bytes twice; a figure of real models only is saved as before."""

from __future__ import annotations

import io

import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
import pytest

from lmprobes.figures import (
    STAND_IN_NOTE,
    legend_inches,
    mark_of_pass,
    save_png,
    series_colour,
    shown_stand_ins,
    stand_in_notes,
)


def legend_below_figure():
    """Constrained layout with a figure legend outside at the bottom (BLiMP's and Ettinger's figures)."""
    fig, axes = plt.subplots(1, 2, figsize=(6, 3), constrained_layout=True)
    for ax in axes:
        ax.bar([0, 1], [3, 4], color="#1f77b4", label="tiny-bert")
        ax.set_xlabel("condition")
    fig.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", fontsize="small")
    return fig


def suptitle_tight_figure():
    """tight_layout with a suptitle (oLMpics' figures)."""
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([1, 2], [3, 4], color="#1f77b4", label="tiny-bert")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    ax.set_xlabel("training examples N")
    fig.suptitle("a title")
    fig.tight_layout()
    return fig


def rows_of(png: bytes) -> tuple[np.ndarray, np.ndarray]:
    """The image's rows holding the note's dark red, and those holding anything else but white."""
    rgb = matplotlib.image.imread(io.BytesIO(png))[..., :3]
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    white = (rgb > 0.98).all(axis=-1)
    red = ~white & (r > g) & (np.abs(g - b) < 0.005)  # the note's colour over white, at any coverage
    return np.flatnonzero(red.any(axis=1)), np.flatnonzero((~white & ~red).any(axis=1))


@pytest.mark.parametrize("draw", [legend_below_figure, suptitle_tight_figure])
def test_the_note_lies_under_everything_the_figure_draws(draw, tmp_path) -> None:
    fig = save_png(draw(), tmp_path / "noted.png", dpi=120, stand_ins=["tiny-bert"])
    assert stand_in_notes(fig) == [STAND_IN_NOTE + "tiny-bert"]
    note_rows, content_rows = rows_of((tmp_path / "noted.png").read_bytes())
    assert len(note_rows) > 5 and len(content_rows) > 100
    assert note_rows.min() > content_rows.max()  # no axis, label or legend on the note's lines
    save_png(draw(), tmp_path / "again.png", dpi=120, stand_ins=["tiny-bert"])
    assert (tmp_path / "noted.png").read_bytes() == (tmp_path / "again.png").read_bytes()


@pytest.mark.parametrize("draw", [legend_below_figure, suptitle_tight_figure])
def test_a_figure_of_real_models_only_is_saved_as_before(draw, tmp_path) -> None:
    fig = save_png(draw(), tmp_path / "plain.png", dpi=120)
    assert not any(STAND_IN_NOTE in text.get_text() for text in fig.texts)
    before = draw()
    before.savefig(tmp_path / "before.png", format="png", dpi=120, metadata={"Software": None})
    plt.close(before)
    assert (tmp_path / "plain.png").read_bytes() == (tmp_path / "before.png").read_bytes()
    note_rows, _ = rows_of((tmp_path / "plain.png").read_bytes())
    assert len(note_rows) == 0


def test_a_long_list_of_stand_ins_wraps_to_the_figures_width(tmp_path) -> None:
    names = [f"tiny-model-{i}" for i in range(12)]
    fig = save_png(suptitle_tight_figure(), tmp_path / "long.png", dpi=100, stand_ins=names)
    assert stand_in_notes(fig) == [STAND_IN_NOTE + ", ".join(sorted(names))]  # no name cut at its hyphen
    assert fig.texts[-1].get_text().count("\n") >= 2
    width = matplotlib.image.imread(tmp_path / "long.png").shape[1]
    assert width < 100 * 4 * 1.2  # the picture is not stretched sideways by one long line


def test_shown_stand_ins_are_the_drawn_systems_among_them() -> None:
    drawn = ["Freq", "tiny-bert", "tiny-gpt2 (blimp_paper)", "bert-base-cased"]
    assert shown_stand_ins(["tiny-roberta", "tiny-gpt2", "tiny-bert", "mlm_baseline"], drawn) == ["tiny-bert", "tiny-gpt2"]
    assert shown_stand_ins(["tiny-roberta"], drawn) == []
    assert shown_stand_ins([], drawn) == []


def test_series_past_ten_take_a_second_mark_and_the_first_ten_look_as_before() -> None:
    marks = ("-", "--", ":")
    looks = [(series_colour(i), mark_of_pass(i, marks)) for i in range(30)]
    assert len(set(looks)) == 30
    assert looks[:10] == [(f"C{i}", "-") for i in range(10)]  # matplotlib's default cycle, the first mark
    assert mark_of_pass(30, marks) == "-"  # past the last mark, the first again
    assert [legend_inches(n) for n in (0, 20, 21, 28)] == [0, 0, pytest.approx(0.22), pytest.approx(0.44)]
