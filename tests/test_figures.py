"""The shared figure saving: a note under a figure that shows a stand-in, beneath everything it draws, and
the same bytes twice; a figure of real models only is saved as before."""

from __future__ import annotations

import io

import matplotlib.colors
import matplotlib.image
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from figure_cases import SYNTHETIC_MODELS, SYNTHETIC_REFERENCES
from lmprobes.figures import (
    HOLLOW_FACE,
    METHOD_LOOKS,
    MODEL_LOOKS,
    REFERENCE_COLOUR,
    STAND_IN_NOTE,
    Look,
    legend_groups,
    legend_inches,
    legend_layout,
    legend_rows,
    line_looks,
    mark_of_pass,
    plot_style,
    save_png,
    series_colour,
    shown_stand_ins,
    stand_in_notes,
    system_factors,
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


def synthetic_factors() -> dict[str, tuple[str, str]]:
    return {f"{model} ({method})": (model, method) for model, methods in SYNTHETIC_MODELS.items() for method in methods}


def test_line_looks_colour_each_model_and_style_each_method() -> None:
    factors = synthetic_factors()
    systems = [*factors, *SYNTHETIC_REFERENCES]
    looks = line_looks(systems, factors, SYNTHETIC_REFERENCES)
    assert looks.factored and len(systems) == 20
    assert len(set(looks.systems.values())) == 20  # no two lines alike
    colours = {model: {looks.systems[system].colour for system, (m, _) in factors.items() if m == model}
               for model in SYNTHETIC_MODELS}
    assert all(len(shades) == 1 for shades in colours.values())  # one colour a model, whatever the method
    assert len({shades.pop() for shades in colours.values()}) == len(SYNTHETIC_MODELS)  # a colour each
    styles = {}
    for system, (_, method) in factors.items():
        styles.setdefault(method, set()).add(looks.systems[system][1:])
    assert all(len(style) == 1 for style in styles.values())  # one (line style, marker) a method
    assert len({style.pop() for style in styles.values()}) == len(styles)  # a style each
    references = [looks.systems[system] for system in SYNTHETIC_REFERENCES]
    assert {look.colour for look in references} == {REFERENCE_COLOUR}
    assert REFERENCE_COLOUR not in {looks.systems[system].colour for system in factors}
    assert looks.references == tuple(SYNTHETIC_REFERENCES) and list(looks.models) == list(SYNTHETIC_MODELS)


def test_a_reference_the_figure_does_not_draw_takes_no_look_and_no_legend_entry() -> None:
    """A panel without one of the paper's systems: the references drawn look as if it were not listed."""
    factors = synthetic_factors()
    first, second = SYNTHETIC_REFERENCES
    looks = line_looks([*factors, second], factors, SYNTHETIC_REFERENCES)
    assert looks.references == (second,)
    assert looks.systems[second] == line_looks([*factors, second], factors, [second]).systems[second]
    model_group, _ = legend_groups(looks)
    assert first not in model_group.labels and model_group.labels[-1] == second

def test_systems_that_do_not_factor_look_as_before() -> None:
    """Without a (model, method) for each system, or with more models than ``MODEL_LOOKS``, each system takes
    the next colour and, past ten, the next mark, as every system did before."""
    marks = (("-", "o"), ("--", "s"))
    count = MODEL_LOOKS + 1
    many = {f"m{i:02d} (pll_original)": (f"m{i:02d}", "pll_original") for i in range(count)}
    before = [Look(series_colour(i), *mark_of_pass(i, marks)) for i in range(count)]  # none hollow
    for factors in (None, dict(list(many.items())[1:]), many):
        looks = line_looks(many, factors, fallback=marks)
        assert not looks.factored and list(looks.systems.values()) == before
    assert line_looks(list(many)[:MODEL_LOOKS], many, fallback=marks).factored  # 20 models: a look each
    methods = {f"m ({k})": ("m", f"k{k}") for k in range(METHOD_LOOKS + 1)}
    assert not line_looks(methods, methods).factored and line_looks(list(methods)[:-1], methods).factored


def test_system_factors_come_from_the_frames_columns() -> None:
    frame = pd.DataFrame({"system": ["gpt2 (salazar)", "gpt2 (salazar)", "bert"], "model": ["gpt2", "gpt2", "bert"],
                          "method": ["salazar", "salazar", "masked"], "k": [1, 2, 1]})
    assert system_factors(frame) == {"gpt2 (salazar)": ("gpt2", "salazar"), "bert": ("bert", "masked")}
    assert system_factors(frame.drop(columns="method")) is None
    assert system_factors(frame.assign(model=["gpt2", "gpt2", None])) is None
    assert system_factors(frame.assign(model=["gpt2", "gpt2-medium", "bert"])) is None  # one system, two models


def test_a_factored_legend_lists_models_then_methods_each_under_its_title() -> None:
    factors = synthetic_factors()
    looks = line_looks([*factors, *SYNTHETIC_REFERENCES], factors, SYNTHETIC_REFERENCES)
    groups = legend_groups(looks)
    assert [group.title for group in groups] == ["model", "method"]
    assert groups[0].labels == [*SYNTHETIC_MODELS, *SYNTHETIC_REFERENCES]
    assert len(groups[1].labels) == len({method for _, method in factors.values()})
    layout = legend_layout(groups, rows=6)  # 8 models and references, 9 methods: two columns each
    assert layout.columns == 4 and len(layout.labels) == 4 * 6
    columns = [layout.labels[i:i + 6] for i in range(0, len(layout.labels), 6)]
    assert [column[0] for column in columns] == ["model", "", "method", ""]  # the title's row blank further on
    assert columns[0][1:] + columns[1][1:4] == groups[0].labels
    assert layout.titles == [0, 12]
    stacked = legend_layout(groups, rows=20)  # both fit in one column: the methods under the models
    assert stacked.columns == 1 and stacked.labels == ["model", *groups[0].labels, "method", *groups[1].labels]
    assert legend_rows(groups, 4) == 6


def fifteen_models() -> dict[str, tuple[str, str]]:
    """15 models under two methods: 30 systems."""
    return {f"m{i:02d} ({method})": (f"m{i:02d}", method) for i in range(15) for method in ("salazar", "lmeval04")}


def test_models_past_ten_take_the_first_tens_colours_with_hollow_markers() -> None:
    factors = fifteen_models()
    looks = line_looks([*factors, *SYNTHETIC_REFERENCES], factors, SYNTHETIC_REFERENCES)
    assert looks.factored and len(set(looks.systems.values())) == len(looks.systems) == 32
    by_model = {}
    for system, (model, _) in factors.items():
        look = looks.systems[system]
        by_model.setdefault(model, set()).add((look.colour, look.hollow))
    assert all(len(shades) == 1 for shades in by_model.values())  # one colour and face a model
    shades = [by_model[f"m{i:02d}"].pop() for i in range(15)]
    assert shades == [(f"C{i}", False) for i in range(10)] + [(f"C{i}", True) for i in range(5)]
    for method, style in (("salazar", ("-", "o")), ("lmeval04", ("--", "s"))):  # the method still styles
        assert {looks.systems[f"m{i:02d} ({method})"][1:3] for i in range(15)} == {style}
    assert not any(looks.systems[system].hollow for system in SYNTHETIC_REFERENCES)
    assert plot_style(looks.systems["m12 (salazar)"], 3) == {"color": "C2", "linestyle": "-", "marker": "o",
                                                             "markersize": 4.5, "markerfacecolor": HOLLOW_FACE}
    assert plot_style(looks.systems["m02 (salazar)"], 3) == {"color": "C2", "linestyle": "-", "marker": "o",
                                                             "markersize": 3}


def test_the_legend_shows_models_past_ten_as_lines_with_hollow_markers() -> None:
    factors = fifteen_models()
    looks = line_looks([*factors, *SYNTHETIC_REFERENCES], factors, SYNTHETIC_REFERENCES)
    model_group, method_group = legend_groups(looks)
    assert model_group.labels == [*(f"m{i:02d}" for i in range(15)), *SYNTHETIC_REFERENCES]
    first, past, references = model_group.handles[:10], model_group.handles[10:15], model_group.handles[15:]
    assert all(isinstance(handle, Patch) for handle in first)  # the first ten as before: a filled patch
    assert [matplotlib.colors.to_hex(handle.get_facecolor()) for handle in first] == [
        matplotlib.colors.to_hex(f"C{i}") for i in range(10)]
    assert all(isinstance(handle, Line2D) for handle in past + references)
    assert [(h.get_color(), h.get_markerfacecolor(), h.get_markeredgecolor()) for h in past] == [
        (f"C{i}", HOLLOW_FACE, f"C{i}") for i in range(5)]
    assert all(h.get_marker() not in (None, "None", "none") and h.get_linestyle() == "-" for h in past)
    assert method_group.labels == ["salazar", "lmeval04"]
