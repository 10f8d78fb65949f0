"""LAMA release parsing on a hand-written fixture in the release's real format."""

import json
import re

import pytest

from lmprobes.suites.lama import release as R


@pytest.fixture
def release(tmp_path, lama_release_writer):
    return lama_release_writer(tmp_path)


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


def test_missing_field_is_named(release, lama_records):
    lama_records.jsonl(release / "Squad" / "test.jsonl", [{"masked_sentences": ["x [MASK] y"], "id": "q"}])
    with pytest.raises(R.ReleaseError, match=r"test\.jsonl:1: missing field 'obj_label'"):
        build("squad", release)


def test_a_trex_file_missing_from_a_partly_extracted_release_is_named(release):
    (release / "TREx" / "P36.jsonl").unlink()
    with pytest.raises(R.ReleaseError, match=r"TREx: missing from the LAMA release.*: P36\.jsonl$"):
        build("trex", release)


def test_only_the_five_relations_without_trex_data_may_lack_a_file(release):
    assert R.RELATIONS_WITHOUT_TREX == {"P166", "P69", "P54", "P1923", "P102"}
    assert "P166" in R.load_relations(release / "relations.jsonl")
    assert not (release / "TREx" / "P166.jsonl").exists() and len(build("trex", release)) == 5


@pytest.mark.parametrize("kind", ["1-1 ", "n-m", "N-1-1", "1-N", ""])
def test_a_relation_type_outside_1_1_n_1_n_m_is_refused_naming_file_line_and_relation(release, lama_records, kind):
    """T-REx is reported per type (1-1, N-1, N-M): a misspelt type would count in the Total and in no row."""
    path = release / "relations.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert [record["type"] for record in records] == ["N-1", "1-1", "N-M"], "the fixture's types load"
    records[1]["type"] = kind
    lama_records.jsonl(path, records)
    with pytest.raises(R.ReleaseError, match=rf"relations\.jsonl:2: relation P36 has type {re.escape(repr(kind))}, "
                                             r"not one of 1-1, N-1, N-M$"):
        build("trex", release)


def test_a_relation_without_a_type_is_loaded_untyped(release, lama_records):
    path = release / "relations.jsonl"
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    records[1]["type"] = None
    del records[2]["type"]
    lama_records.jsonl(path, records)
    assert [meta.get("type") for meta in R.load_relations(path).values()] == ["N-1", None, None]


def test_a_conceptnet_line_without_its_predicate_is_refused(release, lama_records):
    lama_records.jsonl(release / "ConceptNet" / "test.jsonl",
                       [{"sub": "bird", "obj": "fly", "obj_label": "fly", "masked_sentences": ["A bird can [MASK] ."]}])
    with pytest.raises(R.ReleaseError, match=r"ConceptNet/test\.jsonl:1: missing field 'pred'"):
        build("conceptnet", release)


def test_raw_trex_objects_fill_valid_objects_named_as_the_release_names_them(release):
    import pandas as pd

    df = build("trex", release)
    objects = pd.DataFrame.from_records([
        ("P19", "Q7186", "Q2643563", "Alexandra, Victoria"),  # an object of the release: its label wins
        ("P19", "Q7186", "Q270", "Warsaw"),                  # not one: its raw T-REx label
        ("P36", "Q142", "Q90", "Paris"),
        ("P36", "Q7186", "Q270", "Warsaw"),                  # another relation's subject: not P19's
    ], columns=["relation", "sub_uri", "obj_uri", "obj_label"])
    got = R.with_valid_objects(df, objects).set_index("uuid")["valid_objects"]
    assert list(got["t1"]) == ["Alexandra", "Warsaw"] and list(got["t5"]) == ["Paris"]
    assert list(got["t2"]) == [] and list(got["t4"]) == [], "no raw objects: an empty list"
    valid = R.valid_objects(R.with_valid_objects(df, objects))
    assert valid[("P19", "Allan Peiper")] == {"Alexandra", "Warsaw"}


def test_dedupe_happens_after_the_filters(release, lama_records):
    # The first copy is rejected by its judgments, so the second copy is the one scored.
    google = lama_records.google
    lama_records.jsonl(release / "Google_RE" / "place_of_death_test.jsonl", [google("Mary Lee", "Paris", 0, 3), google("Mary Lee", "Paris", 2, 0)])
    df = build("google_re", release)
    death = df[df.relation == "place_of_death"]
    assert list(death["judgment_rejected"]) == [True, False]
    assert list(death["duplicate"]) == [False, False]


def test_judgments_other_than_yes_count_as_no(release, lama_records):
    # The released filter_samples: `if x["judgment"] == "yes": num_yes += 1 else: num_no += 1`.
    google = lama_records.google
    skipped = google("Ann Lee", "Paris", 2, 0)
    skipped["judgments"] += [{"rater": f"k{i}", "judgment": "skip"} for i in range(3)]
    one_each = google("Bo Lee", "Rome", 1, 1)
    one_each["judgments"].append({"rater": "k", "judgment": "skip"})
    lama_records.jsonl(release / "Google_RE" / "place_of_death_test.jsonl", [skipped, one_each, google("Cy Lee", "Oslo", 2, 1)])
    death = build("google_re", release).query("relation == 'place_of_death'")
    assert list(zip(death["judgments_yes"], death["judgments_no"])) == [(2, 3), (1, 2), (2, 1)]
    assert list(death["judgment_rejected"]) == [True, True, False]


def test_template_subject_is_stripped_as_released(release, lama_records):
    lama_records.jsonl(release / "TREx" / "P36.jsonl", [lama_records.trex("t9", " Italy ", "Rome", "P36")])
    df = build("trex", release)
    assert df[df.relation == "P36"].iloc[0].query == "The capital of Italy is [MASK] ."


def test_lowercase_mode_lowercases_labels_and_sentences_and_filters_again(release, lama_records):
    # The released lowercase_samples: labels and sentences lowercased (the mask kept); templates
    # are filled with the lowercased subject; the filters and the dedupe run on the lowercased facts.
    lama_records.jsonl(release / "TREx" / "P36.jsonl", [lama_records.trex("t6", "France", "Paris", "P36"),
                                                        lama_records.trex("t7", "FRANCE", "PARIS", "P36")])
    vocab = {"paris", "fly", "london"}
    trex = R.lowercased(build("trex", release), vocab).set_index("uuid")
    assert trex.loc["t1", "query"] == "allan peiper was born in [MASK] ."
    assert trex.loc["t6", "query"] == "The capital of france is [MASK] ."
    assert trex.loc["t6", "obj_label"] == "paris" and trex.loc["t6", "in_common_vocab"]
    assert not trex.loc["t6", "duplicate"] and trex.loc["t7", "duplicate"], "dedupe on the lowercased pair"
    assert not trex.loc["t1", "in_common_vocab"], "alexandra is not in this vocabulary"
    conceptnet = R.lowercased(build("conceptnet", release), vocab).set_index("uuid")
    assert conceptnet.loc["c1", "query"] == "a bird can [MASK] ."
    assert conceptnet.loc["c2", "too_long"]


@pytest.mark.parametrize("corpus, file", [("conceptnet", "ConceptNet/test.jsonl"), ("squad", "Squad/test.jsonl")])
def test_a_line_with_several_masked_sentences_is_queried_through_the_first_and_counted_in_the_log(
        release, lama_records, corpus, file, caplog):
    """As spec/LAMA.md says (the first sentence); the released connectors would read them together
    (BERT's as segments A and B, RoBERTa's concatenated, the left-to-right ones joined by EOS)."""
    one = {"sub": "bird", "pred": "CapableOf", "obj_label": "fly", "masked_sentences": ["A bird can [MASK] ."],
           "uuid": "c1", "id": "q1", "sub_label": "Squad"}
    two = {**one, "masked_sentences": ["A bird can [MASK] .", "Birds [MASK] south ."]}
    lama_records.jsonl(release / file, [one, two])
    with caplog.at_level("WARNING", logger="lmprobes.suites.lama.release"):
        facts = build(corpus, release)
    assert facts["query"].tolist() == ["A bird can [MASK] ."] * 2
    assert facts["n_words"].tolist() == [5, 9], "the length filter counts every sentence, as released"
    assert re.search(rf"{file.replace('.', '[.]')}: 1 lines have more than one masked sentence.*first.*"
                     r"segments A and B.*RoBERTa.*EOS", caplog.text)
    lama_records.jsonl(release / file, [one, {**one, "masked_sentences": ["A bird can fly .", "Birds [MASK] ."]}])
    with pytest.raises(R.ReleaseError, match=rf"{file.replace('.', '[.]')}:2: every masked sentence must contain"):
        build(corpus, release)
    caplog.clear()
    lama_records.jsonl(release / file, [one])
    with caplog.at_level("WARNING", logger="lmprobes.suites.lama.release"):
        assert build(corpus, release)["query"].tolist() == ["A bird can [MASK] ."]
    assert "more than one masked sentence" not in caplog.text


def test_a_sentence_of_exactly_100_words_is_kept_and_one_of_101_is_too_long(release, lama_records):
    """spec/LAMA.md: a ConceptNet/SQuAD fact is dropped when its sentence is *over* 100 words."""

    def sentence(words):
        text = " ".join(["A", "bird"] + ["very"] * (words - 5) + ["can", "[MASK]", "."])
        assert len(text.split(" ")) == words
        return text

    record = {"sub": "bird", "pred": "CapableOf", "obj_label": "fly"}
    lama_records.jsonl(release / "ConceptNet" / "test.jsonl",
                       [{**record, "uuid": f"w{n}", "masked_sentences": [sentence(n)]} for n in (99, 100, 101)])
    df = build("conceptnet", release).set_index("uuid")
    assert df["n_words"].to_dict() == {"w99": 99, "w100": 100, "w101": 101}
    assert df["too_long"].to_dict() == {"w99": False, "w100": False, "w101": True}
    assert R.filter_counts(df.reset_index())["too_long"] == 1


def test_each_removed_fact_counts_once_for_the_first_filter_that_removes_it(release, lama_records):
    """The released order: length, then common vocabulary, then judgments (the filters table's rows)."""
    google = lama_records.google
    lama_records.jsonl(release / "Google_RE" / "place_of_death_test.jsonl",
                       [google("Ann Lee", "Oslo", 0, 3), google("Bo Lee", "Paris", 0, 3)])  # Oslo: not in the vocab
    death = build("google_re", release).query("relation == 'place_of_death'")
    assert list(death["in_common_vocab"]) == [False, True] and death["judgment_rejected"].all()
    assert R.filter_counts(death) == {"lines": 2, "too_long": 0, "not_in_common_vocab": 1, "judgment_rejected": 1,
                                      "duplicate": 0}
    long_sentence = " ".join(["word"] * 100) + " birds can [MASK] ."
    lama_records.jsonl(release / "ConceptNet" / "test.jsonl",
                       [{"sub": "bird", "pred": "CapableOf", "obj_label": "sing", "masked_sentences": [long_sentence]}])
    conceptnet = build("conceptnet", release)
    assert conceptnet["too_long"].all() and not conceptnet["in_common_vocab"].any()
    assert R.filter_counts(conceptnet) == {"lines": 1, "too_long": 1, "not_in_common_vocab": 0, "judgment_rejected": 0,
                                           "duplicate": 0}


def test_trex_relations_come_in_numeric_order_whatever_the_order_of_relations_jsonl(release):
    path = release / "relations.jsonl"
    path.write_text("".join(reversed(path.read_text(encoding="utf-8").splitlines(keepends=True))), encoding="utf-8")
    assert list(R.load_relations(path)) == ["P166", "P36", "P19"]
    assert list(build("trex", release)["relation"]) == ["P19"] * 4 + ["P36"]


def test_lowercase_mode_lowercases_the_valid_objects_too(release):
    """The filtered rank compares them with the lowercased vocabulary's words."""
    import pandas as pd

    objects = pd.DataFrame.from_records([("P19", "Q7186", "Q270", "Warsaw")], columns=["relation", "sub_uri", "obj_uri", "obj_label"])
    lower = R.lowercased(R.with_valid_objects(build("trex", release), objects), {"paris", "warsaw"}).set_index("uuid")
    assert list(lower.loc["t1", "valid_objects"]) == ["warsaw"] and list(lower.loc["t2", "valid_objects"]) == []
    assert R.lowercased(build("trex", release), {"paris"})["valid_objects"].isna().all(), "none listed: none made up"


def test_google_re_aliases_and_labels_and_squad_ids_are_read_into_their_columns(release, lama_records):
    peter = lama_records.google("Peter Martin", "London", 3, 0)
    peter.update(sub_aliases=["Pete Martin"], obj_aliases=["London, England", "Londres"])
    lama_records.jsonl(release / "Google_RE" / "place_of_birth_test.jsonl", [peter])
    row = build("google_re", release).query("relation == 'place_of_birth'").iloc[0]
    assert (list(row.sub_aliases), list(row.obj_aliases)) == (["Pete Martin"], ["London, England", "Londres"])
    assert row.relation_label == "place of birth" and row.uuid == "g-Peter Martin"
    assert list(build("squad", release)["uuid"]) == ["56bf_0", "56bf_1"], "SQuAD names its question by id"


def test_words_are_counted_between_any_whitespace_as_released(release, lama_records):
    """The released filter: ``len(" ".join(masked_sentences).split())``."""
    sentence = "A  bird\tcan  [MASK] ."
    lama_records.jsonl(release / "ConceptNet" / "test.jsonl",
                       [{"sub": "bird", "pred": "CapableOf", "obj_label": "fly", "masked_sentences": [sentence]}])
    assert build("conceptnet", release)["n_words"].tolist() == [5]
