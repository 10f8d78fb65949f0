"""The README's links within itself lead to one of its headings."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def github_anchor(heading: str) -> str:
    """The id GitHub gives a heading: lower case, punctuation other than - and _ dropped, spaces to -."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_github_anchor_of_a_heading_with_punctuation():
    assert github_anchor("BLiMP (Warstadt et al. 2020, corrected 2021)") == "blimp-warstadt-et-al-2020-corrected-2021"
    assert github_anchor("Ettinger's diagnostics (Ettinger 2020)") == "ettingers-diagnostics-ettinger-2020"


def test_every_link_within_the_readme_names_one_of_its_headings():
    text = README.read_text(encoding="utf-8")
    outside_code = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    anchors = {github_anchor(h) for h in re.findall(r"^#{1,6} (.+)$", outside_code, flags=re.MULTILINE)}
    links = re.findall(r"\]\(#([^)]+)\)", outside_code)
    assert len(links) >= 18  # the contents line alone links every section
    assert sorted(set(links) - anchors) == []


def test_the_contents_line_links_every_section_in_order():
    text = README.read_text(encoding="utf-8")
    contents = next(line for line in text.splitlines() if line.startswith("**Contents:**"))
    sections = re.findall(r"^## (.+)$", re.sub(r"```.*?```", "", text, flags=re.DOTALL), flags=re.MULTILINE)
    assert re.findall(r"\]\(#([^)]+)\)", contents) == [github_anchor(h) for h in sections]
