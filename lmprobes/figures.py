"""What every suite figure shares: its PNG, deterministic, and a warning drawn in it when it shows a stand-in.

A PNG copied out of ``results/plots/`` leaves its report caption behind, so a figure that shows a tiny
random-weight model or a system ``report.stand_ins`` names says so itself: a dark red note under
everything drawn, naming them. A figure of real models only is saved exactly as before.

A figure with one series per system colours them from matplotlib's ten-colour cycle (``series_colour``);
past ten a colour comes back, so each pass through the colours takes another second mark (a line style,
marker or hatch: ``mark_of_pass``), and no two series look alike while there are marks left (ten series for
each mark: 60 with the six markers or hatches of LAMA's, oLMpics' and Ettinger's figures, 160 with BLiMP
Figure 2's sixteen). Ten series or fewer look as they did.
"""

from __future__ import annotations

import textwrap
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

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
