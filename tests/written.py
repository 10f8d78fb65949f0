"""What a tidy table's CSV says, as text: the cells a reader of the file sees."""

import io

import pandas as pd


def written_cells(frame: pd.DataFrame, columns) -> list[str]:
    """The non-empty cells of ``columns`` in ``frame`` written as CSV, read back as text."""
    text = pd.read_csv(io.StringIO(frame.to_csv(index=False)), dtype=str, keep_default_na=False)
    return [cell for cell in text[list(columns)].to_numpy().ravel().tolist() if cell]
