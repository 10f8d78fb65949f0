"""conceptnet_gen: LAMA facts from ConceptNet surface texts (span matching, merging, sampling, errors)."""

from __future__ import annotations

import random
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lmprobes.suites.lama import conceptnet_gen
from lmprobes.suites.lama.conceptnet import EDGE_SCHEMA
from lmprobes.suites.lama.conceptnet_gen import (
    LAMA_CONCEPTNET_RELATIONS,
    ConceptNetGenError,
    build_conceptnet_gen,
    masked_sentence,
    object_span_index,
)
from lmprobes.suites.lama.release import SCHEMA, ReleaseError, valid_objects

NAMESPACE = uuid.uuid5(uuid.NAMESPACE_URL, "https://github.com/commonsense/conceptnet5")
VOCAB = ["bark", "desk", "dog", "paper", "run"]  # not swim, drawer, pet


def edge(row: int, relation: str, start: str, end: str, surface: str | None, *, start_sense: str = "") -> dict:
    """One EDGE_SCHEMA row as the CSV streamer writes it (``start``/``end``: the URI's term)."""
    return {
        "relation": relation,
        "start_uri": f"/c/en/{start}" + (f"/{start_sense}" if start_sense else ""), "end_uri": f"/c/en/{end}",
        "start_term": start.replace("_", " "), "end_term": end.replace("_", " "),
        "start_pos": start_sense.split("/")[0] or None, "end_pos": None, "weight": 1.0,
        "dataset": "/d/conceptnet/4/en", "surface_text": surface, "sources": "[]", "row": row,
    }


EDGES = [
    edge(1, "CapableOf", "dog", "bark", "[[a dog]] can [[bark]]", start_sense="n"),
    edge(2, "CapableOf", "dog", "bark", "[[A dog]] can [[bark]]"),  # same fact, second evidence
    edge(3, "CapableOf", "dog", "swim", "[[a dog]] can [[swim]]"),  # swim not in the common vocab
    edge(4, "AtLocation", "paper", "desk", "*Something you find on [[a desk]] is [[paper]]"),  # object first
    edge(5, "AtLocation", "fork", "kitchen_drawer", "You are likely to find [[a fork]] in [[a kitchen drawer]]"),
    edge(6, "IsA", "dog", "dog", "[[a dog]] is a [[dog]]"),  # subject = object: cannot tell the spans apart
    edge(7, "IsA", "cat", "animal", None),
    edge(8, "IsA", "cat", "animal", "[[cat]] is an animal"),  # one span only
    edge(9, "RelatedTo", "cat", "pet", "[[cat]] is related to [[pet]]"),  # not a LAMA relation
    edge(10, "Desires", "dog", "run", "[[Dogs]] want [[to run]]"),  # matched on the object alone; subject: the term
    {**edge(11, "CapableOf", "dog", "run", "[[dog]] is a type of [[run]]"), "dataset": "/d/wordnet/3.1"},  # not OMCS
    edge(12, "CapableOf", "dog", "bark", "[[a dog]] can [[bark!]]"),  # the mask would hide "bark!", not the object
]


def write_edges(path: Path, edges: list[dict], **kwargs) -> Path:
    pq.write_table(pa.Table.from_pylist(edges, schema=EDGE_SCHEMA), path, **kwargs)
    return path


@pytest.fixture
def vocab(tmp_path: Path) -> Path:
    path = tmp_path / "common_vocab.txt"
    path.write_text("\n".join(VOCAB) + "\n", encoding="utf-8")
    return path


def rows(df) -> list[dict]:
    """The dataset as the Parquet writer stores it (checks it fits SCHEMA too)."""
    return pa.Table.from_pandas(df, schema=SCHEMA, preserve_index=False).to_pylist()


def expected_row(relation: str, sub: str, obj: str, sub_uri: str, obj_uri: str, evidences: list[str],
                 valid: list[str]) -> dict:
    return {
        "row_id": f"conceptnet_gen:{relation}:1", "corpus": "conceptnet_gen", "relation": relation,
        "relation_label": relation, "relation_type": None, "template": None, "sub_label": sub,
        "obj_label": obj, "sub_uri": sub_uri, "obj_uri": obj_uri,
        "uuid": str(uuid.uuid5(NAMESPACE, f"conceptnet_gen/{relation}/{sub}/{obj}")),
        "query": evidences[0], "masked_sentences": [evidences[0]], "sub_aliases": None, "obj_aliases": None,
        "valid_objects": valid, "evidences": evidences, "n_words": len(evidences[0].split()),
        "judgments_yes": None, "judgments_no": None, "judgment_rejected": False, "too_long": False,
        "in_common_vocab": True, "duplicate": False, "source_file": "edges.parquet", "source_line": 1,
    }


# As the release writes its ConceptNet sentences: no "*" frame marker, a capital, "[MASK]." (the two
# edges of dog/bark give one sentence).
EXPECTED = [
    expected_row("AtLocation", "paper", "desk", "/c/en/paper", "/c/en/desk",
                 ["Something you find on a [MASK] is paper."], ["desk"]),
    expected_row("CapableOf", "dog", "bark", "/c/en/dog", "/c/en/bark", ["A dog can [MASK]."], ["bark", "swim"]),
    expected_row("Desires", "dog", "run", "/c/en/dog", "/c/en/run", ["Dogs want to [MASK]."], ["run"]),
]


def test_exact_rows_and_counts(tmp_path: Path, vocab: Path) -> None:
    stats: dict = {}
    df = build_conceptnet_gen(write_edges(tmp_path / "edges.parquet", EDGES), vocab, seed=0, stats=stats)
    assert rows(df) == EXPECTED
    assert {key: value for key, value in stats.items() if not isinstance(value, dict)} == {
        "edges_read": 12, "other_relation": 1, "not_omcs": 1, "no_surface_text": 1, "bad_surface_text": 1,
        "unresolved_object_span": 1, "object_span_not_term": 1, "multiword_object_facts": 1, "facts": 4, "not_in_common_vocab_facts": 1,
    }
    expected_candidates = dict.fromkeys(LAMA_CONCEPTNET_RELATIONS, 0) | {"AtLocation": 1, "CapableOf": 1, "Desires": 1}
    assert stats["candidates"] == stats["sampled"] == expected_candidates


def test_facts_are_conceptnet_triples_labelled_with_terms_not_with_the_surface_texts_capitals(tmp_path: Path) -> None:
    """The paper's facts are ConceptNet triples with term answers (Table 3: fly, finite): edges of one
    concept written with different capitals are one subject, each object the other's valid object, and
    a capitalised bracket object is checked against the common vocabulary as its term."""
    vocab = tmp_path / "common_vocab.txt"
    vocab.write_text("fly\nsing\nfinite\n", encoding="utf-8")  # lowercase, as in LAMA's common_vocab_cased.txt
    edges = write_edges(tmp_path / "edges.parquet", [
        edge(1, "CapableOf", "birds", "fly", "[[Birds]] can [[fly]]"),
        edge(2, "CapableOf", "birds", "sing", "[[birds]] can [[sing]]"),
        edge(3, "HasProperty", "time", "finite", "[[Time]] is [[Finite]]"),
    ])
    stats: dict = {}
    df = build_conceptnet_gen(edges, vocab, seed=0, stats=stats)
    got = [(row["relation"], row["sub_label"], row["obj_label"], row["query"], row["valid_objects"], row["uuid"])
           for row in rows(df)]
    assert got == [
        ("CapableOf", "birds", "fly", "Birds can [MASK].", ["fly", "sing"],
         str(uuid.uuid5(NAMESPACE, "conceptnet_gen/CapableOf/birds/fly"))),
        ("CapableOf", "birds", "sing", "Birds can [MASK].", ["fly", "sing"],
         str(uuid.uuid5(NAMESPACE, "conceptnet_gen/CapableOf/birds/sing"))),
        ("HasProperty", "time", "finite", "Time is [MASK].", ["finite"],
         str(uuid.uuid5(NAMESPACE, "conceptnet_gen/HasProperty/time/finite"))),
    ]
    assert stats["facts"] == 3 and stats["not_in_common_vocab_facts"] == 0
    # What the filtered rank removes above the gold: the other valid objects of (relation, subject).
    assert valid_objects(df) == {("CapableOf", "birds"): {"fly", "sing"}, ("HasProperty", "time"): {"finite"}}


def test_sixteen_lama_relations() -> None:
    assert len(set(LAMA_CONCEPTNET_RELATIONS)) == 16
    # Table 3 of the paper shows these ten.
    assert {"AtLocation", "CapableOf", "CausesDesire", "Causes", "HasA", "HasPrerequisite", "HasProperty",
            "MotivatedByGoal", "ReceivesAction", "UsedFor"} <= set(LAMA_CONCEPTNET_RELATIONS)


@pytest.mark.parametrize(
    ("surface", "start", "end", "index", "masked"),
    [
        ("[[a dog]] can [[bark]]", "dog", "bark", 1, "a dog can [MASK]"),
        ("*Something you find on [[a test]] is [[hard questions]]", "hard questions", "test", 0,
         "*Something you find on a [MASK] is hard questions"),
        # ConceptNet's terms drop a/an/the anywhere: certainly_thing
        ("[[Education in the United States]] is [[certainly a thing]]", "education in united states",
         "certainly thing", 1, "Education in the United States is [MASK]"),
        # only the start term matches: the other span is the object
        ("You can use [[a balalaika]] to [[make music]]", "balalaika", "music making", 1,
         "You can use a balalaika to [MASK]"),
        ("[[The Sun]] is [[hot]].", "sun", "hot", 1, "The Sun is [MASK]."),
        ("[[hot]] is what [[the sun]] is", "sun", "hot", 0, "[MASK] is what the sun is"),
        # Only ConceptNet's normalisation (no "an") tells the spans apart: the object comes first.
        ("*Something you find in [[an office]] is [[an employee]]", "employee", "office", 0,
         "*Something you find in an [MASK] is an employee"),
    ],
)
def test_object_span_and_masked_sentence(surface: str, start: str, end: str, index: int, masked: str) -> None:
    spans = conceptnet_gen.SPAN.findall(surface)
    assert object_span_index(spans, start, end) == index
    assert masked_sentence(surface, index) == masked


@pytest.mark.parametrize(("spans", "start", "end"), [(["dog", "dog"], "dog", "dog"), (["cat", "mouse"], "dog", "bone")])
def test_undecidable_spans(spans: list[str], start: str, end: str) -> None:
    assert object_span_index(spans, start, end) is None


def test_batches_and_row_groups_do_not_change_the_rows(tmp_path: Path, vocab: Path, monkeypatch) -> None:
    whole = build_conceptnet_gen(write_edges(tmp_path / "edges.parquet", EDGES), vocab, seed=0)
    monkeypatch.setattr(conceptnet_gen, "BATCH_ROWS", 3)
    split = tmp_path / "split" / "edges.parquet"
    split.parent.mkdir()
    assert rows(build_conceptnet_gen(write_edges(split, EDGES, row_group_size=2), vocab, seed=0)) == rows(whole)


# --- sampling ------------------------------------------------------------------------------

SUBJECTS = [f"thing{i:02d}" for i in range(30)]
MANY = [edge(i + 1, "CapableOf", subject, "bark", f"[[a {subject}]] can [[bark]]")
        for i, subject in enumerate(SUBJECTS)]
FEW_ISA = [edge(100 + i, "IsA", f"cat{i}", "paper", f"[[cat{i}]] is a kind of [[paper]]") for i in range(5)]


def sampled(tmp_path: Path, vocab: Path, edges: list[dict], seed: int, name: str = "edges.parquet", **kwargs):
    return build_conceptnet_gen(write_edges(tmp_path / name, edges), vocab, seed=seed, max_per_relation=10, **kwargs)


def capable_subjects(df) -> list[str]:
    return df.loc[df["relation"] == "CapableOf", "sub_label"].tolist()


def test_seeded_sampling(tmp_path: Path, vocab: Path) -> None:
    stats: dict = {}
    first = sampled(tmp_path, vocab, MANY + FEW_ISA, seed=1, stats=stats)
    again = sampled(tmp_path, vocab, MANY + FEW_ISA, seed=1, name="again.parquet")
    other = sampled(tmp_path, vocab, MANY + FEW_ISA, seed=2)
    assert first.drop(columns="source_file").equals(again.drop(columns="source_file"))
    assert stats["candidates"]["CapableOf"] == 30 and stats["sampled"]["CapableOf"] == 10
    assert stats["candidates"]["IsA"] == stats["sampled"]["IsA"] == 5
    chosen = capable_subjects(first)
    assert chosen == sorted(random.Random("1:CapableOf").sample(SUBJECTS, 10))
    assert capable_subjects(other) != chosen and len(capable_subjects(other)) == 10
    assert first.loc[first["relation"] == "CapableOf", "source_line"].tolist() == list(range(1, 11))
    assert first["row_id"].is_unique
    # Under the cap everything is kept; another relation's facts do not move the sample.
    assert sorted(first.loc[first["relation"] == "IsA", "sub_label"]) == [f"cat{i}" for i in range(5)]
    assert capable_subjects(sampled(tmp_path, vocab, MANY, seed=1, name="alone.parquet")) == chosen


def test_edge_order_does_not_change_the_sample(tmp_path: Path, vocab: Path) -> None:
    forward = sampled(tmp_path, vocab, MANY, seed=3)
    backward = sampled(tmp_path, vocab, MANY[::-1], seed=3, name="backward.parquet")
    assert rows(forward.drop(columns="source_file").assign(source_file="x")) == \
        rows(backward.drop(columns="source_file").assign(source_file="x"))


# --- bad input -----------------------------------------------------------------------------


def test_missing_columns_name_the_file(tmp_path: Path, vocab: Path) -> None:
    table = pa.Table.from_pylist(EDGES, schema=EDGE_SCHEMA).drop_columns(["surface_text", "end_term"])
    path = tmp_path / "thin_edges.parquet"
    pq.write_table(table, path)
    with pytest.raises(ConceptNetGenError, match=r"thin_edges\.parquet: .*\['end_term', 'surface_text'\]"):
        build_conceptnet_gen(path, vocab, seed=0)


def test_not_parquet_names_the_file(tmp_path: Path, vocab: Path) -> None:
    path = tmp_path / "edges.csv"
    path.write_text("relation\tstart\n", encoding="utf-8")
    with pytest.raises(ConceptNetGenError, match=r"edges\.csv: not a readable Parquet"):
        build_conceptnet_gen(path, vocab, seed=0)


def test_no_usable_fact_names_the_file(tmp_path: Path, vocab: Path) -> None:
    path = write_edges(tmp_path / "useless_edges.parquet", EDGES[4:9])
    with pytest.raises(ReleaseError, match=r"useless_edges\.parquet: no conceptnet_gen facts"):
        build_conceptnet_gen(path, vocab, seed=0)


def test_cap_must_be_positive(tmp_path: Path, vocab: Path) -> None:
    with pytest.raises(ValueError, match="max_per_relation"):
        build_conceptnet_gen(write_edges(tmp_path / "edges.parquet", EDGES), vocab, seed=0, max_per_relation=0)


def test_sentence_end_closes_unpunctuated_surface_texts(tmp_path: Path, vocab: Path) -> None:
    edges = write_edges(tmp_path / "edges.parquet", [
        edge(1, "CapableOf", "dog", "bark", "[[a dog]] can [[bark]]"),
        edge(2, "CapableOf", "dog", "run", "[[a dog]] can [[run]]."),  # already punctuated: left alone
        edge(3, "Desires", "dog", "run", "Does [[a dog]] want to [[run]]?"),
    ])
    default = build_conceptnet_gen(edges, vocab, seed=0)
    assert sorted(default["query"]) == ["A dog can [MASK].", "A dog can [MASK].", "Does a dog want to [MASK]?"]
    spaced = build_conceptnet_gen(edges, vocab, seed=0, sentence_end=" .")
    assert sorted(spaced["query"]) == ["A dog can [MASK] .", "A dog can [MASK].", "Does a dog want to [MASK]?"]
    verbatim = build_conceptnet_gen(edges, vocab, seed=0, sentence_end="")
    assert sorted(verbatim["query"]) == ["A dog can [MASK]", "A dog can [MASK].", "Does a dog want to [MASK]?"]


def test_a_fact_of_several_sentences_is_queried_through_one_drawn_at_random_per_seed(tmp_path: Path,
                                                                                     vocab: Path) -> None:
    """The paper: "If there are several sentences for a triple, we pick one at random"."""
    edges = write_edges(tmp_path / "edges.parquet", [
        edge(1, "CapableOf", "dog", "bark", "[[a dog]] can [[bark]]"),
        edge(2, "CapableOf", "dog", "bark", "[[the dog]] may [[bark]] at night"),
    ])
    queries = {seed: build_conceptnet_gen(edges, vocab, seed=seed)["query"].iloc[0] for seed in range(12)}
    assert set(queries.values()) == {"A dog can [MASK].", "The dog may [MASK] at night."}
    assert queries == {seed: build_conceptnet_gen(edges, vocab, seed=seed)["query"].iloc[0] for seed in range(12)}
    frame = build_conceptnet_gen(edges, vocab, seed=0)
    assert list(frame["evidences"].iloc[0]) == ["A dog can [MASK].", "The dog may [MASK] at night."]
    # Seeded per fact, not by the seed alone: each fact of a relation draws on its own.
    for seed, query in queries.items():
        assert query == random.Random(f"{seed}:CapableOf:dog:bark").choice(sorted(set(queries.values())))


def test_a_surface_text_without_exactly_two_nonblank_spans_is_counted_bad(tmp_path: Path, vocab: Path) -> None:
    edges = write_edges(tmp_path / "edges.parquet", [
        edge(1, "CapableOf", "dog", "bark", "[[a dog]] can [[bark]] at [[night]]"),
        edge(2, "CapableOf", "dog", "bark", "[[ ]] can [[bark]]"),
        edge(3, "CapableOf", "dog", "run", "[[a dog]] can [[run]]"),
    ])
    stats: dict = {}
    df = build_conceptnet_gen(edges, vocab, seed=0, stats=stats)
    assert stats["bad_surface_text"] == 2 and list(df["query"]) == ["A dog can [MASK]."]


def test_relations_are_built_in_sorted_order_whatever_the_order_asked(tmp_path: Path, vocab: Path) -> None:
    df = build_conceptnet_gen(write_edges(tmp_path / "edges.parquet", EDGES), vocab, seed=0,
                              relations=("Desires", "CapableOf", "AtLocation"))
    assert list(df["relation"]) == ["AtLocation", "CapableOf", "Desires"]
