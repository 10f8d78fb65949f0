"""oLMpics Table 4: a model's zero-shot objects-comparison predictions over every pair of objects.

The grid items are the objects-comparison template (``The size of a {x} is usually much [MASK]
than the size of a {y} .``) for every ordered pair x != y of a list of objects, row-major in the
list's order, as dev rows of the variant ``objects_grid`` (flavour ``generated``, template id
``objects_grid``, no seed). The choices are always (``larger``, ``smaller``): the release shuffles
them per item, so it has no single order to copy, and a fixed order keeps the rows deterministic
(the MC-MLM prediction does not depend on it except in an exact tie). The gold answer comes from
the sizes given (DoQ medians from ``generate_objects.read_sizes``, or any numbers that order the
objects, e.g. ``TABLE4_RANKS``: the paper's small-to-large order).

The matrix has one row per x and one column per y, objects in the order of the items; a cell is the
predicted word, empty (None) on the diagonal and where the item was not scored or was skipped.

``resources/olmpics/table4_paper.csv`` holds the paper's Table 4 (RoBERTa-L) in the layout
``write_objects_matrix`` writes. The paper's text extraction prints the table column by column
(each column's cells top to bottom, the diagonal as a stray symbol, the first column's diagonal
symbol dropped); read that way the table agrees with the prose beside it ("larger" below the
diagonal and "smaller" above, errors next to the diagonal and in the ``sun`` column) and has 47
of 56 cells right, the 84% of Table 3.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from lmprobes.io import write_table
from lmprobes.suites.olmpics.controls import item_id, items_frame
from lmprobes.suites.olmpics.generate_objects import TEMPLATE, Size
from lmprobes.suites.olmpics.schema import make_item

GENERATOR = "lmprobes.suites.olmpics.objects_matrix"
VERSION = 1
TASK = "objects_comparison"
FLAVOUR = "generated"
VARIANT = "objects_grid"
SPLIT = "dev"
TEMPLATE_ID = "objects_grid"
CHOICES = ("larger", "smaller")
DIAGONAL = "-"  # how the Markdown shows the diagonal (the CSV leaves it empty)

# The objects of the paper's Table 4, from small to large (all are in generate_objects.DEV_OBJECTS).
TABLE4_OBJECTS = ("nail", "pen", "laptop", "table", "house", "airplane", "city", "sun")
TABLE4_RANKS = {obj: float(rank) for rank, obj in enumerate(TABLE4_OBJECTS, start=1)}


class ObjectsMatrixError(ValueError):
    """Objects, sizes, items or a matrix file the Table 4 matrix cannot be built from."""


def objects_grid_items(objects: Sequence[str] = TABLE4_OBJECTS, *,
                       sizes: Mapping[str, float | Size]) -> pd.DataFrame:
    """SCHEMA rows for every ordered pair (x, y), x != y, of ``objects``, row-major in their order.

    ``sizes`` maps each object to a number (or a DoQ ``Size``) that orders the objects: the answer
    is ``larger`` when size(x) > size(y). A missing, non-finite or tied size is an error.
    """
    objects = _checked_objects(objects)
    values = _sizes_of(objects, sizes)
    rows = []
    for x in objects:
        for y in objects:
            if x != y:
                rows.append(_grid_item(len(rows) + 1, x, y, values, sizes))
    return items_frame(rows)


def objects_matrix(items: pd.DataFrame, scores: pd.DataFrame, model: str, method: str) -> pd.DataFrame:
    """The predicted word of ``model``/``method`` per grid item: index x, columns y, None if unscored."""
    grid = items[(items["task"] == TASK) & (items["template_id"] == TEMPLATE_ID)]
    if grid.empty:
        raise ObjectsMatrixError(f"no {TASK} items with template id {TEMPLATE_ID!r} among the items")
    predictions = _predictions(scores, model, method)
    pairs = _grid_pairs(grid)
    objects = list(dict.fromkeys([x for x, _ in pairs.values()] + [y for _, y in pairs.values()]))
    cells = {pair: predictions.get(row_id) for row_id, pair in pairs.items()}
    return _matrix(objects, cells)


def write_objects_matrix(matrix: pd.DataFrame, csv_path, md_path, title: str, note: str = "") -> None:
    """CSV: a column ``x`` then one column per y, empty cells where there is no prediction;
    Markdown: the paper's layout, ``-`` on the diagonal."""
    flat = matrix.reset_index()
    flat.columns = ["x", *matrix.columns]
    shown = flat.copy()
    for obj in matrix.columns:
        shown.loc[shown["x"] == obj, obj] = DIAGONAL
    shown.columns = ["", *matrix.columns]
    explain = ("\nCell (row x, column y): the predicted word in \"The size of a x is usually much [MASK] than "
               "the size of a y .\"; empty: not scored.\n")
    write_table(flat, csv_path, md_path, title=title, markdown_frame=shown, note=explain + note, latex_missing="")


def read_objects_matrix(path: str | Path) -> pd.DataFrame:
    """A matrix CSV as written by ``write_objects_matrix`` (e.g. the paper's Table 4), checked:
    the row objects are the column objects in the same order, the diagonal is empty and every
    other cell is ``larger``, ``smaller`` or empty."""
    path = Path(path)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(frame.columns[:1]) != ["x"]:
        raise ObjectsMatrixError(f"{path}, line 1: the first column must be 'x', got {list(frame.columns[:1])}")
    objects = list(frame.columns[1:])
    if list(frame["x"]) != objects:
        raise ObjectsMatrixError(f"{path}: the row objects {list(frame['x'])} are not the column objects {objects}")
    for line, row in enumerate(frame.itertuples(index=False), start=2):
        _check_matrix_row(path, line, row[0], dict(zip(objects, row[1:])))
    cells = {(x, y): cell or None for x, *row in frame.itertuples(index=False) for y, cell in zip(objects, row)}
    return _matrix(objects, cells)


def _matrix(objects: list[str], cells: dict[tuple[str, str], str | None]) -> pd.DataFrame:
    """Objects x objects, object dtype, None where ``cells`` has no word."""
    body = [[cells.get((x, y)) for y in objects] for x in objects]
    return pd.DataFrame(body, index=pd.Index(objects, name="x"), columns=pd.Index(objects, name="y"), dtype=object)


def _checked_objects(objects: Sequence[str]) -> list[str]:
    objects = list(objects)
    if len(objects) < 2:
        raise ObjectsMatrixError(f"the objects grid needs at least two objects, got {objects}")
    for obj in objects:
        if not isinstance(obj, str) or not obj.strip() or obj != obj.strip():
            raise ObjectsMatrixError(f"object {obj!r} is not a non-empty, stripped string")
    repeated = sorted({obj for obj in objects if objects.count(obj) > 1})
    if repeated:
        raise ObjectsMatrixError(f"objects listed more than once: {', '.join(repeated)}")
    return objects


def _sizes_of(objects: list[str], sizes: Mapping[str, float | Size]) -> dict[str, float]:
    missing = [obj for obj in objects if obj not in sizes]
    if missing:
        raise ObjectsMatrixError(f"no size for object(s): {', '.join(missing)}")
    values = {obj: float(sizes[obj].median if isinstance(sizes[obj], Size) else sizes[obj]) for obj in objects}
    for obj, value in values.items():
        if not math.isfinite(value):
            raise ObjectsMatrixError(f"object {obj!r}: size {value} is not a finite number")
    return values


def _grid_item(row: int, x: str, y: str, values: dict[str, float], sizes: Mapping[str, float | Size]) -> dict:
    if values[x] == values[y]:
        raise ObjectsMatrixError(f"objects {x!r} and {y!r} have the same size {values[x]}: no larger/smaller answer")
    answer = "larger" if values[x] > values[y] else "smaller"
    return make_item(
        TASK, FLAVOUR, VARIANT, SPLIT, row, id=item_id(TASK, TEMPLATE_ID, x, y), stem=TEMPLATE.format(x=x, y=y),
        choices=list(CHOICES), answer=CHOICES.index(answer), template_id=TEMPLATE_ID, arguments={"x": x, "y": y},
        provenance={"generator": GENERATOR, "version": VERSION,
                    "x": _size_record(values[x], sizes[x]), "y": _size_record(values[y], sizes[y])},
    )


def _size_record(value: float, given: float | Size) -> dict:
    return {"size": value, "doq_line": given.line} if isinstance(given, Size) else {"size": value}


def _predictions(scores: pd.DataFrame, model: str, method: str) -> dict[str, str | None]:
    """row_id -> predicted word of the kept score rows of ``model``/``method``, None for skipped rows."""
    mine = scores[(scores["model"] == model) & (scores["method"] == method)]
    if mine.empty:
        raise ObjectsMatrixError(f"no score rows for model {model!r} with method {method!r}")
    repeated = mine["row_id"][mine["row_id"].duplicated()]
    if not repeated.empty:
        raise ObjectsMatrixError(f"{model}/{method}: more than one score row for {repeated.iloc[0]}")
    return {row_id: word if kept else None
            for row_id, word, kept in zip(mine["row_id"], mine["prediction"], mine["kept"].astype(bool))}


def _grid_pairs(grid: pd.DataFrame) -> dict[str, tuple[str, str]]:
    pairs: dict[str, tuple[str, str]] = {}
    seen: dict[tuple[str, str], str] = {}
    for row_id, arguments in zip(grid["row_id"], grid["arguments"]):
        args = json.loads(arguments)
        pair = (args.get("x"), args.get("y"))
        if not all(isinstance(obj, str) for obj in pair):
            raise ObjectsMatrixError(f"{row_id}: arguments {arguments} lack the objects x and y")
        if pair in seen:
            raise ObjectsMatrixError(f"{row_id}: the pair {pair} is already the item {seen[pair]}")
        seen[pair] = row_id
        pairs[row_id] = pair
    return pairs


def _check_matrix_row(path: Path, line: int, x: str, cells: dict[str, str]) -> None:
    for y, cell in cells.items():
        allowed = ("",) if x == y else ("", *CHOICES)
        if cell not in allowed:
            where = "on the diagonal" if x == y else f"at ({x}, {y})"
            raise ObjectsMatrixError(f"{path}, line {line}: {cell!r} {where}; expected one of {list(allowed)}")
