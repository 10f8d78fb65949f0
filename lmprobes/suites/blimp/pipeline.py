"""The BLiMP stages as file-to-file functions (what the rule scripts call)."""

from __future__ import annotations

import csv
import logging
from collections.abc import Collection
from pathlib import Path
from typing import NamedTuple

import pandas as pd

from lmprobes import __version__
from lmprobes.io import read_metadata, read_parquet, write_parquet, write_table
from lmprobes.suites.blimp.accuracy import overall, paradigm_accuracy, paradigm_tallies
from lmprobes.suites.blimp.dataset import SCHEMA, build_blimp, check_release_manifest
from lmprobes.suites.blimp.methods import METHODS
from lmprobes.suites.blimp.tables import read_published, read_published_paradigms, write_tables

log = logging.getLogger("lmprobes.blimp")
FIGURES = ("figure1", "figure2", "figure3", "figure4", "figure6")
# What the tables and figures read of a score file: each pair's decision, for Figure 2 also the pair
# and its token log-probs (reduced as each file is read); never the token ids. And of the dataset.
DECISION_COLUMNS = ["paradigm", "category", "model", "method", "kept", "correct"]
FIGURE2_SCORE_COLUMNS = ["row_id", "token_logprobs_good", "token_logprobs_bad"]
FIGURE2_PAIR_COLUMNS = ["row_id", "n_words_good"]


def read_release_manifest(path: Path) -> list[dict[str, str]]:
    """The paradigm files of the release: one ``uid``, ``sha256`` per line (a committed TSV), each uid
    once, at least one (``check_release_manifest``)."""
    with open(path, encoding="utf-8", newline="") as handle:
        reader = csv.DictReader(handle, delimiter="\t")
        numbered = [(reader.line_num, row) for row in reader]
    check_release_manifest(path, numbered)
    return [row for _, row in numbered]


def make_dataset(files: list[Path], out: Path, *, provenance: dict, name: str = "blimp") -> pd.DataFrame:
    """The pairs of the paradigm files (the release's, or the generator's: ``name="generated"``)."""
    df = build_blimp(files)
    quirks = df.attrs.get("quirks", {})
    log.info("BLiMP %s: %d pairs in %d paradigms; %s", name, len(df), df["paradigm"].nunique(), quirks)
    metadata = {"suite": "blimp", "dataset": name, "sources": provenance, "quirks": quirks,
                "generator": f"lmprobes {__version__}"}
    write_parquet(df, out, SCHEMA, metadata)
    return df


def make_generated_dataset(files: list[Path], lexicon: Path, out: Path, *, settings: dict) -> pd.DataFrame:
    """The generated paradigms' pairs, with the lexicon's sha256 and the generator's settings."""
    from lmprobes.sources import sha256_of

    provenance = {"lexicon": {"path": str(lexicon), "sha256": sha256_of(lexicon)}, "settings": settings}
    return make_dataset(files, out, provenance=provenance, name="generated")


def make_generated_table(release_scores: list[Path], generated_scores: list[Path], out_dir: Path) -> pd.DataFrame:
    """Each model's accuracy on the generated paradigms beside its accuracy on the same release paradigms."""
    from lmprobes.suites.blimp.tables import GENERATED_TITLE, generated_comparison, generated_wide

    def read(paths):  # each file's tallies: the comparison takes no more of the pairs
        return pd.concat([paradigm_tallies(read_parquet(p, DECISION_COLUMNS)) for p in paths], ignore_index=True)

    tidy = generated_comparison(read(release_scores), read(generated_scores))
    out_dir = Path(out_dir)
    write_table(tidy, out_dir / "generated.csv", out_dir / "generated.md", GENERATED_TITLE,
                markdown_frame=generated_wide(tidy))
    return tidy


def methods_for(family: str, settings: dict) -> list[str]:
    return list(settings["causal_methods"] if family == "causal" else settings["masked_methods"])


def score_model(dataset: Path, model_dir: Path, out: Path, *, slug: str, spec: dict, device: str, settings: dict,
                progress: bool = True) -> pd.DataFrame:
    """Load the model once and score every pair with each of its family's configured methods."""
    # Imported here so that the suite's dataset and table jobs start without torch (~2 s each).
    from lmprobes.models import load_lm
    from lmprobes.suites.blimp.scoring import SCORE_SCHEMA, score_pairs

    lm = load_lm(slug, spec, model_dir, device)
    pairs = read_parquet(dataset)
    methods = methods_for(lm.family, settings)
    shared: dict = {}  # a method and its _mean twin score the same tokens once
    scores = pd.concat([score_pairs(lm, pairs, method, progress=progress, cache=shared) for method in methods],
                       ignore_index=True)
    summary = overall(paradigm_accuracy(scores)).set_index("method")["accuracy"].round(4).to_dict()
    log.info("%s overall accuracy per method: %s", slug, summary)
    metadata = {**lm.describe(), "suite": "blimp", "dataset": read_metadata(dataset).get("dataset"), "methods": methods,
                "ties": {m: METHODS[m].tie for m in methods},
                "reductions": {m: METHODS[m].reduction for m in methods}, "generator": f"lmprobes {__version__}"}
    write_parquet(scores, out, SCORE_SCHEMA, metadata)
    return scores


class ScoreSummary(NamedTuple):
    """What the tables and figures take of score files: each system's ``accuracy.paradigm_tallies``
    and Figure 2's ``plots.pair_properties`` of its kept full-sentence pairs."""

    tallies: pd.DataFrame
    properties: pd.DataFrame


def summarise_score_file(path: Path, pairs: pd.DataFrame) -> ScoreSummary:
    """A score file reduced to its ``ScoreSummary`` as it is read: the job holds one file's pairs at a
    time. 8 files of the full release (1.9M score rows) peaked at 1.3 GB with all their pairs in one
    frame, 0.73 GB so (then with Figure 1 drawn as an image, since as a mesh)."""
    from lmprobes.suites.blimp import plots

    scores = plots.token_sums(read_parquet(path, [*DECISION_COLUMNS, *FIGURE2_SCORE_COLUMNS]))
    return ScoreSummary(paradigm_tallies(scores), plots.pair_properties(scores, pairs))


def summarise_score_files(paths: list[Path], pairs: pd.DataFrame) -> ScoreSummary:
    summaries = [summarise_score_file(path, pairs) for path in paths]
    return ScoreSummary(*(pd.concat(parts, ignore_index=True) for parts in zip(*summaries, strict=True)))


def make_tables(dataset: Path, score_paths: list[Path], published: Path, published_paradigms: Path,
                out_dir: Path, figures: dict[str, Path], *, stand_ins: Collection[str] = ()) -> None:
    """Tables 3 and 4 and Figures 1, 2, 3, 4 and 6 from the per-pair scores; ``stand_ins``: the tiny models
    and configured stand-ins, named in each figure that shows them."""
    # matplotlib (~0.4 s) loads only in the jobs that draw
    from lmprobes.suites.blimp import plots

    scores = summarise_score_files(score_paths, read_parquet(dataset, FIGURE2_PAIR_COLUMNS))
    paper_paradigms = read_published_paradigms(published_paradigms)
    write_tables(scores.tallies, read_published(published), paper_paradigms, out_dir)
    paradigms = plots.paradigm_systems(scores.tallies, paper_paradigms)
    plots.figure1(paradigms, figures["figure1"], stand_ins=stand_ins)
    plots.figure2(plots.figure2_bins(scores.properties), figures["figure2"], stand_ins=stand_ins)
    plots.figure3(paradigms, figures["figure3"], stand_ins=stand_ins)
    plots.figure4(paradigms, figures["figure4"], stand_ins=stand_ins)
    plots.figure6(plots.figure6_data(scores.tallies), figures["figure6"], stand_ins=stand_ins)
