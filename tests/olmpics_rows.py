"""Made-up oLMpics items shared by the baseline and MC-QA tests."""

from __future__ import annotations

import random

import pandas as pd

from lmprobes.suites.olmpics.schema import SCHEMA, make_item


def related_word_rows(n_train: int, n_dev: int, words: list[str], *, seed: int = 0,
                      located: bool = False) -> pd.DataFrame:
    """MC-QA rows whose answer is the choice the question names ("what is related to dog"), three
    choices drawn from ``words``; ``located`` adds a second clause with a random word."""
    rng = random.Random(seed)
    rows = []
    for split, count in (("train", n_train), ("dev", n_dev)):
        for row in range(1, count + 1):
            answer, *others = rng.sample(words, 3)
            choices = [answer, *others]
            rng.shuffle(choices)
            stem = f"what is related to {answer}"
            if located:
                stem += f" and is usually located at {rng.choice(words)}"
            rows.append(make_item("property_conjunction", "release", "standard", split, row, id=f"{split}{row}",
                                  stem=stem, choices=choices, answer=choices.index(answer)))
    return pd.DataFrame.from_records(rows, columns=SCHEMA.names)
