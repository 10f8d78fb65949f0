"""oLMpics zero-shot tables on hand-made score frames, and the published numbers file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from lmprobes.suites.olmpics.tables import (
    ZERO_SHOT_COUNTS,
    ZERO_SHOT_TABLES,
    read_published,
    write_zero_shot,
    zero_shot_accuracy,
    zero_shot_table,
    zero_shot_wide,
)
from written import written_cells

PUBLISHED = Path(__file__).resolve().parents[1] / "resources" / "olmpics" / "published.csv"


def score(task, model, method, correct, *, kept=True, split="dev", variant="standard", multi=0, tie=False,
          flavour="release"):
    return {"task": task, "flavour": flavour, "variant": variant,
            "split": split, "model": model, "method": method, "kept": kept, "correct": correct if kept else None,
            "n_multi_piece": multi, "tie": tie if kept else None}


@pytest.fixture
def scores() -> pd.DataFrame:
    rows = [score("age_comparison", "roberta-large", "mc_mlm", correct) for correct in (True, True, True, False)]
    rows.append(score("age_comparison", "roberta-large", "mc_mlm", True, kept=False))  # skipped: not counted
    rows.append(score("age_comparison", "roberta-large", "mc_mlm", False, split="train"))  # train: ignored
    rows.append(score("age_comparison", "roberta-large", "mc_mlm", False, variant="figure3a_age"))  # ignored
    rows += [score("multihop_composition", "gpt2", "candidates", correct, multi=2, tie=correct)  # 2 choices each
             for correct in (True, False, False)]
    rows.append(score("age_comparison", "roberta-large", "mc_mlm", False, flavour="generated"))  # its own system
    rows.append(score("property_conjunction", "roberta-large", "mc_mlm", True))  # MC-QA: no zero-shot table
    return pd.DataFrame(rows).assign(row_id=[f"r{i}" for i in range(len(rows))])


def test_accuracy_is_the_mean_over_kept_dev_items(scores) -> None:
    ours = zero_shot_accuracy(scores)
    assert ours[["task", "system"]].values.tolist() == [["age_comparison", "roberta-large"],
                                                        ["age_comparison", "roberta-large [generated]"],
                                                        ["multihop_composition", "gpt2 (candidates)"]]
    assert ours.iloc[1]["accuracy"] == 0.0 and ours.iloc[1]["n_items"] == 1
    age = ours.iloc[0]
    assert age["accuracy"] == pytest.approx(75.0) and (age["n_items"], age["n_kept"]) == (5, 4)
    assert age["table"] == "table2" and age["chance"] == pytest.approx(50.0)
    assert (age["n_multi_piece"], age["n_ties"]) == (0, 0), "the skipped item counts in neither"
    multihop = ours.iloc[2]
    assert multihop["accuracy"] == pytest.approx(100 / 3) and multihop["chance"] == pytest.approx(100 / 3)
    assert (multihop["n_multi_piece"], multihop["n_ties"]) == (3, 1), "items with a multi-piece choice, not choices"


def test_published_numbers_are_the_papers() -> None:
    published = read_published(PUBLISHED)
    published = published[published["column"] == "zero_shot"]
    paper = published[published["source"] == "paper"].set_index(["task", "paper_label"])["value"]
    assert len(paper) == 36 and paper.index.is_unique
    assert [paper["age_comparison", m] for m in ("RoBERTa-L", "BERT-WWM", "BERT-L", "BERT-B", "RoBERTa-B", "Baseline")] \
        == [98, 70, 50, 49, 68, 49]
    assert paper["taxonomy_conjunction", "BERT-L"] == 53 and paper["multihop_composition", "Baseline"] == 34
    hf = published[published["source"] == "hf_reproduction"].set_index("task")["value"]
    assert hf.to_dict() == {"age_comparison": 98.6, "objects_comparison": 87.4, "always_never": 13.6,
                            "antonym_negation": 74.4, "taxonomy_conjunction": 45.4, "multihop_composition": 28.0}
    assert set(published["table"]) == {table for table, _ in ZERO_SHOT_TABLES.values()}


def test_table_puts_ours_first_then_the_paper_per_task(scores, tmp_path) -> None:
    tidy = zero_shot_table(scores, read_published(PUBLISHED))
    age = tidy[tidy["task"] == "age_comparison"]
    assert age["source"].tolist() == ["reproduction"] * 2 + ["paper"] * 6 + ["hf_reproduction"]
    counts = written_cells(tidy, ZERO_SHOT_COUNTS)
    assert counts and all(count.isdigit() for count in counts), "counts written as integers"
    assert tidy["task"].drop_duplicates().tolist() == list(ZERO_SHOT_TABLES)
    wide = zero_shot_wide(tidy)
    # ours by model, whatever the tasks they score; a model's generated flavour right after its release one
    assert wide["System"].tolist()[:4] == ["gpt2 (candidates)", "roberta-large", "roberta-large [generated]",
                                           "RoBERTa-L (paper)"]
    assert wide["System"].tolist()[-1] == "RoBERTa-L (HF)"
    line = wide.set_index("System")
    assert line.loc["roberta-large", "Age (T2)"] == pytest.approx(75.0)
    assert np.isnan(line.loc["roberta-large", "Multi-hop (T11)"])
    assert line.loc["RoBERTa-L (paper)", "Objects (T3)"] == 84 and line.loc["RoBERTa-L (HF)", "Objects (T3)"] == 87.4
    write_zero_shot(tidy, tmp_path / "zero_shot.csv", tmp_path / "zero_shot.md")
    assert pd.read_csv(tmp_path / "zero_shot.csv")["accuracy"].tolist() == pytest.approx(tidy["accuracy"].tolist(),
                                                                                         nan_ok=True)
    markdown = (tmp_path / "zero_shot.md").read_text()
    assert "| roberta-large | 75.0 |" in markdown and "| BERT-WWM (paper) | 70.0 | 55.0 | 10.0 |" in markdown
    assert "[generated]: the task's dev items generated from sources" in markdown


def test_a_models_generated_flavour_follows_its_release_one(scores) -> None:
    """Not after every model's release line: with a second model scored on the age items, the old order
    put it between roberta-large and roberta-large [generated]."""
    more = pd.concat([scores, pd.DataFrame([score("age_comparison", "tiny-bert", "mc_mlm", True)])], ignore_index=True)
    tidy = zero_shot_table(more.assign(row_id=[f"r{i}" for i in range(len(more))]), read_published(PUBLISHED))
    age = tidy[(tidy["task"] == "age_comparison") & (tidy["source"] == "reproduction")]
    assert age["system"].tolist() == ["roberta-large", "roberta-large [generated]", "tiny-bert"]
    assert zero_shot_wide(tidy)["System"].tolist()[:4] == ["gpt2 (candidates)", "roberta-large",
                                                          "roberta-large [generated]", "tiny-bert"]


def test_the_note_names_generated_items_only_when_there_are_some(scores, tmp_path) -> None:
    tidy = zero_shot_table(scores[scores["flavour"] == "release"], read_published(PUBLISHED))
    write_zero_shot(tidy, tmp_path / "zero_shot.csv", tmp_path / "zero_shot.md")
    assert "[generated]" not in (tmp_path / "zero_shot.md").read_text()


def test_a_model_without_grid_scores_is_named(tmp_path) -> None:
    from lmprobes.suites.olmpics.pipeline import grid_scores_by_model

    path = tmp_path / "grid_bert.parquet"
    pd.DataFrame({"model": ["bert"], "score": [0.5]}).to_parquet(path)
    bert, = grid_scores_by_model([path], ["bert"])
    assert bert["model"].tolist() == ["bert"]
    with pytest.raises(ValueError, match=r"no oLMpics grid scores for model 'gpt2' in .*grid_bert\.parquet"):
        list(grid_scores_by_model([path], ["bert", "gpt2"]))


def test_the_baseline_is_named_as_in_the_learning_curves_table(scores) -> None:
    """published.csv spells the baseline's zero-shot rows ``mlm-baseline`` (paper label "Baseline"): the old
    zero_shot.csv kept that, so joining it with learning_curves.csv on ``model`` or ``system`` missed it."""
    from lmprobes.suites.olmpics.learning_tables import published_learning_rows

    published = read_published(PUBLISHED)
    zero = zero_shot_table(scores, published)
    curves = published_learning_rows(published)
    keys = ["task", "source", "model", "system"]
    joined = zero.merge(curves[[*keys, "mlp_ws"]], on=keys)
    baseline = joined[joined["model"] == "mlm_baseline"].set_index("task")
    assert baseline.loc["age_comparison", ["system", "accuracy", "mlp_ws"]].tolist() == ["MLM-Baseline (paper)", 49, 58]
    assert set(baseline.index) == set(zero.loc[zero["source"] == "paper", "task"])
    assert "mlm-baseline" not in set(zero["model"])
