"""LAMA release parsing on a hand-written fixture in the release's real format."""

import json
from pathlib import Path

import pytest

from lmprobes.suites.lama import release as R

RELATIONS = [
    {"relation": "P19", "template": "[X] was born in [Y] .", "label": "place of birth", "type": "N-1"},
    {"relation": "P36", "template": "The capital of [X] is [Y] .", "label": "capital", "type": "1-1"},
    {"relation": "P166", "template": "[X] was awarded the [Y] .", "label": "award received", "type": "N-M"},
]
COMMON_VOCAB = ["Paris", "London", "France", "1941", "Rome", "fly", "linebacker", "Alexandra"]


def _jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def trex(uuid, sub, obj, pid="P19"):
    return {"uuid": uuid, "obj_uri": "Q90", "obj_label": obj, "sub_uri": "Q1", "sub_label": sub, "predicate_id": pid,
            "evidences": [{"sub_surface": sub, "obj_surface": obj, "masked_sentence": f"{sub} was born in [MASK]."}]}


def google(sub, obj, yes, no):
    judgments = [{"rater": f"r{i}", "judgment": "yes"} for i in range(yes)] + [{"rater": f"s{i}", "judgment": "no"} for i in range(no)]
    return {"pred": "/people/person/place_of_birth", "sub": "/m/0x", "obj": "/m/0y", "evidences": [], "judgments": judgments,
            "sub_w": None, "sub_label": sub, "sub_aliases": [], "obj_w": None, "obj_label": obj, "obj_aliases": [],
            "uuid": f"g-{sub}", "masked_sentences": [f"{sub} was born in [MASK] ."]}


@pytest.fixture
def release(tmp_path):
    data = tmp_path / "data"
    _jsonl(data / "relations.jsonl", RELATIONS)
    _jsonl(data / "TREx" / "P19.jsonl", [
        trex("t1", "Allan Peiper", "Alexandra"),
        trex("t2", "Ann Smith", "Paris"),
        trex("t3", "Ann Smith", "Paris"),            # duplicate (subject, object)
        trex("t4", "Bob Jones", "Saint-Denis"),      # object outside the common vocab
    ])
    _jsonl(data / "TREx" / "P36.jsonl", [trex("t5", "France", "Paris", "P36")])
    _jsonl(data / "Google_RE" / "place_of_birth_test.jsonl", [google("Peter Martin", "London", 1, 4), google("Mary Lee", "Rome", 3, 1)])
    _jsonl(data / "Google_RE" / "date_of_birth_test.jsonl", [google("Peter Martin", "1941", 2, 0)])
    _jsonl(data / "Google_RE" / "place_of_death_test.jsonl", [google("Mary Lee", "Paris", 2, 2)])
    long_sentence = " ".join(["word"] * 100) + " birds can [MASK] ."
    _jsonl(data / "ConceptNet" / "test.jsonl", [
        {"sub": "bird", "obj": "fly", "pred": "CapableOf", "obj_label": "fly", "masked_sentences": ["A bird can [MASK] ."], "uuid": "c1"},
        {"sub": "bird", "obj": "fly", "pred": "CapableOf", "obj_label": "fly", "masked_sentences": [long_sentence], "uuid": "c2"},
    ])
    _jsonl(data / "Squad" / "test.jsonl", [
        {"masked_sentences": ["Von Miller plays in [MASK] position for the Denver Broncos."], "obj_label": "linebacker", "id": "56bf_0", "sub_label": "Squad"},
        {"masked_sentences": ["Von Miller plays in [MASK] position for the Denver Broncos."], "obj_label": "linebacker", "id": "56bf_1", "sub_label": "Squad"},
    ])
    (data / "common_vocab_cased.txt").write_text("\n".join(COMMON_VOCAB) + "\n", encoding="utf-8")
    return data


def build(corpus, data):
    return R.build_corpus(corpus, data, data / "relations.jsonl", data / "common_vocab_cased.txt")


def test_trex_queries_use_the_template_with_its_space_before_the_period(release):
    df = build("trex", release).set_index("uuid")
    assert df.loc["t1", "query"] == "Allan Peiper was born in [MASK] ."
    assert df.loc["t5", "query"] == "The capital of France is [MASK] ."
    assert df.loc["t5", "relation_type"] == "1-1" and df.loc["t1", "relation_label"] == "place of birth"
    assert list(df["relation"]) == ["P19"] * 4 + ["P36"], "relations without T-REx data are skipped, order kept"


def test_trex_filters(release):
    df = build("trex", release).set_index("uuid")
    assert not df.loc["t4", "in_common_vocab"]
    assert not df.loc["t2", "duplicate"] and df.loc["t3", "duplicate"]
    assert R.filter_counts(df.reset_index()) == {"lines": 5, "too_long": 0, "not_in_common_vocab": 1, "judgment_rejected": 0, "duplicate": 1}


def test_google_re_judgments_and_templates(release):
    df = build("google_re", release)
    peter = df[(df.relation == "place_of_birth") & (df.sub_label == "Peter Martin")].iloc[0]
    assert (peter.judgments_yes, peter.judgments_no, bool(peter.judgment_rejected)) == (1, 4, True)
    tie = df[df.relation == "place_of_death"].iloc[0]
    assert not tie.judgment_rejected, "a tie is not 'more no than yes'"
    assert df[df.relation == "date_of_birth"].iloc[0].query == "Peter Martin (born [MASK])."
    assert R.filter_counts(df)["judgment_rejected"] == 1


def test_conceptnet_long_sentences_and_no_dedupe(release):
    df = build("conceptnet", release).set_index("uuid")
    assert df.loc["c1", "query"] == "A bird can [MASK] ." and df.loc["c1", "relation"] == "CapableOf"
    assert df.loc["c2", "n_words"] == 104 and df.loc["c2", "too_long"]
    assert not df["duplicate"].any(), "only template corpora are deduplicated"


def test_squad_is_not_deduplicated(release):
    df = build("squad", release)
    assert len(df) == 2 and not df["duplicate"].any() and (df["relation"] == "squad").all()


def test_malformed_line_names_file_and_line(release):
    path = release / "TREx" / "P36.jsonl"
    path.write_text(path.read_text() + '{"sub_label": "Italy"\n', encoding="utf-8")
    with pytest.raises(R.ReleaseError, match=r"P36\.jsonl:2: not valid JSON"):
        build("trex", release)


def test_missing_field_is_named(release):
    _jsonl(release / "Squad" / "test.jsonl", [{"masked_sentences": ["x [MASK] y"], "id": "q"}])
    with pytest.raises(R.ReleaseError, match=r"test\.jsonl:1: missing field 'obj_label'"):
        build("squad", release)


def test_dedupe_happens_after_the_filters(release):
    # The first copy is rejected by its judgments, so the second copy is the one scored.
    _jsonl(release / "Google_RE" / "place_of_death_test.jsonl", [google("Mary Lee", "Paris", 0, 3), google("Mary Lee", "Paris", 2, 0)])
    df = build("google_re", release)
    death = df[df.relation == "place_of_death"]
    assert list(death["judgment_rejected"]) == [True, False]
    assert list(death["duplicate"]) == [False, False]
