"""Ettinger datasets from the bundled copies of the released TSVs (resources/demo/mirror)."""

import re
from collections import Counter
from pathlib import Path

import pytest

from lmprobes.io import read_metadata, read_parquet
from lmprobes.suites.ettinger import datasets as D
from lmprobes.suites.ettinger.pipeline import make_dataset


@pytest.fixture(scope="module")
def cprag(ettinger_tsvs):
    return D.build_dataset("cprag", ettinger_tsvs["cprag"], shuffles=5, seed=7)


def test_cprag_counts(cprag):
    orig = cprag[cprag["condition"] == "orig"]
    assert orig["item"].nunique() == 34
    assert len(orig) == 102
    assert Counter(orig.drop_duplicates("item")["constraint"]) == {"H": 18, "L": 16}
    assert Counter(cprag["condition"]) == {"orig": 102, "trunc": 102, "shuf": 510, "shuf_trunc": 510}


def test_cprag_context_is_both_sentences(cprag):
    row = cprag[(cprag["item"] == "1") & (cprag["condition"] == "orig") & (cprag["completion"] == "expected")].iloc[0]
    assert row["context"] == "Justin put a second house on Park Place. He and his sister often spent hours playing"
    assert row["target"] == "monopoly" and list(row["expected"]) == ["monopoly"]
    # Every completion of an item, in every condition, keeps the item's expected word.
    item = cprag[cprag["item"] == "1"]
    assert len(item) == 3 * (2 + 2 * 5) and all(list(words) == ["monopoly"] for words in item["expected"])


def test_cprag_truncation_keeps_two_words_before_target(cprag):
    trunc = cprag[(cprag["item"] == "1") & (cprag["condition"] == "trunc")].iloc[0]
    assert trunc["context"] == "Justin put a second house on Park Place. hours playing"


def test_cprag_shuffles_permute_sentence_one_reproducibly(cprag, ettinger_tsvs):
    s1 = "Justin put a second house on Park Place."
    shuf = cprag[(cprag["item"] == "1") & (cprag["condition"] == "shuf") & (cprag["completion"] == "expected")]
    firsts = [c[: -len(" He and his sister often spent hours playing")] for c in shuf["context"]]
    # The released code: periods removed, words shuffled, one period put back before sentence 2.
    assert all(f.endswith(".") and sorted(f[:-1].split()) == sorted(re.sub(r"\.", "", s1).split()) for f in firsts)
    for run, first in enumerate(firsts):
        words = re.sub(r"\.", "", s1).split()
        D.shuffle_rng(7, "1", run).shuffle(words)
        assert first == " ".join(words) + "."
    assert len(set(firsts)) > 1, "runs must differ"
    again = D.build_dataset("cprag", ettinger_tsvs["cprag"], shuffles=5, seed=7)
    assert again.equals(cprag)
    other_seed = D.build_dataset("cprag", ettinger_tsvs["cprag"], shuffles=5, seed=8)
    assert not other_seed["context"].equals(cprag["context"])
    shuf_trunc = cprag[(cprag["item"] == "1") & (cprag["condition"] == "shuf_trunc") & (cprag["completion"] == "expected")]
    assert [c.removesuffix(" hours playing") for c in shuf_trunc["context"]] == firsts


def test_each_item_shuffles_its_own_way(tmp_path):
    """One stream per (item, run): two items with the same first sentence are shuffled apart."""
    rows = [f"{item}\tOne two three four five six.\tHe was a good\treceiver\tquarterback\tbrother\tH" for item in (1, 2)]
    path = _write(tmp_path / "C.tsv", "\n".join([CPRAG_HEADER, *rows]) + "\n")
    shuf = D.build_dataset("cprag", path, shuffles=5, seed=7).query("condition == 'shuf' and completion == 'expected'")
    firsts = {item: shuf.loc[shuf["item"] == item, "context"].tolist() for item in ("1", "2")}
    assert firsts["1"] != firsts["2"]


def test_role_counts_and_bins(ettinger_tsvs):
    role = D.build_dataset("role", ettinger_tsvs["role"])
    orig = role[role["condition"] == "orig"]
    assert len(orig) == 88 and orig["pair"].nunique() == 44
    assert Counter(orig["role"]) == {"a": 44, "b": 44}
    assert Counter(orig["cloze_bin"]) == {"<=0.17": 25, "<=0.23": 23, "<=0.33": 23, "<=0.77": 17}
    assert len(role) == 4 * 88


def test_role_perturbations_and_targets(ettinger_tsvs):
    role = D.build_dataset("role", ettinger_tsvs["role"]).set_index("row_id")
    assert role.loc["68-a:orig", "context"] == "the restaurant owner forgot which customer the waitress had"
    assert role.loc["68-a:obj", "context"] == "the restaurant owner forgot which one the waitress had"
    assert role.loc["68-a:sub", "context"] == "the restaurant owner forgot which customer the other had"
    assert role.loc["68-a:both", "context"] == "the restaurant owner forgot which one the other had"
    # Multiword alternatives count by their first word, as in the released code.
    assert list(role.loc["71-b:orig", "expected"]) == ["worked"]
    assert list(role.loc["61-b:orig", "expected"]) == ["avoided", "hated", "read", "met"]
    assert role.loc["61-b:orig", "target"] == "interviewed"


def test_neg_simp_determiner_follows_each_target(ettinger_tsvs):
    neg = D.build_dataset("neg_simp", ettinger_tsvs["neg_simp"]).set_index("row_id")
    assert len(neg) == 72
    # hammer: true target 'tool' (a), false target 'insect' (an)
    assert neg.loc["12:TA", "context"] == "A hammer is a" and neg.loc["12:TA", "target"] == "tool"
    assert neg.loc["12:FA", "context"] == "A hammer is an" and neg.loc["12:FA", "target"] == "insect"
    assert neg.loc["12:TN", "context"] == "A hammer is not an" and neg.loc["12:TN", "target"] == "insect"
    assert neg.loc["12:FN", "context"] == "A hammer is not a" and neg.loc["12:FN", "target"] == "tool"
    assert bool(neg.loc["12:TN", "truth"]) and not bool(neg.loc["12:FN", "truth"])
    assert list(neg.loc["12:FN", "expected"]) == ["insect"]
    # Each condition's expected word is the true completion of its context: target_aff after an
    # affirmative context, target_neg after a negative one.
    for row_id, row in neg.iterrows():
        condition = row_id.split(":")[1]
        true = row["target"] if row["truth"] else neg.loc[row_id.replace(condition, TRUE_OF[condition]), "target"]
        assert list(row["expected"]) == [true], row_id


# The condition whose target is the true completion of a condition's context.
TRUE_OF = {"TA": "TA", "FA": "TA", "TN": "TN", "FN": "TN"}


@pytest.mark.parametrize(("word", "article"), [("apple", "an"), ("egg", "an"), ("insect", "an"), ("owl", "an"),
                                               ("umbrella", "an"), ("tool", "a"), ("bird", "a"), ("yak", "a")])
def test_neg_simp_article_is_an_before_a_vowel_letter(word, article):
    assert D.indefinite_article(word) == article


def test_neg_nat_conditions_and_licensing(ettinger_tsvs):
    nat = D.build_dataset("neg_nat", ettinger_tsvs["neg_nat"])
    assert len(nat) == 64
    assert Counter(nat.drop_duplicates("item")["licensing"]) == {"Y": 8, "N": 8}
    row = nat.set_index("row_id").loc["5:TN"]
    assert row["context"] == "Most smokers find that quitting isn't very" and row["target"] == "easy"


def test_parquet_is_byte_identical_and_carries_provenance(tmp_path, ettinger_tsvs):
    provenance = {"url": "https://example.org/CPRAG-102.tsv", "sha256": "ab" * 32}
    for name in ("a.parquet", "b.parquet"):
        make_dataset("cprag", ettinger_tsvs["cprag"], tmp_path / name, shuffles=3, seed=1, provenance=provenance)
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    meta = read_metadata(tmp_path / "a.parquet")
    assert meta["source_sha256"] == "ab" * 32 and meta["seed"] == 1 and meta["shuffles"] == 3
    assert len(read_parquet(tmp_path / "a.parquet")) == 34 * 3 * (2 + 2 * 3)


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_missing_column_names_file_and_column(tmp_path):
    bad = _write(tmp_path / "CPRAG.tsv", "item\tcontext_s1\tcontext_s2\texpected\twithin_category\tconstraint\n0\ta\tb\tc\td\tH\n")
    with pytest.raises(D.DatasetError, match=r"CPRAG\.tsv.*between_category"):
        D.build_dataset("cprag", bad)


def test_wrong_field_count_names_line(tmp_path):
    header = "\t".join(D.REGISTRY["neg_simp"].columns)
    bad = _write(tmp_path / "NEG.tsv", f"{header}\n0\tA trout is (a|an)\tA trout is not (a|an)\tfish\n")
    with pytest.raises(D.DatasetError, match=r"NEG\.tsv:2: 4 fields"):
        D.build_dataset("neg_simp", bad)


def test_role_pair_without_partner_is_refused(tmp_path):
    header = "\t".join(D.REGISTRY["role"].columns)
    bad = _write(tmp_path / "ROLE.tsv", f"{header}\n1-a\tthe cat had \tseen\t0.5\tseen\t0.5\t0.5\n")
    with pytest.raises(D.DatasetError, match=r"ROLE\.tsv.*\['1'\]"):
        D.build_dataset("role", bad)


def test_role_pair_whose_sentences_name_different_targets_is_refused(tmp_path):
    header = "\t".join(D.REGISTRY["role"].columns)
    rows = ["1-a\tthe cop arrested the\tcrook\t0.5\tcrook\t0.5\t0.5", "1-b\tthe crook arrested the\tcop\t0.5\tcop\t0.5\t0.5"]
    bad = _write(tmp_path / "ROLE.tsv", "\n".join([header, *rows]) + "\n")
    with pytest.raises(D.DatasetError, match=r"ROLE\.tsv:3: pair 1's sentences name different targets \('crook' and 'cop'\)"):
        D.build_dataset("role", bad)
    assert len(D.build_dataset("role", _write(tmp_path / "ROLE.tsv", "\n".join([header, rows[0], rows[1].replace("\tcop\t0.5\t0.5", "\tcrook\t0.5\t0.5")]) + "\n")))


def test_bad_values_name_the_item(tmp_path):
    header = "\t".join(D.REGISTRY["cprag"].columns)
    bad = _write(tmp_path / "C.tsv", f"{header}\n7\ts one.\ts two\tx\ty\tz\tM\n")
    with pytest.raises(D.DatasetError, match=r"item '7'.*constraint"):
        D.build_dataset("cprag", bad)


def test_failed_build_leaves_no_output(tmp_path):
    bad = _write(tmp_path / "C.tsv", "item\tcontext_s1\n")
    out = tmp_path / "out.parquet"
    with pytest.raises(D.DatasetError):
        make_dataset("cprag", bad, out, shuffles=1, seed=0, provenance={})
    assert not out.exists() and list(tmp_path.iterdir()) == [bad]


def _role_file(tmp_path: Path, row_a: str) -> Path:
    header = "\t".join(D.REGISTRY["role"].columns)
    return _write(tmp_path / "ROLE.tsv", f"{header}\n{row_a}\n1-b\tthe crook arrested the\tcop\t0.5\tcrook\t0.5\t0.5\n")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ("crook\t35.0\tcrook\t0.5\t0.5", "exp_cloze must be a probability from 0 to 1, got 35.0"),
        ("crook\t0.5\tcrook\t-4\t0.5", "tgt_cloze must be a probability from 0 to 1, got -4.0"),
        ("crook\t0.5\tcrook\t0.5\t1.01", r"tgt_cloze\(strict\) must be a probability from 0 to 1, got 1.01"),
    ],
)
def test_role_cloze_outside_0_to_1_is_refused(tmp_path, fields, message):
    bad = _role_file(tmp_path, f"1-a\tthe cop arrested the\t{fields}")
    with pytest.raises(D.DatasetError, match=rf"ROLE\.tsv:2: item '1-a': {message}"):
        D.build_dataset("role", bad)


def test_role_target_is_its_first_word(tmp_path):
    """As the released code: a target written with more words is scored as its first."""
    frame = D.build_dataset("role", _role_file(tmp_path, "1-a\tthe cop arrested the\tcrook\t0.5\tcrook now\t0.5\t0.5"))
    assert set(frame["target"]) == {"crook"}


def test_role_cloze_bounds_are_probabilities(tmp_path):
    ok = _role_file(tmp_path, "1-a\tthe cop arrested the\tcrook\t0\tcrook\t1\t1.0")
    assert D.build_dataset("role", ok)["tgt_cloze"].tolist()[:2] == [1.0, 0.5]


@pytest.mark.parametrize("expected", ["", "|", " | "])
def test_role_expected_without_a_word_is_refused(tmp_path, expected):
    bad = _role_file(tmp_path, f"1-a\tthe cop arrested the\t{expected}\t0.5\tcrook\t0.5\t0.5")
    with pytest.raises(D.DatasetError, match=r"ROLE\.tsv:2: item '1-a': empty expected"):
        D.build_dataset("role", bad)


@pytest.mark.parametrize(
    ("aff", "neg", "column"),
    [
        ("A (a|an) robin is", "A robin is not (a|an)", "context_aff"),
        ("A robin is (a|an)", "A robin is not (a|an) thing", "context_neg"),
        ("A (a|an) robin is (a|an)", "A robin is not (a|an)", "context_aff"),
        ("A robin is a", "A robin is not (a|an)", "context_aff"),
    ],
)
def test_neg_simp_context_must_end_with_the_article_slot_once(tmp_path, aff, neg, column):
    header = "\t".join(D.REGISTRY["neg_simp"].columns)
    bad = _write(tmp_path / "NEG.tsv", f"{header}\n1\tA trout is (a|an)\tA trout is not (a|an)\tfish\ttree\n"
                                       f"2\t{aff}\t{neg}\tbird\ttree\n")
    with pytest.raises(D.DatasetError, match=rf"NEG\.tsv:3: item '2': SIMP {column} must end with '\(a\|an\)'"):
        D.build_dataset("neg_simp", bad)


def test_neg_simp_trailing_whitespace_after_the_slot_is_fine(tmp_path):
    header = "\t".join(D.REGISTRY["neg_simp"].columns)
    ok = _write(tmp_path / "NEG.tsv", f"{header}\n1\tA robin is (a|an) \tA robin is not (a|an)  \tbird\ttree\n")
    assert D.build_dataset("neg_simp", ok)["context"].tolist() == [
        "A robin is a", "A robin is a", "A robin is not a", "A robin is not a",
    ]


CPRAG_HEADER = "\t".join(D.REGISTRY["cprag"].columns)
CPRAG_ROW = "1\tHe caught the pass.\tHe was a good\treceiver\tquarterback\tbrother\tH"
NEG_NAT_HEADER = "\t".join(D.REGISTRY["neg_nat"].columns)
NEG_NAT_ROW = "1\tTraveling in Baghdad is very\tTraveling in Baghdad isn't very\tdangerous\tsafe\tY"


@pytest.mark.parametrize(
    ("row", "column"),
    [
        ("2\t\t\treceiver\tquarterback\tbrother\tH", "context_s1"),
        ("2\tHe caught the pass.\t \treceiver\tquarterback\tbrother\tH", "context_s2"),
        ("2\t\u200b\tHe was a good\treceiver\tquarterback\tbrother\tH", "context_s1"),
    ],
)
def test_cprag_empty_context_is_refused(tmp_path, row, column):
    bad = _write(tmp_path / "C.tsv", f"{CPRAG_HEADER}\n{CPRAG_ROW}\n{row}\n")
    with pytest.raises(D.DatasetError, match=rf"C\.tsv:3: item '2': {column} has no word"):
        D.build_dataset("cprag", bad)


@pytest.mark.parametrize("context", ["", "   ", "\u00ad"])
def test_role_empty_context_is_refused(tmp_path, context):
    bad = _role_file(tmp_path, f"1-a\t{context}\tcrook\t0.5\tcrook\t0.5\t0.5")
    with pytest.raises(D.DatasetError, match=r"ROLE\.tsv:2: item '1-a': context has no word"):
        D.build_dataset("role", bad)


@pytest.mark.parametrize(
    ("aff", "neg", "column"),
    [
        ("", "Traveling in Baghdad isn't very", "context_aff"),
        ("Traveling in Baghdad is very", " ", "context_neg"),
    ],
)
def test_neg_nat_empty_context_is_refused(tmp_path, aff, neg, column):
    bad = _write(tmp_path / "NEG.tsv", f"{NEG_NAT_HEADER}\n{NEG_NAT_ROW}\n2\t{aff}\t{neg}\tdangerous\tsafe\tY\n")
    with pytest.raises(D.DatasetError, match=rf"NEG\.tsv:3: item '2': {column} has no word"):
        D.build_dataset("neg_nat", bad)


def test_neg_simp_context_of_only_the_article_slot_is_refused(tmp_path):
    header = "\t".join(D.REGISTRY["neg_simp"].columns)
    bad = _write(tmp_path / "NEG.tsv", f"{header}\n1\tA trout is (a|an)\tA trout is not (a|an)\tfish\ttree\n"
                                       "2\t(a|an)\tA robin is not (a|an)\tbird\ttree\n")
    with pytest.raises(D.DatasetError, match=r"NEG\.tsv:3: item '2': context_aff has no word"):
        D.build_dataset("neg_simp", bad)


@pytest.mark.parametrize("item", ["01", "00", "001"])
def test_cprag_item_with_a_leading_zero_is_refused(tmp_path, item):
    """'1' and '01' would be two items (their ids differ as strings) that sort as one number."""
    bad = _write(tmp_path / "C.tsv", f"{CPRAG_HEADER}\n{CPRAG_ROW}\n{CPRAG_ROW.replace('1', item, 1)}\n")
    with pytest.raises(D.DatasetError, match=rf"C\.tsv:3: item '{item}': item must be a number .*no leading zero"):
        D.build_dataset("cprag", bad)


def test_neg_item_with_a_leading_zero_is_refused(tmp_path):
    bad = _write(tmp_path / "NEG.tsv", f"{NEG_NAT_HEADER}\n{NEG_NAT_ROW}\n0{NEG_NAT_ROW}\n")
    with pytest.raises(D.DatasetError, match=r"NEG\.tsv:3: item '01': item must be a number .*no leading zero"):
        D.build_dataset("neg_nat", bad)


def test_role_pair_with_a_leading_zero_is_refused(tmp_path):
    header = "\t".join(D.REGISTRY["role"].columns)
    rows = [f"{pair}-{role}\tthe cop arrested the\tcrook\t0.5\tcrook\t0.5\t0.5" for pair in ("1", "01") for role in "ab"]
    bad = _write(tmp_path / "ROLE.tsv", "\n".join([header, *rows]) + "\n")
    with pytest.raises(D.DatasetError, match=r"ROLE\.tsv:4: item '01-a': item must look like '61-a'"):
        D.build_dataset("role", bad)


def test_item_zero_is_a_number(tmp_path):
    """The released files number their items from 0."""
    ok = _write(tmp_path / "C.tsv", f"{CPRAG_HEADER}\n{CPRAG_ROW.replace('1', '0', 1)}\n")
    assert set(D.build_dataset("cprag", ok, shuffles=1)["item"]) == {"0"}


def test_an_item_id_is_read_without_its_spaces(tmp_path):
    path = _write(tmp_path / "C.tsv", f"{CPRAG_HEADER}\n {CPRAG_ROW}\n")
    frame = D.build_dataset("cprag", path, shuffles=1, seed=0)
    assert set(frame["item"]) == {"1"} and all(r.startswith("1:") for r in frame["row_id"])


def test_rows_are_in_the_documented_order(cprag, ettinger_tsvs):
    """Conditions in their documented order, item numbers as integers (2 before 10), completions and
    roles alphabetically: the order of the Parquet rows and of every score file built from them."""
    keys = [(D.CPRAG_CONDITIONS.index(c), run, int(item), completion)
            for c, run, item, completion in zip(cprag["condition"], cprag["run"], cprag["item"], cprag["completion"])]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    role = D.build_dataset("role", ettinger_tsvs["role"])
    keys = [(D.ROLE_CONDITIONS.index(c), int(pair), r) for c, pair, r in zip(role["condition"], role["pair"], role["role"])]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    for dataset in ("neg_simp", "neg_nat"):
        neg = D.build_dataset(dataset, ettinger_tsvs[dataset])
        keys = [(int(item), D.NEG_CONDITIONS.index(c)) for item, c in zip(neg["item"], neg["condition"])]
        assert keys == sorted(keys) and len(set(keys)) == len(keys), dataset
