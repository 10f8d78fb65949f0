"""trex_raw: LAMA facts generated from raw T-REx, on a fixture in the real TREx.zip format.

tests/data/trex_raw/ holds two members (re-nlg_0-10000.json: France, Spain; re-nlg_10000-20000.json:
Marie Curie, Paris, Portugal) with offsets into each document's text, as the T-REx pipeline
writes them, plus relations.jsonl and a common vocabulary. Among the triples: one of another
relation (P30), one whose sentence lacks the subject's surface form (NoSubject aligner, "Its
capital is Paris."), one with a date literal as object, one with a pronoun subject ("It borders
Morocco."), one aligned twice (SPO and Simple aligners), and objects outside the vocabulary
(Andorra, Madrid).
"""

import json
import shutil
import uuid
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from lmprobes.suites.lama import trex_raw as T
from lmprobes.suites.lama.release import SCHEMA, ReleaseError

DATA = Path(__file__).parent / "data" / "trex_raw"
MEMBERS = ("re-nlg_0-10000.json", "re-nlg_10000-20000.json")
RELATIONS = DATA / "relations.jsonl"
VOCAB = DATA / "common_vocab_cased.txt"
FIRST, SECOND = MEMBERS
P47 = "[X] shares border with [Y] ."

# (relation, sub_uri, sub_label, obj_uri, obj_label, valid_objects, evidences, source_file), worked out by hand.
EXPECTED = [
    ("P19", "Q7186", "Marie Curie", "Q270", "Warsaw", ["Warsaw"], ["Marie Curie was born in [MASK]."], SECOND),
    ("P36", "Q142", "France", "Q90", "Paris", ["Paris"],
     # Sorted as strings: "The [" < "The c" < "[MASK]"; "Its capital is Paris." lacks "France".
     ["The [MASK] is the capital of France.", "The capital of France is [MASK].",
      "[MASK] is the capital and largest city of France."], FIRST),
    # P47 in (subject, object) id order: Q29 < Q45 < Q142, and Q29 < Q31 < Q183.
    ("P47", "Q29", "Spain", "Q45", "Portugal", ["Andorra", "France", "Portugal"],
     ["Spain shares a border with France, the [MASK] and Andorra."], FIRST),
    ("P47", "Q29", "Spain", "Q142", "France", ["Andorra", "France", "Portugal"],
     ["Spain shares a border with [MASK], the Portuguese Republic and Andorra."], FIRST),
    ("P47", "Q45", "Portugal", "Q29", "Spain", ["Spain"], ["Portugal shares a border with [MASK]."], SECOND),
    ("P47", "Q142", "France", "Q29", "Spain", ["Belgium", "Germany", "Spain"],
     ["France shares a border with [MASK], Belgium and Germany."], FIRST),
    ("P47", "Q142", "France", "Q31", "Belgium", ["Belgium", "Germany", "Spain"],
     ["France shares a border with Spain, [MASK] and Germany."], FIRST),
    ("P47", "Q142", "France", "Q183", "Germany", ["Belgium", "Germany", "Spain"],
     ["France shares a border with Spain, Belgium and [MASK]."], FIRST),
]
TEMPLATES = {"P19": ("[X] was born in [Y] .", "place of birth", "N-1"),
             "P36": ("The capital of [X] is [Y] .", "capital", "1-1"),
             "P47": (P47, "shares border with", "N-M")}


@pytest.fixture
def trex_zip(tmp_path):
    """TREx.zip-like: the members written out of order, with a folder entry and a non-JSON file."""
    path = tmp_path / "TREx.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("README.txt", "T-REx sample")
        for name in reversed(MEMBERS):
            archive.write(DATA / name, name)
    return path


@pytest.fixture
def trex_dir(tmp_path):
    folder = tmp_path / "TREx"
    folder.mkdir()
    for name in MEMBERS:
        shutil.copy(DATA / name, folder / name)
    return folder


def build(trex, **options):
    options.setdefault("seed", 0)
    return T.build_trex_raw(trex, RELATIONS, VOCAB, **options)


def test_rows_are_the_facts_worked_out_by_hand(trex_zip):
    df = build(trex_zip)
    assert list(df.columns) == SCHEMA.names
    got = [(r.relation, r.sub_uri, r.sub_label, r.obj_uri, r.obj_label, list(r.valid_objects), list(r.evidences), r.source_file)
           for r in df.itertuples()]
    assert got == EXPECTED
    assert list(df["row_id"]) == ["trex_raw:P19:1", "trex_raw:P36:1"] + [f"trex_raw:P47:{i}" for i in range(1, 7)]
    for row in df.itertuples():
        template, label, kind = TEMPLATES[row.relation]
        assert (row.template, row.relation_label, row.relation_type, row.corpus) == (template, label, kind, "trex_raw")
        assert row.query == template.replace("[X]", row.sub_label).replace("[Y]", "[MASK]")
        assert list(row.masked_sentences) == [row.query]
        assert row.in_common_vocab and not row.too_long and not row.duplicate
        assert row.sub_aliases is None and row.obj_aliases is None and pd.isna(row.judgments_yes)
    assert df.loc[0, "query"] == "Marie Curie was born in [MASK] ."
    assert df["uuid"].is_unique
    assert df.loc[0, "uuid"] == str(uuid.uuid5(T.UUID_NAMESPACE, "trex_raw/P19/Q7186/Q270"))


def test_every_object_lists_each_counted_fact_sampled_or_not(trex_zip):
    df, objects = T.build_trex_raw_with_objects(trex_zip, RELATIONS, VOCAB, seed=0, max_per_relation=1)
    assert list(objects.columns) == T.OBJECTS_SCHEMA.names
    assert list(objects.itertuples(index=False, name=None)) == [
        ("P19", "Q7186", "Q270", "Warsaw"), ("P36", "Q29", "Q2807", "Madrid"), ("P36", "Q142", "Q90", "Paris"),
        ("P47", "Q29", "Q45", "Portugal"), ("P47", "Q29", "Q142", "France"), ("P47", "Q29", "Q228", "Andorra"),
        ("P47", "Q45", "Q29", "Spain"), ("P47", "Q142", "Q29", "Spain"), ("P47", "Q142", "Q31", "Belgium"),
        ("P47", "Q142", "Q183", "Germany"),
    ], "Madrid (outside the vocabulary) and the P47 facts left out of the sample of 1 included"
    assert len(df) == 3
    for row in build(trex_zip).itertuples():  # the sample's own valid objects, worked out apart
        mine = objects[(objects.relation == row.relation) & (objects.sub_uri == row.sub_uri)]
        assert sorted(mine["obj_label"]) == list(row.valid_objects)


def test_labels_are_the_most_frequent_surface_form_ties_alphabetical(trex_zip):
    labels = build(trex_zip).drop_duplicates("obj_uri").set_index("obj_uri")["obj_label"]
    assert labels["Q90"] == "Paris", "Paris 2 times, City of Light once"
    # "Portuguese Republic" (first member) and "Portugal" (second) once each: the tie goes alphabetically.
    assert labels["Q45"] == "Portugal"


def test_a_label_asked_for_between_members_follows_the_later_members_forms():
    collected = T.FactCollector(["P19", "P36", "P47"], max_evidences=10)
    collected.add_member(DATA, FIRST, documents(FIRST))
    assert collected.label("Q45") == "Portuguese Republic"  # the only form in the first member
    collected.add_member(DATA, SECOND, documents(SECOND))
    assert collected.label("Q45") == "Portugal"  # one each now: the tie goes alphabetically


def test_skipped_triples_leave_no_trace(trex_zip):
    df = build(trex_zip)
    # The date-object triple's "Curie" would tie with "Marie Curie" and win alphabetically.
    assert set(df.loc[df.sub_uri == "Q7186", "sub_label"]) == {"Marie Curie"}
    assert "Morocco" not in {o for objects in df["valid_objects"] for o in objects}
    assert not any("Its capital" in e for evidences in df["evidences"] for e in evidences)


def test_stats_count_candidates_per_relation_and_skips(trex_zip):
    stats = {}
    build(trex_zip, stats=stats)
    assert stats == {
        "members": 2,
        "documents": 5,
        "triples": 17,
        "masked_by_search": 0,
        "skipped": {"other_predicate": 1, "not_item": 1, "pronoun": 1, "sentence_out_of_range": 0,
                    "surface_form_missing": 1},
        "relations": {
            "P19": {"aligned_triples": 1, "facts": 1, "candidates": 1, "sampled": 1},
            # France->Paris 3 times (counted), Spain->Madrid (Madrid not in the vocabulary).
            "P36": {"aligned_triples": 4, "facts": 2, "candidates": 1, "sampled": 1},
            # 7 triples + the duplicate alignment; Spain->Andorra is a fact but not a candidate.
            "P47": {"aligned_triples": 8, "facts": 7, "candidates": 6, "sampled": 6},
            "P101": {"aligned_triples": 0, "facts": 0, "candidates": 0, "sampled": 0},
        },
    }


def p47_sample(df):
    rows = df[df.relation == "P47"]
    return list(zip(rows.sub_uri, rows.obj_uri))


def test_cap_and_seeded_sampling(trex_zip):
    stats = {}
    first = build(trex_zip, seed=0, max_per_relation=2, stats=stats)
    assert stats["relations"]["P47"] == {"aligned_triples": 8, "facts": 7, "candidates": 6, "sampled": 2}
    # random.Random("0:P47").sample(candidates in id order, 2), listed in id order.
    assert p47_sample(first) == [("Q29", "Q45"), ("Q142", "Q183")]
    assert list(first.loc[first.relation == "P47", "row_id"]) == ["trex_raw:P47:1", "trex_raw:P47:2"]
    assert list(first.relation) == ["P19", "P36", "P47", "P47"], "relations under the cap keep all facts"
    pd.testing.assert_frame_equal(first, build(trex_zip, seed=0, max_per_relation=2))
    assert p47_sample(build(trex_zip, seed=1, max_per_relation=2)) == [("Q142", "Q29"), ("Q142", "Q183")]


def test_evidences_cap_keeps_the_smallest(trex_zip):
    paris = build(trex_zip, max_evidences=1).set_index("relation").loc["P36"]
    assert list(paris.evidences) == ["The [MASK] is the capital of France."]


def test_zip_and_folder_give_identical_frames(trex_zip, trex_dir):
    zip_stats, dir_stats = {}, {}
    pd.testing.assert_frame_equal(build(trex_zip, stats=zip_stats), build(trex_dir, stats=dir_stats))
    assert zip_stats == dir_stats


def test_members_are_read_lazily_in_sorted_order(trex_zip, monkeypatch):
    parsed = []
    real = T._parse_member
    monkeypatch.setattr(T, "_parse_member", lambda source, name, data: parsed.append(name) or real(source, name, data))
    members = T.iter_members(trex_zip)
    name, documents = next(members)
    assert (name, parsed) == (FIRST, [FIRST]), "only the first member is parsed before it is used"
    assert [doc["title"] for doc in documents] == ["France", "Spain"]
    assert [name for name, _ in members] == [SECOND]


def test_stale_boundaries_fall_back_to_the_surface_form():
    text = "Intro. Born in Paris, near Paris."
    sentence = (7, len(text))
    assert T.mask_object(text, *sentence, [15, 20], "Paris") == ("Born in [MASK], near Paris.", True)
    assert T.mask_object(text, *sentence, [27, 32], "Paris") == ("Born in Paris, near [MASK].", True)
    assert T.mask_object(text, *sentence, [14, 19], "Paris") == ("Born in [MASK], near Paris.", False)
    assert T.mask_object(text, *sentence, None, "Paris") == ("Born in [MASK], near Paris.", False)


def test_evidence_cap_does_not_depend_on_arrival_order():
    sentences = ["d", "b", "a", "b", "e", "c"]
    for order in (sentences, sentences[::-1], sorted(sentences)):
        kept: list[str] = []
        for sentence in order:
            T.add_capped(kept, sentence, 3)
        assert kept == ["a", "b", "c"]


def test_item_ids():
    assert T.item_id("http://www.wikidata.org/entity/Q42") == "Q42"
    for uri in ("http://www.wikidata.org/entity/P31", "http://www.wikidata.org/entity/Q42x",
                "1867-11-07T00:00:00Z^^http://www.w3.org/2001/XMLSchema#dateTime", None, "Q42"):
        assert T.item_id(uri) is None


# --- malformed input -------------------------------------------------------------------------


def zip_with(tmp_path, members: dict[str, bytes]) -> Path:
    path = tmp_path / "bad.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def documents(name):
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def test_invalid_json_names_the_member(tmp_path):
    good = (DATA / FIRST).read_bytes()
    bad = zip_with(tmp_path, {FIRST: good, SECOND: good[:-40]})
    with pytest.raises(T.TrexRawError, match=r"bad\.zip: re-nlg_10000-20000\.json: not valid JSON \(.* at line \d+, column \d+\)"):
        build(bad)


def test_missing_triple_field_names_member_document_and_triple(tmp_path):
    docs = documents(SECOND)
    del docs[1]["triples"][0]["sentence_id"]
    bad = zip_with(tmp_path, {FIRST: (DATA / FIRST).read_bytes(), SECOND: json.dumps(docs).encode()})
    message = (r"re-nlg_10000-20000\.json: document 1 \(docid http://www\.wikidata\.org/entity/Q90\): "
               r"triple 0: missing field 'sentence_id'")
    with pytest.raises(T.TrexRawError, match=message):
        build(bad)


def test_missing_document_field_and_bad_shapes(tmp_path):
    docs = documents(FIRST)
    del docs[1]["text"]
    with pytest.raises(T.TrexRawError, match=r"re-nlg_0-10000\.json: document 1 \(docid .*Q29\): missing field 'text'"):
        build(zip_with(tmp_path, {FIRST: json.dumps(docs).encode()}))
    with pytest.raises(T.TrexRawError, match=r"re-nlg_0-10000\.json: expected a JSON array of documents, got dict"):
        build(zip_with(tmp_path, {FIRST: b'{"docid": "x"}'}))
    docs = documents(FIRST)
    docs[0]["triples"][2]["sentence_id"] = "2"
    with pytest.raises(T.TrexRawError, match=r"document 0 .*: triple 2: malformed \(sentence_id '2' is not an integer\)"):
        build(zip_with(tmp_path, {FIRST: json.dumps(docs).encode()}))


def test_inputs_without_members(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(T.TrexRawError, match="no .json files"):
        build(tmp_path / "empty")
    with pytest.raises(T.TrexRawError, match="no .json members"):
        build(zip_with(tmp_path, {"README.txt": b"x"}))
    (tmp_path / "TREx.json").write_text("[]")
    with pytest.raises(T.TrexRawError, match="neither a folder nor a zip"):
        build(tmp_path / "TREx.json")


def test_no_candidates_is_an_error(trex_zip, tmp_path):
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("Andorra\n")  # only ever an object of Spain->Andorra, whose label it is
    assert len(T.build_trex_raw(trex_zip, RELATIONS, vocab, seed=0)) == 1
    vocab.write_text("Madrid-not\n")
    with pytest.raises(ReleaseError, match="no raw T-REx facts"):
        T.build_trex_raw(trex_zip, RELATIONS, vocab, seed=0)


def test_sentence_out_of_range_is_skipped_and_counted(tmp_path):
    docs = documents(SECOND)
    docs[0]["triples"][0]["sentence_id"] = 9  # Marie Curie -> Warsaw, the only P19 fact
    stats = {}
    df = build(zip_with(tmp_path, {FIRST: (DATA / FIRST).read_bytes(), SECOND: json.dumps(docs).encode()}), stats=stats)
    assert stats["skipped"]["sentence_out_of_range"] == 1 and "P19" not in set(df.relation)


def test_the_five_relations_lama_has_no_t_rex_facts_for_are_left_out(tmp_path):
    """LAMA's T-REx has 41 relations; relations.jsonl lists five more (P54, P69, P102, P166, P1923)."""
    docs = documents(SECOND)
    docs[0]["triples"][0]["predicate"]["uri"] = "http://www.wikidata.org/prop/direct/P54"  # Marie Curie -> Warsaw
    relations = tmp_path / "relations.jsonl"
    p54 = {"relation": "P54", "template": "[X] plays with [Y] .", "label": "member of sports team", "type": "N-1"}
    relations.write_text(RELATIONS.read_text(encoding="utf-8") + json.dumps(p54) + "\n", encoding="utf-8")
    trex = zip_with(tmp_path, {FIRST: (DATA / FIRST).read_bytes(), SECOND: json.dumps(docs).encode()})
    stats = {}
    df, objects = T.build_trex_raw_with_objects(trex, relations, VOCAB, seed=0, stats=stats)
    assert "P54" not in set(df.relation) and "P54" not in set(objects.relation)
    assert "P54" not in stats["relations"]
    assert set(df.relation) == {"P36", "P47"}, "Warsaw's fact was P19's only one"


def test_evidences_are_stripped_and_boundaries_outside_the_aligned_sentence_are_not_used():
    text = "Born in Paris. Paris is far."
    second = (14, len(text))  # " Paris is far.": T-REx sentence spans may hold the space before them
    assert T.mask_object(text, *second, [15, 20], "Paris") == ("[MASK] is far.", True)
    # The first sentence's "Paris": the right form, but not in the aligned sentence.
    assert T.mask_object(text, *second, [8, 13], "Paris") == ("[MASK] is far.", False)


def mention(qid: str, surface: str, annotator: str = "Wikidata_Spotlight_Entity_Linker", boundaries=None) -> dict:
    return {"uri": f"http://www.wikidata.org/entity/{qid}", "surfaceform": surface, "annotator": annotator,
            "boundaries": boundaries}


def one_triple_document(text: str, sentences: list, sentence_id: int, subject: dict, obj: dict) -> dict:
    predicate = {"uri": "http://www.wikidata.org/prop/direct/P19", "surfaceform": None, "boundaries": None}
    return {"docid": "d", "text": text, "sentences_boundaries": sentences,
            "triples": [{"sentence_id": sentence_id, "subject": subject, "predicate": predicate, "object": obj}]}


def test_a_pronoun_object_is_skipped_as_a_pronoun_subject_is():
    """A Simple_Coreference mention ("it") does not name its entity: neither a label nor an evidence."""
    text = "Warsaw is a city. Marie Curie was born in it."
    document = one_triple_document(text, [[0, 17], [18, len(text)]], 1, mention("Q7186", "Marie Curie"),
                                   mention("Q270", "it", "Simple_Coreference", [42, 44]))
    collected = T.FactCollector(["P19"], max_evidences=10)
    collected.add_member(DATA, "m.json", [document])
    assert collected.skipped["pronoun"] == 1 and collected.facts["P19"] == {} and "Q270" not in collected.surfaces


def test_a_negative_sentence_id_is_out_of_range_not_the_last_sentence():
    text = "Intro. Marie Curie was born in Warsaw."
    document = one_triple_document(text, [[0, 6], [7, len(text)]], -1, mention("Q7186", "Marie Curie", boundaries=[7, 18]),
                                   mention("Q270", "Warsaw", boundaries=[31, 37]))
    collected = T.FactCollector(["P19"], max_evidences=10)
    collected.add_member(DATA, "m.json", [document])
    assert collected.skipped["sentence_out_of_range"] == 1 and collected.facts["P19"] == {}


def test_relations_come_in_numeric_order_not_as_strings(tmp_path):
    """P101 after P47 (as strings it would come first), in the dataset and in every_object."""
    docs = documents(SECOND)
    docs[0]["triples"][0]["predicate"]["uri"] = "http://www.wikidata.org/prop/direct/P101"  # Marie Curie -> Warsaw
    trex = zip_with(tmp_path, {FIRST: (DATA / FIRST).read_bytes(), SECOND: json.dumps(docs).encode()})
    df, objects = T.build_trex_raw_with_objects(trex, RELATIONS, VOCAB, seed=0)
    assert list(dict.fromkeys(df.relation)) == ["P36", "P47", "P101"]
    assert list(dict.fromkeys(objects.relation)) == ["P36", "P47", "P101"]
    assert sorted(["P101", "P1412", "P19", "P36"], key=T.relation_order) == ["P19", "P36", "P101", "P1412"]


def test_macos_resource_forks_in_the_zip_are_not_read_as_members(tmp_path, trex_zip):
    fork = b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X"  # AppleDouble: not JSON
    members = {name: (DATA / name).read_bytes() for name in MEMBERS}
    archive = zip_with(tmp_path, {**members, "._re-nlg_0-10000.json": fork, "__MACOSX/._re-nlg_10000-20000.json": fork})
    pd.testing.assert_frame_equal(build(archive), build(trex_zip))


def test_namesakes_with_one_object_are_flagged_duplicate_as_lama_dedupes_template_queries(tmp_path):
    """Two people whose label is "John Smith", both born in Paris, give one query and one gold."""
    text = "John Smith was born in Paris."
    smiths = [one_triple_document(text, [[0, len(text)]], 0, mention(qid, "John Smith", boundaries=[0, 10]),
                                  mention("Q90", "Paris", boundaries=[23, 28])) for qid in ("Q5", "Q6")]
    df = build(zip_with(tmp_path, {"m.json": json.dumps(smiths).encode()}))
    assert list(zip(df.sub_uri, df.sub_label, df.obj_label, df.duplicate)) == [
        ("Q5", "John Smith", "Paris", False), ("Q6", "John Smith", "Paris", True)]


def test_an_empty_surface_form_is_missing_not_found_everywhere():
    text = "Marie Curie was born in Warsaw."
    document = one_triple_document(text, [[0, len(text)]], 0, mention("Q7186", "Marie Curie", boundaries=[0, 11]),
                                   mention("Q270", "", boundaries=None))
    collected = T.FactCollector(["P19"], max_evidences=10)
    collected.add_member(DATA, "m.json", [document])
    assert collected.skipped["surface_form_missing"] == 1 and collected.facts["P19"] == {}
