"""Encyclopedic composition's single-hop facts: bridges of the composed questions looked up on a fake
Wikidata query service (127.0.0.1), the two single-hop items of each, and the first fine-tuning stage
on them that the MC-QA curves start from."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import torch

from fake_bridges import FakeBridgeService
from lmprobes.suites.lama.wikidata import SparqlClient
from lmprobes.suites.olmpics import mcqa
from lmprobes.suites.olmpics.hyperparameters import TRANSFORMER
from lmprobes.suites.olmpics.mcqa import McQaError, load_encoder, mc_qa_curves, single_hop_stage
from lmprobes.suites.olmpics.schema import SCHEMA, make_item
from lmprobes.suites.olmpics.single_hop import SingleHopError, parse_question, single_hop_items
from lmprobes.suites.olmpics.stage_one import METADATA_KEY, StageOneError, load_stage_one, save_stage_one
from lmprobes.suites.olmpics.training import with_overrides
from loopback import serve_http

UA = "lmprobes-tests/0.1 (https://example.org/lmprobes; tests@example.org)"
TASK = "encyclopedic_composition"
NFD_NAME = "Slobodan Kovac\u030cevic\u0301"  # as the release spells it
NFC_NAME = "Slobodan Kovačević"

# Per question type's property, the rows the service knows: (entity label, bridge id, bridge label, answer).
KNOWN = {
    "wdt:P527": [
        (NFC_NAME, "Q9", "Bijelo Dugme", "1970-01-01T00:00:00Z"),
        (NFC_NAME, "Q5", "Indexi", "1962-01-01T00:00:00Z"),
        (NFC_NAME, "Q3", "Roboti", "1962-05-01T00:00:00Z"),  # also 1962: the smaller id is kept
        ("Justin Young", "Q11", "The Vaccines", "2010-01-01T00:00:00Z"),
        ("Reine Fiske", "Q12", "Dungen", "1999-01-01T00:00:00Z"),
        ("Orelsan", "Q13", "Casseurs Flowters", "2004-01-01T00:00:00Z"),
    ],
    "wdt:P161": [
        ("What Have You Done to Solange?", "Q21", "Fabio Testi", "Lola Falana"),
        ("Olympia", "Q22", "Some Actor", "Some Spouse"),
    ],
    "wdt:P112": [("Bill Gates", "Q2283", "Microsoft", "Redmond")],
}


def composed(split: str, row: int, stem: str, choices: list[str], answer: int) -> dict:
    return make_item(TASK, "release", "standard", split, row, id=f"q{split}{row}", stem=stem, choices=choices,
                     answer=answer)


def band(name: str) -> str:
    return f"when did the band where {name} played first form?"


QUESTIONS = pd.DataFrame.from_records([
    composed("train", 1, band(NFD_NAME), ["1962", "1964", "1961"], 0),
    composed("train", 2, band("Justin Young"), ["2008", "2010", "2011"], 1),
    composed("train", 3, band("Reine Fiske"), ["1999", "2000", "2001"], 0),
    composed("dev", 1, band("Orelsan"), ["2003", "2005", "2004"], 2),
    composed("dev", 2, band("Nobody Known"), ["1990", "1991", "1992"], 0),  # no bridge: left out
    composed("train", 4, "who is the spouse of the actor that played in What Have You Done to Solange??",
             ["Ann", "Lola Falana", "Sue"], 1),
    composed("dev", 3, "where is the headquarters of the company that Bill Gates established located?",
             ["Seattle", "Redmond", "Boston"], 1),
], columns=SCHEMA.names)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    service = FakeBridgeService(KNOWN)
    cache = tmp_path_factory.mktemp("wikidata_cache")
    with serve_http(service.respond) as url:
        client = SparqlClient(f"{url}/sparql", cache_dir=cache, user_agent=UA, min_interval=0)
        items, counts = single_hop_items(QUESTIONS, client, seed=3)
        sent = len(service.labels)
        again, _ = single_hop_items(QUESTIONS, client, seed=3)  # every answer from the cache
    return service, items, counts, sent, again


def test_the_three_questions_are_parsed_entity_and_all():
    assert parse_question(band(NFD_NAME)) == ("band_inception", NFD_NAME)
    assert parse_question("who is the spouse of the actor that played in What Have You Done to Solange??") == (
        "film_spouse", "What Have You Done to Solange?")
    assert parse_question("where is the headquarters of the company that Bill Gates established located?") == (
        "company_headquarters", "Bill Gates")
    assert parse_question("what is related to dog") is None


def test_bridges_are_looked_up_by_nfc_label_once_and_then_come_from_the_cache(built):
    service, items, counts, sent, again = built
    assert NFC_NAME in service.labels and NFD_NAME not in service.labels
    assert len(service.labels) == sent, "the second build sent nothing"
    pd.testing.assert_frame_equal(items, again)
    # One film and one company: too few other bridges and answers for two distractors, so no hop made.
    assert counts == {"band_inception": {"questions": 5, "with_bridge": 4, "hop1": 4, "hop2": 4},
                      "film_spouse": {"questions": 1, "with_bridge": 1, "hop1": 0, "hop2": 0},
                      "company_headquarters": {"questions": 1, "with_bridge": 1, "hop1": 0, "hop2": 0}}


def test_the_bridge_is_the_smallest_id_whose_answer_is_the_gold_answer(built):
    items = built[1]
    first = items[items["provenance"].str.contains('"question":"encyclopedic_composition:release:standard:train:1"')]
    assert {json.loads(p)["bridge"] for p in first["provenance"]} == {"Q3"}
    hop2 = first[first["template_id"].str.endswith("hop2")].iloc[0]
    assert hop2["stem"] == "when did Roboti first form?"
    assert hop2["choices"][hop2["answer"]] == "1962"


def test_first_hops_hold_the_bridge_against_bridges_the_entity_does_not_reach(built):
    items = built[1]
    hop1 = items[items["template_id"] == f"{TASK}/band_inception/hop1"]
    assert len(hop1) == 4
    row = hop1[hop1["stem"] == f"which band did {NFD_NAME} play in?"].iloc[0]
    assert row["choices"][row["answer"]] == "Roboti"
    others = set(row["choices"]) - {"Roboti"}
    assert len(others) == 2 and others <= {"The Vaccines", "Dungen", "Casseurs Flowters"}
    # One film and one company: too few other bridges and answers for two distractors, so no item.
    assert set(items["template_id"]) == {f"{TASK}/band_inception/hop1", f"{TASK}/band_inception/hop2"}
    assert list(items["split"]).count("dev") == 2 and list(items["row_id"]) == sorted(set(items["row_id"]), key=list(
        items["row_id"]).index)


def test_second_hops_hold_the_gold_against_other_answers_never_the_composed_distractors(built):
    items = built[1]
    hop2 = items[items["template_id"] == f"{TASK}/band_inception/hop2"].set_index("stem")
    golds = {"1962", "2010", "1999", "2004"}  # the band questions' answers that have a bridge
    for bridge, composed_choices, gold in (("Roboti", ["1962", "1964", "1961"], "1962"),
                                           ("Casseurs Flowters", ["2003", "2005", "2004"], "2004")):
        row = hop2.loc[f"when did {bridge} first form?"]
        assert row["choices"][row["answer"]] == gold
        distractors = set(row["choices"]) - {gold}
        assert len(distractors) == 2 and distractors <= golds - {gold} and not distractors & set(composed_choices)


def test_a_decade_inception_is_no_bridge_year(tmp_path):
    """A band's "1960s" (precision 8, stored as 1960-01-01) does not make 1960 its inception year, even
    from a service that ignored the query's FILTER; its year-precision statement of another band does."""
    questions = pd.DataFrame.from_records([composed("train", 1, band("Decade Player"), ["1960", "1961", "1962"], 0),
                                           composed("train", 2, band("Year Player"), ["1960", "1958", "1959"], 0)],
                                          columns=SCHEMA.names)
    service = FakeBridgeService({"wdt:P527": [("Decade Player", "Q7", "Decade Band", "1960-01-01T00:00:00Z", 8),
                                              ("Year Player", "Q8", "Year Band", "1960-01-01T00:00:00Z", 9)]})
    with serve_http(service.respond) as url:
        client = SparqlClient(f"{url}/sparql", cache_dir=tmp_path, user_agent=UA, min_interval=0)
        _, counts = single_hop_items(questions, client, seed=0)
    assert counts["band_inception"]["with_bridge"] == 1


@pytest.mark.parametrize("kind", ["band_inception", "film_spouse", "company_headquarters"])
def test_second_hop_distractors_are_none_of_the_bridges_own_answers(tmp_path, kind):
    """A band with two inception years (both best rank), an actor with two spouses, a company with two
    headquarters: the bridge's other answer, another question's gold answer, is no distractor of its
    second hop."""
    stems = {"band_inception": band, "film_spouse": lambda e: f"who is the spouse of the actor that played in {e}?",
             "company_headquarters": lambda e: f"where is the headquarters of the company that {e} established located?"}
    prop = {"band_inception": "wdt:P527", "film_spouse": "wdt:P161", "company_headquarters": "wdt:P112"}[kind]
    golds = ["2010", "2012", "1999", "2004"] if kind == "band_inception" else ["Alpha", "Beta", "Gamma", "Delta"]

    def answer(gold: str) -> str:
        return f"{gold}-01-01T00:00:00Z" if kind == "band_inception" else gold

    known = [(f"Entity {n}", f"Q{10 + n}", f"Bridge {n}", answer(gold)) for n, gold in enumerate(golds)]
    known.append(("Entity 0", "Q10", "Bridge 0", answer(golds[1])))  # the first bridge's second answer
    questions = pd.DataFrame.from_records(
        [composed("train", n + 1, stems[kind](f"Entity {n}"), [gold, f"other {n}a", f"other {n}b"], 0)
         for n, gold in enumerate(golds)], columns=SCHEMA.names)
    checked = 0
    for seed in range(12):
        with serve_http(FakeBridgeService({prop: known}).respond) as url:
            client = SparqlClient(f"{url}/sparql", cache_dir=tmp_path / str(seed), user_agent=UA, min_interval=0)
            items, _ = single_hop_items(questions, client, seed=seed)
        hop2 = items[items["template_id"] == f"{TASK}/{kind}/hop2"]
        row = hop2[hop2["arguments"].str.contains('"bridge":"Bridge 0"')].iloc[0]
        assert row["choices"][row["answer"]] == golds[0]
        assert set(row["choices"]) == {golds[0], golds[2], golds[3]}, (seed, row["choices"])
        checked += 1
    assert checked == 12


def test_no_question_or_a_foreign_stem_is_refused_naming_it(tmp_path):
    client = SparqlClient("http://127.0.0.1:9/sparql", cache_dir=tmp_path, user_agent=UA, min_interval=0)
    with pytest.raises(SingleHopError, match="no encyclopedic_composition questions"):
        single_hop_items(QUESTIONS.iloc[0:0], client, seed=0)
    odd = QUESTIONS.copy()
    odd.loc[2, "stem"] = "who founded the band?"
    with pytest.raises(SingleHopError, match=r"1 encyclopedic_composition stems .*train:3"):
        single_hop_items(odd, client, seed=0)


def test_no_bridge_at_all_is_an_error_that_says_how_to_go_without(tmp_path):
    with serve_http(FakeBridgeService(KNOWN).respond) as url:
        client = SparqlClient(f"{url}/sparql", cache_dir=tmp_path, user_agent=UA, min_interval=0)
        with pytest.raises(SingleHopError, match=r"no encyclopedic_composition question reached.*single_hop: false"):
            single_hop_items(QUESTIONS[QUESTIONS["stem"] == band("Nobody Known")], client, seed=0)


def test_labels_are_sparql_string_literals_with_echar_escapes():
    from lmprobes.suites.olmpics.single_hop import band_lookup

    query = band_lookup(['Carriage\rreturn', 'Line\nfeed\tand "quote" \\ slash'])
    assert ('VALUES ?memberLabel { "Carriage\\rreturn"@en "Line\\nfeed\\tand \\"quote\\" \\\\ slash"@en }\n'
            in query)
    assert not {"\r", "\t"} & set(query) and query.count("\n") == band_lookup(["x"]).count("\n")


def test_a_label_with_a_carriage_return_or_a_tab_reaches_its_bridge(tmp_path):
    """The service reads the escapes back (a raw line break in a literal is a MalformedQueryException)."""
    name = "Odd\rName\tHere"
    questions = pd.DataFrame.from_records([composed("train", 1, band(name), ["1962", "1964", "1961"], 0)],
                                          columns=SCHEMA.names)
    service = FakeBridgeService({"wdt:P527": [(name, "Q7", "Odd Band", "1962-01-01T00:00:00Z")]})
    with serve_http(service.respond) as url:
        client = SparqlClient(f"{url}/sparql", cache_dir=tmp_path, user_agent=UA, min_interval=0)
        _, counts = single_hop_items(questions, client, seed=0)
    assert service.labels == [name]
    assert counts["band_inception"]["with_bridge"] == 1


def test_the_job_asks_with_the_configs_download_settings(tmp_path, monkeypatch):
    from lmprobes import sources
    from lmprobes.io import write_parquet
    from lmprobes.suites.lama.wikidata import WikidataError
    from lmprobes.suites.olmpics.pipeline import make_single_hop
    from loopback import send

    sleeps: list[float] = []
    monkeypatch.setattr(sources, "_sleep", sleeps.append)
    release = tmp_path / "release.parquet"
    write_parquet(QUESTIONS[QUESTIONS["stem"] != band("Nobody Known")], release, SCHEMA, {})
    service, busy = FakeBridgeService(KNOWN), [2]

    def respond(handler) -> None:
        if busy[0]:
            busy[0] -= 1
            handler.rfile.read(int(handler.headers["Content-Length"]))
            send(handler, 503, b"service busy")
        else:
            service.respond(handler)

    download = {"timeout": 5.0, "retries": 1, "backoff": 0.25}  # not the client's 5 retries and 2 s back-off
    with serve_http(respond) as url:
        wikidata = {"endpoint": f"{url}/sparql", "cache": str(tmp_path / "cache"), "user_agent": UA, "min_interval": 0}
        with pytest.raises(WikidataError, match=r"after 2 attempts: HTTP 503 .*service busy"):
            make_single_hop(release, tmp_path / "single_hop.parquet", seed=3, wikidata=wikidata, provenance={},
                            download=download)
        assert sleeps == [0.25] and not (tmp_path / "single_hop.parquet").exists()
        make_single_hop(release, tmp_path / "single_hop.parquet", seed=3, wikidata=wikidata, provenance={},
                        download=download)
    assert (tmp_path / "single_hop.parquet").exists()


FAST = with_overrides(TRANSFORMER, lr=1e-3, epochs=1, batch_size=4)


def qa_items(built) -> tuple[pd.DataFrame, pd.DataFrame]:
    items = built[1]
    return QUESTIONS[QUESTIONS["stem"] != band("Nobody Known")], items


@pytest.fixture(scope="module")
def stages(built, tiny_dir, tmp_path_factory):
    """The single-hop stage of seeds 1 and 2, in memory and saved."""
    folder = tmp_path_factory.mktemp("stage_one")
    made, paths = {}, []
    for seed in (1, 2):
        made[seed] = single_hop_stage(tiny_dir("bert"), {"family": "masked"}, qa_items(built)[1], seed=seed, hp=FAST,
                                      device="cpu", slug="tiny-bert", pooling="first")
        paths.append(folder / f"seed{seed}.safetensors")
        save_stage_one(made[seed], paths[-1])
    return made, paths


CURVE_KWARGS = {"grid": (2, 4), "seeds": (1, 2), "hp": FAST, "device": "cpu", "pooling": "first", "slug": "tiny-bert"}


def test_the_stage_is_a_fine_tuning_on_every_single_hop_item_and_saves_exactly(built, stages, tiny_dir, tmp_path):
    made, paths = stages
    single_hop = qa_items(built)[1]
    pretrained = load_encoder(tiny_dir("bert"), slug="tiny-bert", device=torch.device("cpu"))
    stage = made[1]
    assert (stage.model, stage.seed, stage.pooling, stage.items) == ("tiny-bert", 1, "first", len(single_hop))
    assert set(stage.encoder) == set(pretrained.initial_state) and set(stage.head) == {"weight", "bias"}
    moved = [name for name, value in stage.encoder.items() if not torch.equal(value, pretrained.initial_state[name])]
    assert "encoder.layer.0.attention.self.query.weight" in moved, "the stage trains the whole encoder"
    assert not torch.equal(made[1].head["weight"], made[2].head["weight"]), "each seed draws its own head"
    loaded = load_stage_one(paths[0])
    assert loaded.describe() == stage.describe()
    assert all(torch.equal(loaded.encoder[name], value) for name, value in stage.encoder.items())
    assert all(torch.equal(loaded.head[name], value) for name, value in stage.head.items())
    save_stage_one(loaded, tmp_path / "again.safetensors")
    assert (tmp_path / "again.safetensors").read_bytes() == paths[0].read_bytes()


def test_each_seeds_runs_start_from_its_stage_in_every_run(built, stages, tiny_dir, monkeypatch):
    made, paths = stages
    composed_items = qa_items(built)[0]
    starts = []
    fine_tune = mcqa.fine_tune

    def spy(pretrained, *args, **kwargs):
        starts.append((kwargs["seed"], pretrained.initial_state, pretrained.fresh_keys, kwargs["head_state"]))
        return fine_tune(pretrained, *args, **kwargs)

    monkeypatch.setattr(mcqa, "fine_tune", spy)
    warm = mc_qa_curves(tiny_dir("bert"), {"family": "masked"}, composed_items, stage_one=made, **CURVE_KWARGS)
    assert list(zip(warm["n_train"], warm["seed"])) == [(2, 1), (2, 2), (4, 1), (4, 2)]
    assert [seed for seed, *_ in starts] == [1, 2, 1, 2]
    for seed, state, fresh, head in starts:
        assert state is made[seed].encoder and head is made[seed].head and fresh == (), "nothing left to draw"
    starts.clear()
    mc_qa_curves(tiny_dir("bert"), {"family": "masked"}, composed_items, **CURVE_KWARGS)
    assert all(fresh and head is None for _, _, fresh, head in starts), "cold runs draw the pooler and head"
    # From the saved files, the same curves as from the stage in memory.
    monkeypatch.undo()
    saved = {stage.seed: stage for stage in map(load_stage_one, paths)}
    from_files = mc_qa_curves(tiny_dir("bert"), {"family": "masked"}, composed_items, stage_one=saved, **CURVE_KWARGS)
    pd.testing.assert_frame_equal(warm, from_files)


def test_a_stage_missing_a_seed_or_made_for_another_run_is_refused(built, stages, tiny_dir):
    made, _ = stages
    composed_items = qa_items(built)[0]
    with pytest.raises(McQaError, match=r"no single-hop stage for seeds \[2\]"):
        mc_qa_curves(tiny_dir("bert"), {"family": "masked"}, composed_items, stage_one={1: made[1]}, **CURVE_KWARGS)
    with pytest.raises(McQaError, match="made for model 'tiny-bert', seed 1, pooling 'first'"):
        mc_qa_curves(tiny_dir("bert"), {"family": "masked"}, composed_items, stage_one={1: made[1], 2: made[1]},
                     **CURVE_KWARGS)
    with pytest.raises(McQaError, match="made for model 'tiny-bert'"):
        mc_qa_curves(tiny_dir("bert"), {"family": "masked"}, composed_items, stage_one=made,
                     **{**CURVE_KWARGS, "slug": "other-bert"})


def test_a_stage_without_dev_rows_or_for_a_causal_model_is_refused(built, tiny_dir):
    single_hop = qa_items(built)[1]
    with pytest.raises(McQaError, match="dev split"):
        single_hop_stage(tiny_dir("bert"), {"family": "masked"}, single_hop[single_hop["split"] == "train"], seed=1,
                         hp=FAST, device="cpu")
    with pytest.raises(McQaError, match="'tiny-gpt2' is a 'causal' model"):
        single_hop_stage(tiny_dir("gpt2"), {"family": "causal"}, single_hop, seed=1, slug="tiny-gpt2", device="cpu")


def test_a_file_that_is_not_a_stage_is_refused_naming_it(stages, tmp_path):
    _, paths = stages
    (tmp_path / "junk.safetensors").write_bytes(b"not a safetensors file")
    with pytest.raises(StageOneError, match="junk.safetensors: not a single-hop stage file"):
        load_stage_one(tmp_path / "junk.safetensors")
    from safetensors.torch import load_file, save_file

    save_file(load_file(paths[0]), tmp_path / "bare.safetensors")  # the tensors, no metadata
    with pytest.raises(StageOneError, match="bare.safetensors: not a single-hop stage file"):
        load_stage_one(tmp_path / "bare.safetensors")
    for name, metadata in (("nomodel", {"format_version": 1, "seed": 1, "pooling": "first", "items": 8}),
                           ("listed", [1, 2])):
        save_file(load_file(paths[0]), tmp_path / f"{name}.safetensors", metadata={METADATA_KEY: json.dumps(metadata)})
        with pytest.raises(StageOneError, match=f"{name}.safetensors: the stage's metadata lacks"):
            load_stage_one(tmp_path / f"{name}.safetensors")


def test_the_dataset_and_curve_files_record_the_first_stage(tmp_path, tiny_dir):
    from lmprobes.io import read_metadata, read_parquet, write_parquet
    from lmprobes.suites.olmpics.learning import mc_qa_seed_file, single_hop_stage_file
    from lmprobes.suites.olmpics.pipeline import make_single_hop

    release, controls = tmp_path / "release.parquet", tmp_path / "controls.parquet"
    questions = QUESTIONS[QUESTIONS["stem"] != band("Nobody Known")]
    write_parquet(questions, release, SCHEMA, {})
    write_parquet(questions.iloc[0:0], controls, SCHEMA, {})
    service = FakeBridgeService(KNOWN)
    with serve_http(service.respond) as url:
        wikidata = {"endpoint": f"{url}/sparql", "cache": str(tmp_path / "cache"), "user_agent": UA, "min_interval": 0}
        make_single_hop(release, tmp_path / "single_hop.parquet", seed=3, wikidata=wikidata,
                        provenance={"wikidata": wikidata["endpoint"]})
    metadata = read_metadata(tmp_path / "single_hop.parquet")
    assert metadata["dataset"] == "single_hop" and metadata["seed"] == 3
    assert metadata["bridges"]["band_inception"] == {"questions": 4, "with_bridge": 4, "hop1": 4, "hop2": 4}
    assert metadata["bridges"]["film_spouse"] == {"questions": 1, "with_bridge": 1, "hop1": 0, "hop2": 0}
    facts = read_parquet(tmp_path / "single_hop.parquet")
    curves = {"grid": [2], "training": {"mc_qa": {"epochs": 1, "batch_size": 4}}}
    out = tmp_path / "curves.parquet"
    stage = tmp_path / "stage" / "seed1.safetensors"
    single_hop_stage_file(tmp_path / "single_hop.parquet", tiny_dir("bert"), stage, slug="tiny-bert",
                          spec={"family": "masked"}, seed=1, curves=curves, device="cpu", progress=False)
    assert load_stage_one(stage).describe() == {"format_version": 1, "model": "tiny-bert", "seed": 1,
                                                "pooling": "pooler", "items": 8}
    mc_qa_seed_file(release, controls, tiny_dir("bert"), out, slug="tiny-bert", spec={"family": "masked"},
                    task=TASK, variant="standard", seed=1, curves=curves, device="cpu", progress=False,
                    stage_one=stage)
    metadata = read_metadata(out)
    assert metadata["single_hop_items"] == len(facts) == 8
    assert (metadata["grid"], metadata["seeds"], metadata["mc_qa_segment_ids"]) == ([2], [1], "original")
    trained = metadata["hyper_parameters"]  # the original's MC-QA settings with the config's overrides
    assert (trained["epochs"], trained["batch_size"], trained["lr"], trained["weight_decay"]) == (1, 4, 1e-5, 0.1)
    assert read_parquet(out)["n_train"].tolist() == [2]
    # Table 10's section says how its runs began.
    from pathlib import Path

    from lmprobes.suites.olmpics.learning_report import make_learning_tables

    published = Path(__file__).resolve().parents[1] / "resources/olmpics/published.csv"
    tables = tmp_path / "tables"
    make_learning_tables([out], [], published, [tables / "learning_curves.csv"], [tmp_path / "figure.png"],
                         tasks=[TASK])
    section = (tables / "learning_curves.md").read_text().split("### Table 10")[1]
    assert "first fine-tuned on 8 single-hop facts" in section
