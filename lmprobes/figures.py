"""What every suite figure shares: its PNG, deterministic, and a warning drawn in it when it shows a stand-in.

A PNG copied out of ``results/plots/`` leaves its report caption behind, so a figure that shows a tiny
random-weight model or a system ``report.stand_ins`` names says so itself: a dark red note under
everything drawn, naming them. A figure of real models only is saved exactly as before.

A line figure whose systems are (model, method) pairs (BLiMP's and LAMA's Figure 2) draws them with
``line_looks``: the model's colour, the method's line style and marker, the same in every panel, and one
legend of the models' colours, then the methods' styles, each group under its title (``legend_groups``,
``legend_layout``). Models 11-20 take the first ten's colours again with hollow markers (white inside,
edged in the colour), and the legend shows them as a line with such a marker rather than a patch. The
references (a baseline, a published system) are black, each with a line style of its own, so they read as
the yardstick rather than another model. Systems without a (model, method) each, or with more models than
``MODEL_LOOKS`` (20) or more methods than distinct styles (``METHOD_LOOKS``), fall back to a look per system.

That fall-back, and Ettinger's bars (a colour per model, the paper's bars of a model in it, lighter), take
their colours from matplotlib's ten-colour cycle (``series_colour``); past ten a colour comes back, so each
pass through the colours takes another second mark (a line style, marker or hatch: ``mark_of_pass``), and
no two series look alike while there are marks left (ten series for each mark: 60 with the six markers or
hatches of LAMA's, oLMpics' and Ettinger's figures, 160 with BLiMP Figure 2's sixteen).
"""

from __future__ import annotations

import textwrap
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from lmprobes.io import atomic_path

STAND_IN_NOTE = "Stand-in models (random weights or configured stand-ins), not a reproduction: "
NOTE_GID = "stand-in-note"
NOTE_COLOUR = "#a00000"
NOTE_FONTSIZE = 9
NOTE_GAP_INCHES = 0.1
# Mean width of a bold DejaVu Sans character, in font sizes: where the note wraps to the content's width.
CHARACTER_WIDTH = 0.62
# matplotlib's default colour cycle, C0 ... C9.
SERIES_COLOURS = 10


def series_colour(index: int) -> str:
    """The colour of the ``index``-th series: matplotlib's default cycle, as a plot without one would take."""
    return f"C{index % SERIES_COLOURS}"


# Legends below a figure (BLiMP's, Ettinger's): this many columns, and room in the figure's own height for
# LEGEND_ROWS rows; each row past them makes the figure LEGEND_ROW_INCHES taller.
LEGEND_COLUMNS = 4
LEGEND_ROWS = 5
LEGEND_ROW_INCHES = 0.22


def legend_inches(entries: int, columns: int = LEGEND_COLUMNS) -> float:
    """The height a figure adds for a legend of ``entries`` in ``columns`` below it (none up to ``LEGEND_ROWS``
    rows): constrained layout fits such a legend in the figure's height, and one of 140 systems covered the panels."""
    rows = -(-entries // columns)
    return LEGEND_ROW_INCHES * max(0, rows - LEGEND_ROWS)


def mark_of_pass(index: int, marks: Sequence):
    """The ``index``-th series' second mark: ``marks[0]`` for the first ten series, ``marks[1]`` for the next
    ten (whose colours repeat the first ten's), and so on, from the start again past the last."""
    return marks[index // SERIES_COLOURS % len(marks)]


# A method's line style and marker: both change from one method to the next, the pair repeats after
# METHOD_LOOKS (the least common multiple of four styles and six markers).
METHOD_STYLES = ("-", "--", ":", "-.")
METHOD_MARKERS = ("o", "s", "^", "D", "v", "P")
METHOD_LOOKS = 12
# Models take the ten colours with filled markers, then again with hollow ones: 20 models told apart.
MODEL_LOOKS = 2 * SERIES_COLOURS
HOLLOW_FACE = "white"
HOLLOW_SIZE_FACTOR = 1.5
# The methods' legend shows their style and marker in this neutral grey, no model's colour.
METHOD_KEY_COLOUR = "dimgrey"
# References are black (in no model's colours): a line style each, then a marker with each pass.
REFERENCE_COLOUR = "black"
REFERENCE_STYLES = ("--", ":", "-.", "-")
REFERENCE_MARKERS = (None, "x", "+", "*")


class Look(NamedTuple):
    colour: str
    linestyle: str
    marker: str | None
    hollow: bool = False  # markers white inside, edged in the colour (models 11-20)


def plot_style(look: Look, markersize: float) -> dict:
    """``look`` as keywords of ``Axes.plot``; only a hollow look takes a marker face, so that every other
    figure draws as before there was one. A hollow marker is drawn larger, so that its white inside
    shows at the panels' small sizes."""
    style = {"color": look.colour, "linestyle": look.linestyle, "marker": look.marker, "markersize": markersize}
    if look.hollow:
        style.update(markerfacecolor=HOLLOW_FACE, markersize=markersize * HOLLOW_SIZE_FACTOR)
    return style


@dataclass(frozen=True)
class LineLooks:
    """Each system's ``Look``; where the systems factor, each model's (colour, hollow) and each method's
    (style, marker), else both empty. ``references``: the systems drawn as references, in order."""

    systems: dict[str, Look]
    models: dict[str, tuple[str, bool]]
    methods: dict[str, tuple[str, str | None]]
    references: tuple[str, ...]

    @property
    def factored(self) -> bool:
        return bool(self.models)


def system_factors(frame: pd.DataFrame) -> dict[str, tuple[str, str]] | None:
    """Each ``system`` of ``frame``'s (``model``, ``method``), from its columns; None where it has none,
    a system lacks one, or a system has two."""
    if not {"system", "model", "method"} <= set(frame.columns):
        return None
    pairs = frame[["system", "model", "method"]].drop_duplicates()
    if pairs.isna().any(axis=None) or pairs["system"].duplicated().any():
        return None
    return {system: (model, method) for system, model, method in pairs.itertuples(index=False)}


def line_looks(systems: Iterable[str], factors: Mapping[str, tuple[str, str]] | None = None,
               references: Sequence[str] = (), fallback: Sequence[tuple[str, str | None]] = (("-", None),)
               ) -> LineLooks:
    """The looks of ``systems`` (in drawing order): those among ``references`` black, in that order
    (``reference_look``); the others coloured by model and styled by method from ``factors`` (system ->
    (model, method)), models and methods numbered in order of appearance (``model_look``); or, where they
    do not factor (``factors`` misses one, more models than ``MODEL_LOOKS`` or methods than
    ``METHOD_LOOKS``), the i-th the i-th colour of the cycle and ``mark_of_pass(i, fallback)``'s (style,
    marker), as all were drawn before."""
    systems = list(dict.fromkeys(systems))
    shown_references = tuple(system for system in dict.fromkeys(references) if system in systems)
    ours = [system for system in systems if system not in shown_references]
    looks = {system: reference_look(i) for i, system in enumerate(shown_references)}
    models, methods = _factor_orders(ours, factors)
    if models is None:
        looks |= {system: Look(series_colour(i), *mark_of_pass(i, fallback)) for i, system in enumerate(ours)}
        return LineLooks({system: looks[system] for system in systems}, {}, {}, shown_references)
    model_looks = {model: model_look(i) for i, model in enumerate(models)}
    styles = {method: method_style(i) for i, method in enumerate(methods)}
    for system in ours:
        model, method = factors[system]
        colour, hollow = model_looks[model]
        looks[system] = Look(colour, *styles[method], hollow)
    return LineLooks({system: looks[system] for system in systems}, model_looks, styles, shown_references)


def _factor_orders(systems: list[str], factors: Mapping[str, tuple[str, str]] | None):
    """The models and methods of ``systems`` in order of appearance, or (None, None) where they do not
    factor into distinct looks."""
    if factors is None or any(system not in factors for system in systems):
        return None, None
    models = list(dict.fromkeys(factors[system][0] for system in systems))
    methods = list(dict.fromkeys(factors[system][1] for system in systems))
    if len(models) > MODEL_LOOKS or len(methods) > METHOD_LOOKS:
        return None, None
    return models, methods


def model_look(index: int) -> tuple[str, bool]:
    """The ``index``-th model's (colour, hollow): the ten colours with filled markers, then with hollow ones."""
    return series_colour(index), index >= SERIES_COLOURS


def method_style(index: int) -> tuple[str, str]:
    """The ``index``-th method's (line style, marker): both differ between neighbours."""
    return METHOD_STYLES[index % len(METHOD_STYLES)], METHOD_MARKERS[index % len(METHOD_MARKERS)]


def reference_look(index: int) -> Look:
    style = REFERENCE_STYLES[index % len(REFERENCE_STYLES)]
    return Look(REFERENCE_COLOUR, style, REFERENCE_MARKERS[index // len(REFERENCE_STYLES) % len(REFERENCE_MARKERS)])


class LegendGroup(NamedTuple):
    title: str | None
    handles: list[Artist]
    labels: list[str]


def legend_groups(looks: LineLooks) -> list[LegendGroup]:
    """A line figure's legend entries: where its systems factor, the models' colours (a patch, or past
    ten a line with a hollow marker; the references after them, as drawn) under "model" and the methods'
    styles under "method", so that 20 systems of 6 models and 5 methods take 13 entries and each line is
    read off two short lists; else one entry per system, untitled."""
    if not looks.factored:
        return [LegendGroup(None, [_line(look) for look in looks.systems.values()], list(looks.systems))]
    models = [_line(Look(colour, "-", HOLLOW_KEY_MARKER, True)) if hollow else Patch(color=colour)
              for colour, hollow in looks.models.values()]
    references = [_line(looks.systems[system]) for system in looks.references]
    methods = [_line(Look(METHOD_KEY_COLOUR, *style)) for style in looks.methods.values()]
    return [LegendGroup("model", models + references, [*looks.models, *looks.references]),
            LegendGroup("method", methods, list(looks.methods))]


# A legend's lines take markers a little larger than the figures' (3), to be told apart.
LEGEND_MARKER_SIZE = 4
# A hollow model's legend entry: its colour's line through this marker, hollow.
HOLLOW_KEY_MARKER = "o"


def _line(look: Look) -> Line2D:
    return Line2D([], [], **plot_style(look, LEGEND_MARKER_SIZE))


class LegendLayout(NamedTuple):
    """A legend's entries in ``columns`` full columns, and which entries are group titles."""

    handles: list[Artist]
    labels: list[str]
    titles: list[int]
    columns: int


def legend_layout(groups: Sequence[LegendGroup], rows: int) -> LegendLayout:
    """``groups`` in columns of ``rows`` entries, each under its title: a group follows the one before in
    its column where it fits in what is left of it, else starts a column, and a titled group's further
    columns leave the title's row blank (its entries side by side under it). Blank entries fill the
    columns: matplotlib spreads a legend's entries evenly over its columns, which would move them."""
    handles, labels, titles = [], [], []
    for group in groups:
        titled = group.title is not None
        left = -len(handles) % rows
        if len(group.labels) + titled > left:
            _pad(handles, labels, left)
        if titled:
            titles.append(len(handles))
            _pad(handles, labels, 1, group.title)
        for handle, label in zip(group.handles, group.labels, strict=True):
            if titled and len(handles) % rows == 0:
                _pad(handles, labels, 1)  # the title's row, in a further column
            handles.append(handle)
            labels.append(label)
    columns = -(-len(handles) // rows)
    if columns > 1:
        _pad(handles, labels, -len(handles) % rows)
    return LegendLayout(handles, labels, titles, max(1, columns))


def legend_rows(groups: Sequence[LegendGroup], columns: int) -> int:
    """The fewest rows that lay ``groups`` out in ``columns`` columns or fewer."""
    rows = 1
    while legend_layout(groups, rows).columns > columns:
        rows += 1
    return rows


def _pad(handles: list, labels: list, count: int, label: str = "") -> None:
    handles += [Line2D([], [], linestyle="none") for _ in range(count)]
    labels += [label] * count


def draw_legend(parent, layout: LegendLayout, **kwargs):
    """``layout``'s legend on ``parent`` (a figure or axes), its group titles bold."""
    legend = parent.legend(layout.handles, layout.labels, ncols=layout.columns, **kwargs)
    for index in layout.titles:
        legend.get_texts()[index].set_fontweight("bold")
    return legend


def shown_stand_ins(stand_ins: Collection[str], systems: Iterable[str]) -> list[str]:
    """The stand-ins among the reproduced ``systems`` a figure draws, sorted; a system labelled
    ``model (method)`` shows ``model``."""
    shown = set()
    for system in systems:
        shown |= {system, system.split(" (", 1)[0]}
    return sorted(set(stand_ins) & shown)


def stand_in_note(names: Collection[str]) -> str:
    return STAND_IN_NOTE + ", ".join(sorted(names))


def save_png(fig: Figure, out: str | Path, *, dpi: int, stand_ins: Collection[str] = ()) -> Figure:
    """Write ``fig`` to ``out`` without software or date metadata (the same figure gives the same bytes) and
    close it; ``stand_ins``, the stand-ins it shows (``shown_stand_ins``), are named in a note under it.
    Returns the closed figure, whose artists stay readable."""
    if stand_ins:
        draw_stand_in_note(fig, stand_ins)
    with atomic_path(out) as tmp:
        # the note lies below the figure's own area: a tight box takes it in
        fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": None},
                    bbox_inches="tight" if stand_ins else None)
    plt.close(fig)
    return fig


def draw_stand_in_note(fig: Figure, names: Collection[str]) -> None:
    """The note, centred under everything ``fig`` draws (axes, labels, legends below), wrapped to its width
    between names, never inside one."""
    freeze_layout(fig)
    content = fig.get_tightbbox(fig.canvas.get_renderer())  # inches
    characters = max(40, int(content.width * 72 / (CHARACTER_WIDTH * NOTE_FONTSIZE)))
    text = textwrap.fill(stand_in_note(names), characters, break_long_words=False, break_on_hyphens=False)
    fig.text((content.x0 + content.width / 2) / fig.get_figwidth(), (content.y0 - NOTE_GAP_INCHES) / fig.get_figheight(),
             text, ha="center", va="top", color=NOTE_COLOUR, fontsize=NOTE_FONTSIZE, fontweight="bold", gid=NOTE_GID)


def stand_in_notes(fig: Figure) -> list[str]:
    """The stand-in notes drawn in ``fig``, unwrapped (none on a figure of real models only)."""
    return [text.get_text().replace("\n", " ") for text in fig.texts if text.get_gid() == NOTE_GID]


def freeze_layout(fig: Figure) -> None:
    """Lay ``fig`` out, then keep everything there while the saved area grows to take in the note: the layout
    engine stops, and the figure's legends stay anchored to its own box (they would follow the saved area's
    edge, onto the note)."""
    fig.draw_without_rendering()
    fig.set_layout_engine("none")
    for legend in fig.legends:
        legend.set_bbox_to_anchor((0, 0, 1, 1), transform=fig.transFigure)
