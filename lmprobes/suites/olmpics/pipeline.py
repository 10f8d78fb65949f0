"""The oLMpics stages as file-to-file functions (what the rule scripts call)."""

from __future__ import annotations

import csv
import logging
from pathlib import Path

import pandas as pd

from lmprobes import __version__
from lmprobes.io import read_parquet, write_parquet
from lmprobes.models import load_lm
from lmprobes.suites.olmpics.age import figure3_sets
from lmprobes.suites.olmpics.plots import age_grid, plot_figure3
from lmprobes.suites.olmpics.release import build_release
from lmprobes.suites.olmpics.schema import SCHEMA, TASKS
from lmprobes.suites.olmpics.tables import read_published, write_zero_shot, zero_shot_table
from lmprobes.suites.olmpics.zeroshot import SCORE_SCHEMA, score_zero_shot

log = logging.getLogger("lmprobes.olmpics")


def read_release_manifest(path: Path) -> list[dict[str, str]]:
    """The release files: task, split, file name and sha256 per line (a committed TSV)."""
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    for line, row in enumerate(rows, start=2):
        if row.get("task") not in TASKS or len(row.get("sha256") or "") != 64 or not row.get("file"):
            raise ValueError(f"{path}:{line}: expected a known task, a split, a file name and a 64-hex sha256, got {row}")
    return rows


def make_release(files: list[Path], manifest: list[dict[str, str]], out: Path, *, provenance: dict) -> pd.DataFrame:
    df = build_release({(row["task"], row["split"]): path for row, path in zip(manifest, files, strict=True)})
    counts = df.groupby(["task", "split"], sort=False).size()
    log.info("oLMpics release: %s", {f"{t}/{s}": int(n) for (t, s), n in counts.items()})
    write_parquet(df, out, SCHEMA, {"suite": "olmpics", "dataset": "release", "sources": provenance,
                                    "generator": f"lmprobes {__version__}"})
    return df


def make_figure3(out: Path) -> pd.DataFrame:
    """The Figure 3 perturbation sets (deterministic: every ordered pair of the value grids)."""
    df = pd.DataFrame.from_records(figure3_sets(), columns=SCHEMA.names)
    write_parquet(df, out, SCHEMA, {"suite": "olmpics", "dataset": "figure3", "generator": f"lmprobes {__version__}"})
    return df


def zero_shot_items(release: pd.DataFrame) -> pd.DataFrame:
    """The dev items of the MC-MLM tasks (the paper reports zero-shot on dev)."""
    mc_mlm = [name for name, task in TASKS.items() if task.setup == "mc_mlm"]
    return release[(release["split"] == "dev") & release["task"].isin(mc_mlm)].reset_index(drop=True)


def methods_for(family: str, settings: dict) -> list[str]:
    return list(settings["masked_methods"] if family == "masked" else ["candidates"])


def score_model(release: Path, figure3: Path, model_dir: Path, outs: dict[str, Path], *, slug: str, spec: dict,
                device: str, settings: dict, progress: bool = True) -> None:
    """Load the model once; score the dev items and the Figure 3 sets with each of its methods."""
    lm = load_lm(slug, spec, model_dir, device)
    datasets = {"zero_shot": zero_shot_items(read_parquet(release)), "figure3": read_parquet(figure3)}
    for name, items in datasets.items():
        scores = pd.concat([score_zero_shot(lm, items, method, progress=progress)
                            for method in methods_for(lm.family, settings)], ignore_index=True)
        metadata = {**lm.describe(), "suite": "olmpics", "dataset": name, "generator": f"lmprobes {__version__}"}
        write_parquet(scores, outs[name], SCORE_SCHEMA, metadata)


def make_tables(figure3: Path, zero_shot: list[Path], figure3_scores: list[Path], published: Path,
                out_dir: Path, figures: list[Path], models: list[str]) -> None:
    scores = pd.concat([read_parquet(p) for p in zero_shot], ignore_index=True)
    tidy = zero_shot_table(scores, read_published(published))
    out_dir = Path(out_dir)
    write_zero_shot(tidy, out_dir / "zero_shot.csv", out_dir / "zero_shot.md")
    grid = age_grid(read_parquet(figure3), pd.concat([read_parquet(p) for p in figure3_scores], ignore_index=True))
    for model, out in zip(models, figures, strict=True):
        method = grid.loc[grid["model"] == model, "method"].iloc[0] if (grid["model"] == model).any() else "mc_mlm"
        plot_figure3(grid, out, model=model, method=method)
