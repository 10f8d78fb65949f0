"""The README's ledger of faults, bad and hostile input quotes test counts: they are the counts pytest
collects, so a test added or removed without the ledger being updated fails here."""

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LEDGER_FILES = {
    "F": "tests/test_faults_sources.py",
    "S": "tests/test_sources.py",
    "H": "tests/test_hostile_input.py",
    "W": "tests/test_faults_workflow.py",
    "B": "tests/test_bad_input.py",
    "Z": "tests/test_fuzz_parsers.py",
}
# What S refuses as hostile input: archives (zip, tar), links in them and URLs. Its other "refused" tests, a
# connection refused and a source edited after its download, are the retry and checksum cases the ledger
# counts with the faults.
HOSTILE_KINDS = ("zip", "tar", "archive", "url")


def is_hostile_refusal(test_id: str) -> bool:
    name = test_id.split("::")[1].split("[")[0]
    return "refused" in name and any(kind in name for kind in HOSTILE_KINDS)


class Collected:
    """A plugin that keeps the ids of the items a session collects."""

    def __init__(self) -> None:
        self.ids: list[str] = []

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self.ids = [item.nodeid for item in session.items]


def collected_ids() -> list[str]:
    """Collected in this process (its test modules are imported already: a new process took 12 s)."""
    collected = Collected()
    code = pytest.main(["--collect-only", "-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT),
                        *(str(ROOT / path) for path in LEDGER_FILES.values())], plugins=[collected])
    assert code == pytest.ExitCode.OK
    return collected.ids


def ledger_counts(readme: str) -> dict[str, int]:
    """The counts the ledger's "Counts" paragraph and the bad-input section quote."""
    paragraph = re.search(r"Counts, as pytest collects them in CI.*?silently wrong output\.", readme, re.DOTALL).group(0)
    text = " ".join(paragraph.split())
    quoted = {letter: int(n) for letter, n in re.findall(r"`([FWBH])` (\d+)", text)}
    quoted["S refused"] = int(re.search(r"`S`'s (\d+) refused", text).group(1))
    quoted["B section"] = int(re.search(r"(\d+) hand-written cases\s+\(`B`\)", readme).group(1))
    quoted["Z"] = int(re.search(r"(\d+) hypothesis properties", readme).group(1))
    return quoted


def test_ledger_counts_are_the_collected_counts():
    ids = collected_ids()
    per_file = Counter(test_id.split("::")[0] for test_id in ids)
    collected = {letter: per_file[path] for letter, path in LEDGER_FILES.items()}
    collected["S refused"] = sum(1 for i in ids if i.startswith(LEDGER_FILES["S"]) and is_hostile_refusal(i))
    collected["B section"] = collected["B"]

    quoted = ledger_counts((ROOT / "README.md").read_text(encoding="utf-8"))

    assert quoted == {key: collected[key] for key in quoted}
    assert set(quoted) == {"F", "W", "B", "H", "S refused", "B section", "Z"}
