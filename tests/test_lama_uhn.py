"""LAMA-UHN: the string-match and person-name filters, their table, and the filter model's job."""

from pathlib import Path

import pandas as pd
import pytest
import torch

from lmprobes.io import read_metadata, read_parquet
from lmprobes.suites.lama import tables as T
from lmprobes.suites.lama import uhn
from lmprobes.suites.lama.pipeline import score_uhn_names
from lmprobes.suites.lama.uhn_names import AnswerSpace, name_answers, score_name_hits

# Single tokens of the tiny BERT, which lowercases its input (so its vocabulary is the lowercased one).
COMMON = ["Baghdad", "China", "African", "Albert", "the", "a", "in", "is"]
LOWER = [w.lower() for w in COMMON]


def facts(rows, corpus="trex"):
    base = {"corpus": corpus, "relation_label": "", "relation_type": "N-1", "query": "[X] q [MASK] .",
            "in_common_vocab": True, "too_long": False, "judgment_rejected": False, "duplicate": False}
    return pd.DataFrame([{**base, "row_id": f"{corpus}:{i}", **row} for i, row in enumerate(rows)])


def test_string_match_is_a_case_insensitive_substring_of_the_subject():
    data = facts([
        {"relation": "P176", "sub_label": "Apple Watch", "obj_label": "Apple"},
        {"relation": "P176", "sub_label": "iPhone", "obj_label": "apple"},
        {"relation": "P37", "sub_label": "Finnish Wikipedia", "obj_label": "finnish"},
        {"relation": "P19", "sub_label": "Jerome Kern", "obj_label": "Rome"},  # inside a word counts too, as the paper's rule
        {"relation": "P19", "sub_label": "Allan Peiper", "obj_label": "Alexandra"},
        {"relation": "P131", "sub_label": "Große Straße", "obj_label": "strasse"},  # lowercased, not case-folded
    ])
    assert uhn.string_match(data).tolist() == [True, False, True, True, False, False]


def test_the_person_name_filter_reads_the_reference_codes_relations_and_kinds():
    """create_lama_uhn.py: places of birth and death (T-REx and Google-RE), citizenship, native and spoken languages."""
    assert uhn.NAME_KINDS == {"P19": "city", "P20": "city", "place_of_birth": "city", "place_of_death": "city",
                              "P27": "country", "P103": "language", "P1412": "language"}


def test_name_queries_split_subjects_on_whitespace_for_the_name_relations_only():
    data = pd.concat([facts([
        {"relation": "P19", "sub_label": "Jean Marais", "obj_label": "Paris"},
        {"relation": "P103", "sub_label": "Jean  Marais", "obj_label": "French"},
        {"relation": "P27", "sub_label": "Jean", "obj_label": "France"},
        {"relation": "P176", "sub_label": "Apple Watch", "obj_label": "Apple"},
    ]), facts([{"relation": "place_of_death", "sub_label": "Ole Bull", "obj_label": "Bergen"}], "google_re")])
    assert uhn.name_queries(data) == [
        ("city", "Bull"), ("city", "Jean"), ("city", "Marais"), ("city", "Ole"),
        ("country", "Jean"), ("language", "Jean"), ("language", "Marais"),
    ]
    assert uhn.query_text("language", "Jean", "<mask>") == "Jean is a common name in the following language: <mask>."


def test_a_fact_is_flagged_by_the_name_parts_whose_answers_hold_its_object():
    data = facts([
        {"relation": "P103", "sub_label": "Jean Marais", "obj_label": "French"},
        {"relation": "P103", "sub_label": "Jean Jean", "obj_label": "French"},
        {"relation": "P19", "sub_label": "Jean Marais", "obj_label": "Paris"},
        {"relation": "P176", "sub_label": "Jean Watch", "obj_label": "French"},
    ])
    answers = {("language", "Jean"): ["French", "English", "Latin"], ("language", "Marais"): ["Dutch", "french", "x"],
               ("city", "Jean"): ["Lyon", "Nice", "Metz"], ("city", "Marais"): ["Lyon", "Nice", "Metz"]}
    cased = uhn.name_hits(data, answers, lowercase=False)
    assert cased["row_id"].tolist() == ["trex:0", "trex:1", "trex:2"], "only the name relations"
    assert cased["name_hits"].tolist() == [["Jean"], ["Jean"], []]
    # An uncased filter model's answers are lowercase: compared lowercased, "french" counts for Marais.
    assert uhn.name_hits(data, answers, lowercase=True)["name_hits"].tolist()[0] == ["Jean", "Marais"]


def test_uhn_facts_drop_both_filters_matches_by_corpus_and_row():
    data = pd.concat([facts([
        {"relation": "P19", "sub_label": "Jean Marais", "obj_label": "Paris"},
        {"relation": "P176", "sub_label": "Apple Watch", "obj_label": "Apple"},
        {"relation": "P19", "sub_label": "Ole Bull", "obj_label": "Bergen"},
    ]), facts([{"relation": "place_of_birth", "sub_label": "Jean Marais", "obj_label": "Paris"}], "google_re")])
    hits = pd.DataFrame({"corpus": ["trex"], "row_id": ["trex:0"], "name_hits": [["Jean"]]})
    assert uhn.uhn_facts(data, hits)["row_id"].tolist() == ["trex:2", "google_re:0"]
    assert uhn.uhn_facts(data, None)["row_id"].tolist() == ["trex:0", "trex:2", "google_re:0"]
    counts = uhn.removal_counts(data[data["corpus"] == "trex"], hits)
    assert counts == {"facts": 3, "string_match": 1, "person_name": 1, "removed": 2}


def scores(data, ranks):
    return pd.DataFrame({"row_id": data["row_id"], "model": "m", "method": "masked", "kept": True, "skip_reason": "",
                         "rank_raw": pd.array(ranks, dtype="Int32"), "rank_filtered": pd.array(ranks, dtype="Int32")})


def test_table2_uhn_averages_the_relations_left_over_the_facts_left():
    data = facts([
        {"relation": "P19", "relation_type": "N-1", "sub_label": "Jean Marais", "obj_label": "Paris"},
        {"relation": "P19", "relation_type": "N-1", "sub_label": "Ole Bull", "obj_label": "Bergen"},
        {"relation": "P176", "relation_type": "N-1", "sub_label": "Apple Watch", "obj_label": "Apple"},
        {"relation": "P30", "relation_type": "N-1", "sub_label": "Kenya", "obj_label": "Africa"},
    ])
    facts_ = T.scored_facts(data, scores(data, [1, 3, 1, 1]))
    hits = pd.DataFrame({"corpus": ["trex"], "row_id": ["trex:0"], "name_hits": [["Jean"]]})
    tidy = T.table2_uhn(facts_, hits).set_index(["subset", "row"])
    # LAMA: P19 1/2, P176 1, P30 1 -> (0.5 + 1 + 1) / 3; UHN: P19 0/1, P176 gone, P30 1 -> (0 + 1) / 2.
    assert tidy.loc[("LAMA", "Total"), "p1"] == pytest.approx(100 * 2.5 / 3)
    assert tidy.loc[("LAMA-UHN", "Total"), "p1"] == pytest.approx(50.0)
    assert tidy.loc[("LAMA-UHN", "Total"), "n_relations"] == 2 and tidy.loc[("LAMA-UHN", "Total"), "n_kept"] == 2
    wide = T.table2_uhn_wide(tidy.reset_index(), ["trex", "conceptnet"])
    total = wide[wide["row"] == "Total"]
    assert total["subset"].tolist() == ["LAMA", "LAMA-UHN"] and total["m"].round(3).tolist() == [83.333, 50.0]
    assert set(wide["corpus"]) == {"trex"}, "ConceptNet is no UHN corpus"


def plain_top_words(lm, text, words, k):
    """The best ``k`` of ``words`` at the mask, from one plain forward (ties to the lower id)."""
    tok = lm.tokenizer
    enc = tok(text, return_tensors="pt")
    with torch.no_grad():
        logits = lm.model(**enc).logits[0]
    position = enc["input_ids"][0].tolist().index(tok.mask_token_id)
    logprobs = logits[position].log_softmax(-1)
    ids = {w: tok.convert_tokens_to_ids(w) for w in words}
    return sorted(words, key=lambda w: (-logprobs[ids[w]].item(), ids[w]))[:k]


def test_name_answers_equal_a_plain_forward_among_the_common_vocabulary(tiny_bert):
    space = AnswerSpace.of(tiny_bert.tokenizer, "common", LOWER)
    assert space.words == sorted(LOWER, key=tiny_bert.tokenizer.convert_tokens_to_ids), "all single tokens, by id"
    queries = [("city", "Jean"), ("country", "Albert"), ("language", "Bruce")]
    answers = name_answers(tiny_bert, queries, space, top_k=3, progress=False)
    for kind, part in queries:
        text = uhn.query_text(kind, part, tiny_bert.tokenizer.mask_token)
        assert answers[kind, part] == plain_top_words(tiny_bert, text, space.words, 3)


def test_the_full_vocabulary_reads_every_piece_as_lamas_uhn_script_does(tiny_bert):
    """create_lama_uhn.py: torch.topk over all the logits at [MASK], the pieces' strings compared."""
    tok = tiny_bert.tokenizer
    space = AnswerSpace.of(tok, "full", [])
    assert space.ids == list(range(len(tok))) and tok.mask_token_id in space.ids, "special tokens included"
    assert space.words == tok.convert_ids_to_tokens(space.ids)
    queries = [("city", "Jean"), ("country", "Albert"), ("language", "Bruce")]
    answers = name_answers(tiny_bert, queries, space, top_k=3, progress=False)
    for kind, part in queries:
        text = uhn.query_text(kind, part, tok.mask_token)
        enc = tok(text, return_tensors="pt")
        with torch.no_grad():
            logits = tiny_bert.model(**enc).logits[0]
        at_mask = logits[enc["input_ids"][0].tolist().index(tok.mask_token_id)]
        assert answers[kind, part] == tok.convert_ids_to_tokens(torch.topk(at_mask, k=3).indices.tolist())


def test_an_empty_answer_space_answers_nothing_and_an_unknown_one_is_refused(tiny_bert):
    empty = AnswerSpace.of(tiny_bert.tokenizer, "common", ["Zyzzyva"])
    assert name_answers(tiny_bert, [("city", "Jean")], empty, progress=False) == {("city", "Jean"): []}
    with pytest.raises(ValueError, match="unknown LAMA-UHN vocabulary 'some'"):
        AnswerSpace.of(tiny_bert.tokenizer, "some", COMMON)


def test_the_person_name_filter_needs_a_masked_model(tiny_gpt2):
    data = facts([{"relation": "P19", "sub_label": "Jean Marais", "obj_label": "Paris"}])
    with pytest.raises(ValueError, match="'tiny-gpt2' is a causal LM; the LAMA-UHN person-name filter needs a masked"):
        score_name_hits(tiny_gpt2, data, COMMON)


def test_the_filter_job_writes_each_name_facts_hits_with_its_settings(tiny_dir, tmp_path: Path):
    from lmprobes.io import write_parquet
    from lmprobes.suites.lama.release import SCHEMA

    rows = [{"relation": "P19", "sub_label": "Jean Marais", "obj_label": "Baghdad"},
            {"relation": "P27", "sub_label": "Ole Bull", "obj_label": "China"},
            {"relation": "P30", "sub_label": "Kenya", "obj_label": "Baghdad"}]
    data = facts(rows).reindex(columns=SCHEMA.names).astype(object)
    data = data.where(data.notna(), None)
    dataset = tmp_path / "trex.parquet"
    write_parquet(data, dataset, SCHEMA, {"dataset": "trex"})
    cased, lowercased = tmp_path / "common_vocab_cased.txt", tmp_path / "common_vocab_lowercased.txt"
    cased.write_text("\n".join(COMMON) + "\n")
    lowercased.write_text("\n".join(w.lower() for w in COMMON) + "\n")
    out = tmp_path / "uhn" / "trex.parquet"
    score_uhn_names(dataset, {"cased": cased, "lowercase": lowercased}, tiny_dir("bert"), out, slug="tiny-bert",
                    spec={"tiny": {"arch": "bert"}, "family": "masked", "batch_tokens": 256}, device="cpu",
                    vocabulary="common", top_k=len(COMMON), progress=False)
    hits = read_parquet(out)
    # The tiny BERT lowercases, so its answers come from the lowercased vocabulary and are compared
    # lowercased; top_k spans the whole answer space: every object in it is a hit for every name part.
    assert hits["row_id"].tolist() == ["trex:0", "trex:1"]
    assert [list(h) for h in hits["name_hits"]] == [["Jean", "Marais"], ["Ole", "Bull"]]
    meta = read_metadata(out)
    assert (meta["dataset"], meta["top_k"], meta["vocabulary"], meta["facts"]) == ("trex", len(COMMON), "common", 2)
    assert meta["case"] == "lowercase"
    assert meta["template"] == uhn.NAME_TEMPLATE


def test_the_filter_job_reads_no_common_vocabulary_for_the_full_answer_space(tiny_dir, tmp_path: Path):
    from lmprobes.io import write_parquet
    from lmprobes.suites.lama.release import SCHEMA

    rows = [{"relation": "P19", "sub_label": "Jean Marais", "obj_label": "Baghdad"}]
    data = facts(rows).reindex(columns=SCHEMA.names).astype(object)
    dataset = tmp_path / "trex.parquet"
    write_parquet(data.where(data.notna(), None), dataset, SCHEMA, {"dataset": "trex"})
    out = tmp_path / "uhn" / "trex.parquet"
    score_uhn_names(dataset, {"cased": None, "lowercase": None}, tiny_dir("bert"), out, slug="tiny-bert",
                    spec={"tiny": {"arch": "bert"}, "family": "masked", "batch_tokens": 256}, device="cpu",
                    vocabulary="full", top_k=3, progress=False)
    assert read_parquet(out)["row_id"].tolist() == ["trex:0"] and read_metadata(out)["vocabulary"] == "full"
    with pytest.raises(ValueError, match="no lowercase common vocabulary was given"):
        score_uhn_names(dataset, {"cased": None, "lowercase": None}, tiny_dir("bert"), out, slug="tiny-bert",
                        spec={"tiny": {"arch": "bert"}, "family": "masked", "batch_tokens": 256}, device="cpu",
                        vocabulary="common", top_k=3, progress=False)
