"""oLMpics release import: real-format fixture lines (tests/data/olmpics) -> SCHEMA rows."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest

from lmprobes.io import read_parquet, write_parquet
from lmprobes.suites.olmpics.release import ReleaseError, build_release, read_release, release_file_name
from lmprobes.suites.olmpics.schema import SCHEMA, SPLITS, TASKS

DATA = Path(__file__).parent / "data" / "olmpics"
FILES = {(task, split): DATA / release_file_name(task, split, gz=False) for task in TASKS for split in SPLITS}


def plain_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_every_fixture_line_becomes_one_row_in_schema_order() -> None:
    frame = build_release(FILES)
    assert list(frame.columns) == SCHEMA.names
    assert frame["row_id"].is_unique
    offset = 0
    for task in TASKS:  # tasks in TASKS order, train before dev
        for split in SPLITS:
            records = plain_records(FILES[task, split])
            part = frame.iloc[offset:offset + len(records)]
            offset += len(records)
            assert set(part["task"]) == {task} and set(part["split"]) == {split}
            assert part["row"].tolist() == list(range(1, len(records) + 1))
            assert part["id"].tolist() == [r["id"] for r in records]
            assert part["stem"].tolist() == [r["question"]["stem"] for r in records]
            for row, record in zip(part.itertuples(), records):
                labels = [c["label"] for c in record["question"]["choices"]]
                assert list(row.choices) == [c["text"] for c in record["question"]["choices"]]
                assert row.answer == labels.index(record["answerKey"])
                assert row.row_id == f"{task}:release:standard:{split}:{row.row}"
                assert json.loads(row.provenance)["line"] == row.row
    assert offset == len(frame)
    assert set(frame["flavour"]) == {"release"} and set(frame["variant"]) == {"standard"}
    assert frame["seed"].isna().all()


def test_the_frame_writes_with_the_schema(tmp_path) -> None:
    frame = build_release(FILES)
    write_parquet(frame, tmp_path / "release.parquet", SCHEMA, {"source": "fixture"})
    back = read_parquet(tmp_path / "release.parquet")
    assert back["row_id"].tolist() == frame["row_id"].tolist()
    assert [list(c) for c in back["choices"]] == [list(c) for c in frame["choices"]]


def test_age_and_multihop_stems_carry_their_template_arguments() -> None:
    for task, template_id in (("age_comparison", "age"), ("multihop_composition", "multihop")):
        for row in read_release(FILES[task, "dev"], task, "dev"):
            numbers = [int(n) for n in re.findall(r"\d+", row["stem"])]
            assert row["template_id"] == template_id
            assert list(json.loads(row["arguments"]).values()) == numbers
    taxonomy = read_release(FILES["taxonomy_conjunction", "dev"], "taxonomy_conjunction", "dev")
    assert {row["template_id"] for row in taxonomy} == {""}


def test_gzip_and_plain_files_read_the_same(tmp_path) -> None:
    plain = FILES["always_never", "dev"]
    packed = tmp_path / release_file_name("always_never", "dev")
    with open(plain, "rb") as src, gzip.open(packed, "wb") as dst:
        shutil.copyfileobj(src, dst)
    from_gzip, from_plain = read_release(packed, "always_never", "dev"), read_release(plain, "always_never", "dev")
    for row in from_gzip + from_plain:
        assert json.loads(row.pop("provenance"))["line"] == row["row"]
    assert from_gzip == from_plain


def write_lines(tmp_path: Path, records: list) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records), encoding="utf-8")
    return path


GOOD = plain_records(FILES["age_comparison", "dev"])[0]


def broken(**changes) -> dict:
    record = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if key == "stem":
            record["question"]["stem"] = value
        elif key == "choices":
            record["question"]["choices"] = value
        else:
            record[key] = value
    return record


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ("{not json", "not valid JSON"),
        (broken(answerKey="C"), "answerKey 'C'"),
        (broken(choices=[{"label": "A", "text": "younger"}]), "1 choices"),
        (broken(stem="A 15 year old person age is than a 16 ."), "exactly one"),
        (broken(choices=[{"label": "A", "text": "younger"}, {"label": "A", "text": "older"}]), "repeated"),
        ({"id": "x", "question": GOOD["question"]}, "missing field 'answerKey'"),
    ],
)
def test_bad_records_name_the_file_and_line(tmp_path, bad, message) -> None:
    path = write_lines(tmp_path, [GOOD, bad])
    with pytest.raises(ReleaseError, match=re.escape(f"{path}:2") + ".*" + re.escape(message)):
        read_release(path, "age_comparison", "dev")


def test_unknown_task_or_split_is_refused() -> None:
    with pytest.raises(ReleaseError, match="unknown oLMpics task"):
        read_release(FILES["age_comparison", "dev"], "age", "dev")
    with pytest.raises(ReleaseError, match="unknown split"):
        build_release({("age_comparison", "test"): FILES["age_comparison", "dev"]})


def two_choices(first: str, second: str) -> dict:
    return broken(choices=[{"label": "A", "text": first}, {"label": "B", "text": second}])


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (two_choices("", "older"), "choice 'A' must contain a letter or digit, got ''"),
        (two_choices("younger", "  "), "choice 'B' must contain a letter or digit, got '  '"),
        (two_choices("\u200b", "older"), "choice 'A' must contain a letter or digit, got '\\u200b'"),
        (two_choices("older", "older"), "choices 'A' and 'B' are both 'older'"),
        (two_choices("older", " older "), "choices 'A' and 'B' are both 'older'"),
    ],
)
def test_empty_and_repeated_choice_texts_are_refused(tmp_path, bad, message) -> None:
    path = write_lines(tmp_path, [GOOD, bad])
    with pytest.raises(ReleaseError, match=re.escape(f"{path}:2: {message}")):
        read_release(path, "age_comparison", "dev")


def write_manifest(tmp_path: Path, *rows: str) -> Path:
    path = tmp_path / "release.tsv"
    path.write_text("".join(line + "\n" for line in ("task\tsplit\tfile\tsha256", *rows)), encoding="utf-8")
    return path


def manifest_row(task: str, split: str) -> str:
    return f"{task}\t{split}\t{task}_{split}.jsonl\t{'ab' * 32}"


@pytest.mark.parametrize(
    ("rows", "where", "message"),
    [
        ((), "", "no release files listed"),
        ((manifest_row("age_comparison", "train"), manifest_row("age_comparison", "dev"),
          manifest_row("age_comparison", "train")), ":4", "age_comparison train is already listed on line 2"),
        ((manifest_row("age_comparison", "train"), manifest_row("age_comparison", "dev").replace("\tdev\t", "\ttest\t")),
         ":3", "split 'test' is not one of ['train', 'dev']"),
        ((manifest_row("age_comparison", "dev"), "", manifest_row("age", "dev")), ":4", "expected a known task"),
    ],
)
def test_a_bad_release_manifest_names_itself_and_the_line(tmp_path, rows, where, message) -> None:
    from lmprobes.suites.olmpics.pipeline import read_release_manifest

    path = write_manifest(tmp_path, *rows)
    with pytest.raises(ReleaseError, match=re.escape(f"{path}{where}: {message}")):
        read_release_manifest(path)


def test_the_committed_release_manifests_list_every_task_and_split_once() -> None:
    from lmprobes.suites.olmpics.pipeline import read_release_manifest

    root = Path(__file__).parent.parent / "resources"
    for manifest in (root / "olmpics" / "release.tsv", root / "demo" / "olmpics_release.tsv"):
        rows = read_release_manifest(manifest)
        assert sorted((row["task"], row["split"]) for row in rows) == sorted(FILES), manifest
