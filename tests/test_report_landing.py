"""The run page: wall time per stage from benchmark files, the tiny-model warning, escaping, sources, models."""

from __future__ import annotations

import html
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pyarrow as pa
import pytest
import yaml

from lmprobes.io import write_parquet
from lmprobes.report.landing import (
    TINY_WARNING,
    LandingPageError,
    clock,
    landing_page,
    models_in_run,
    read_lock,
    stage_times,
    write_landing_page,
)
from lmprobes.sources import LockfileError

VERSIONS = {"python": "3.11.0", "torch": "2.0", "transformers": "5.0"}
HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"
# (path under benchmarks/, [(seconds, max_rss or "NA")] per row): a repeat() benchmark has two rows.
BENCHMARKS = {
    "scores/blimp/tiny-bert.tsv": [(10.5, "100.0")],
    "scores/blimp/gpt2.tsv": [(1.25, "NA"), (2.0, "50.5")],
    "curves/olmpics/tiny-bert/age.tsv": [(3.0, "70.0")],
    "curves/olmpics/baselines/age.tsv": [(4000.0, "NA")],
    "sources/conceptnet_edges.tsv": [(7.75, "NA")],
}


def hub(hub_id: str = "org/model") -> dict:
    return {"hub_id": hub_id, "revision": "abc123", "family": "masked", "batch_tokens": 1, "mem_mb": 1}


def tiny() -> dict:
    return {"tiny": {"arch": "bert", "vocab_size": 100}, "family": "masked", "batch_tokens": 1, "mem_mb": 1}


def make_config(models: dict, suite_models: list[str], **extra) -> dict:
    return {
        "device": "auto", "seed": 7, "mirror": None,
        "sources": {
            "pinned": {"url": "https://example.org/a.tsv", "sha256": "a" * 64, "note": "pinned one"},
            "locked": {"url": "https://example.org/b.zip", "sha256": None},
            "fresh": {"url": "https://example.org/c.gz", "sha256": None},
        },
        "models": models,
        "suites": {"blimp": {"models": suite_models}, "olmpics": {"models": [], "learning_curves": {"models": []}}},
        **extra,
    }


def write_benchmarks(root: Path) -> Path:
    for relative, rows in BENCHMARKS.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        lines = [f"{s}\t0:00:00\t{rss}\tNA\tNA\tNA\tNA\tNA\tNA\tNA\n" for s, rss in rows]
        path.write_text(HEADER + "".join(lines))
    return root


def expected_stages() -> dict[str, tuple[int, float, float, float | None]]:
    """(jobs, summed s, longest job s, largest RSS) per stage, by a plain loop over BENCHMARKS."""
    out: dict[str, list] = {}
    for relative, rows in BENCHMARKS.items():
        stage = "/".join(Path(relative).parent.parts[:2])
        job_seconds = sum(s for s, _ in rows)
        rss = [float(r) for _, r in rows if r != "NA"]
        entry = out.setdefault(stage, [0, 0.0, 0.0, None])
        entry[0] += 1
        entry[1] += job_seconds
        entry[2] = max(entry[2], job_seconds)
        if rss:
            entry[3] = max(rss) if entry[3] is None else max(entry[3], max(rss))
    return {stage: tuple(values) for stage, values in out.items()}


def test_stage_times_match_a_plain_sum(tmp_path):
    stages = stage_times(write_benchmarks(tmp_path / "benchmarks"))
    assert [s.stage for s in stages] == ["curves/olmpics", "scores/blimp", "sources"]
    got = {s.stage: (s.jobs, s.total_s, s.max_s, s.max_rss_mb) for s in stages}
    assert got == pytest.approx(expected_stages())
    assert got["scores/blimp"] == (2, 13.75, 10.5, 100.0)  # the repeat benchmark counts as one job of 3.25 s


def test_stages_are_sorted_by_name_and_take_their_largest_rss(tmp_path):
    """The largest RSS of a stage whichever of its files holds it; a file at the top level is its own stage."""
    root = tmp_path / "benchmarks"
    for relative, seconds, rss in (("z.tsv", 1.0, "NA"), ("scores/x/a.tsv", 2.0, "300.0"), ("scores/x/b.tsv", 3.0, "20.0")):
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(HEADER + f"{seconds}\t0:00:00\t{rss}\tNA\tNA\tNA\tNA\tNA\tNA\tNA\n")
    stages = stage_times(root)
    assert [(s.stage, s.jobs, s.total_s, s.max_s, s.max_rss_mb) for s in stages] == [
        ("(top level)", 1, 1.0, 1.0, None), ("scores/x", 2, 5.0, 3.0, 300.0)]

def test_page_shows_the_stage_sums_and_the_total(tmp_path):
    page = landing_page(make_config({"m": hub()}, ["m"]), None, write_benchmarks(tmp_path / "benchmarks"),
                        versions=VERSIONS)
    total = sum(s for rows in BENCHMARKS.values() for s, _ in rows)
    assert total == 4024.5 and clock(total) == "1:07:04"  # 3600 + 7 * 60 + 4, half rounded to even
    assert "<td>all stages</td><td class=\"num\">5</td><td class=\"num\">1:07:04</td>" in page
    assert f'<td class="num">{total:.1f}</td>' in page
    assert '<td>curves/olmpics</td><td class="num">2</td><td class="num">1:06:43</td>' in page


def test_tiny_warning_iff_a_tiny_model_runs(tmp_path):
    models = {"big": hub(), "small": tiny()}
    with_tiny = landing_page(make_config(models, ["big", "small"]), None, tmp_path / "no-benchmarks", versions=VERSIONS)
    hub_only = landing_page(make_config(models, ["big"]), None, tmp_path / "no-benchmarks", versions=VERSIONS)
    assert html.escape(TINY_WARNING) in with_tiny and "Tiny models in this run: small." in with_tiny
    assert 'class="warning"' not in hub_only and html.escape(TINY_WARNING) not in hub_only
    assert "tiny random (built)" in with_tiny and "small" not in hub_only  # unused models are not listed


def test_tiny_model_of_the_learning_curves_alone_warns(tmp_path):
    config = make_config({"big": hub(), "small": tiny()}, ["big"])
    config["suites"]["olmpics"]["learning_curves"]["models"] = ["small"]
    assert models_in_run(config) == {"big": ["blimp"], "small": ["olmpics curves"]}
    assert 'class="warning"' in landing_page(config, None, tmp_path / "no-benchmarks", versions=VERSIONS)


def test_the_introduction_names_only_the_suites_that_score_a_model(tmp_path):
    """The demo runs no LAMA: the page must not say LAMA was reproduced."""
    config = make_config({"big": hub(), "small": tiny()}, ["big"])
    page = landing_page(config, None, tmp_path / "no-benchmarks", versions=VERSIONS)
    assert "Probing suites this run scores models on: BLiMP (Warstadt et al. 2020)." in page
    assert "LAMA" not in page and "oLMpics" not in page
    config["suites"]["olmpics"]["learning_curves"]["models"] = ["small"]
    config["suites"]["lama"] = {"models": ["big"]}
    page = landing_page(config, None, tmp_path / "no-benchmarks", versions=VERSIONS)
    assert ("on: LAMA (Petroni et al. 2019), BLiMP (Warstadt et al. 2020), oLMpics (Talmor et al. 2020)." in page
            and "Ettinger" not in page)


def test_hostile_names_are_escaped(tmp_path):
    evil = '<script>alert("x")</script>'
    config = make_config({evil: hub(f"org/{evil}"), "t&t": tiny()}, [evil, "t&t"])
    config["sources"]["pinned"]["note"] = f"note {evil} & more"
    config["mirror"] = "<b>mirror</b>"
    page = landing_page(config, None, tmp_path / "no-benchmarks", versions={"python": evil})
    assert "<script>" not in page and "<b>mirror" not in page
    assert html.escape(evil) in page and "t&amp;t" in page and "note &lt;script&gt;" in page


def test_sources_take_their_hash_from_config_then_lock(tmp_path):
    lock = tmp_path / "sources.lock.tsv"
    lock.write_text("url\tsha256\tbytes\nhttps://example.org/b.zip\t" + "b" * 64 + "\t123\n")
    assert read_lock(lock) == {"https://example.org/b.zip": "b" * 64}
    page = landing_page(make_config({"m": hub()}, ["m"]), lock, tmp_path / "no-benchmarks", versions=VERSIONS)
    rows = {line.split("</td>")[0].removeprefix("<tr><td>"): line for line in page.splitlines()
            if line.startswith("<tr><td>")}
    assert "a" * 64 in rows["pinned"] and "<td>config</td>" in rows["pinned"]
    assert "b" * 64 in rows["locked"] and "<td>lock file</td>" in rows["locked"]
    assert "unpinned, not downloaded yet" in rows["fresh"]
    assert read_lock(tmp_path / "absent.tsv") == {} and read_lock(None) == {}


def test_device_and_revision_as_run_come_from_score_metadata(tmp_path):
    schema = pa.schema([("row_id", pa.string())])
    scores = tmp_path / "scores.parquet"
    write_parquet(pd.DataFrame({"row_id": ["a"]}), scores, schema,
                  {"model": "m", "model_revision": "abc123", "dtype": "bfloat16", "device": "cuda:0", "torch": "9.9"})
    config = make_config({"m": hub(), "n": hub()}, ["m", "n"], device="cuda")
    page = landing_page(config, None, tmp_path / "no-benchmarks", scores=[scores], versions=VERSIONS)
    m_row = next(line for line in page.splitlines() if line.startswith("<tr><td>m</td>"))
    n_row = next(line for line in page.splitlines() if line.startswith("<tr><td>n</td>"))
    assert "<td>bfloat16</td>" in m_row and "<td>cuda:0</td>" in m_row
    assert "<td>abc123</td><td>abc123</td>" in m_row  # revision as configured, then as the score file recorded it
    assert "not scored" in n_row and n_row.count("<td>cuda</td>") == 2  # configured cuda is what ran
    committed = tmp_path / "committed.parquet"
    write_parquet(pd.DataFrame({"row_id": ["a"]}), committed, schema,
                  {"model": "n", "model_revision": "main", "model_commit": "f00d" * 10, "dtype": "float32"})
    with_commit = landing_page(config, None, tmp_path / "no-benchmarks", scores=[committed], versions=VERSIONS)
    committed_row = next(line for line in with_commit.splitlines() if line.startswith("<tr><td>n</td>"))
    assert f"<td>abc123</td><td>{'f00d' * 10}</td>" in committed_row  # revision configured, then the commit it ran at
    assert "<tr><td>torch</td><td>2.0</td><td>9.9</td></tr>" in page
    built = tmp_path / "built.parquet"
    write_parquet(pd.DataFrame({"row_id": ["a"]}), built, schema,
                  {"model": "s", "model_revision": "", "model_files_sha256": "beef" * 16, "dtype": "float32"})
    tiny_page = landing_page(make_config({"s": {**tiny(), "revision": "main"}}, ["s"]), None,
                             tmp_path / "no-benchmarks", scores=[built], versions=VERSIONS)
    tiny_row = next(line for line in tiny_page.splitlines() if line.startswith("<tr><td>s</td>"))
    assert "<td>-</td><td>files sha256 beefbeefbeef</td>" in tiny_row  # no revision: its files identify it
    auto = landing_page(make_config({"n": hub()}, ["n"]), None, tmp_path / "no-benchmarks", versions=VERSIONS)
    assert "<td>not recorded</td>" in auto


def test_same_inputs_same_page(tmp_path):
    config = make_config({"m": hub(), "s": tiny()}, ["m", "s"])
    benchmarks = write_benchmarks(tmp_path / "benchmarks")
    first, second = tmp_path / "one.html", tmp_path / "two.html"
    write_landing_page(first, config, None, benchmarks, versions=VERSIONS, configfiles=["config.yaml"])
    write_landing_page(second, config, None, benchmarks, versions=VERSIONS, configfiles=["config.yaml"])
    assert first.read_bytes() == second.read_bytes()
    assert "<script" not in first.read_text() and "http" not in first.read_text().split("<body>")[0]


def test_a_broken_benchmark_file_is_named(tmp_path):
    bad = tmp_path / "benchmarks" / "scores" / "lama" / "m.tsv"
    bad.parent.mkdir(parents=True)
    bad.write_text(HEADER + "soon\t0:00:00\tNA\tNA\tNA\tNA\tNA\tNA\tNA\tNA\n")
    with pytest.raises(LandingPageError, match=r"m\.tsv:2: column s is 'soon'"):
        stage_times(tmp_path / "benchmarks")
    bad.write_text("nothing here\n")
    with pytest.raises(LandingPageError, match="not a Snakemake benchmark file"):
        stage_times(tmp_path / "benchmarks")


def test_a_broken_lock_file_is_named(tmp_path):
    lock = tmp_path / "sources.lock.tsv"
    lock.write_text("url\tsha256\tbytes\nhttps://example.org/b.zip only-two-fields\n")
    with pytest.raises(LockfileError, match=r"sources\.lock\.tsv:2: expected 3"):
        read_lock(lock)


def test_a_suite_model_missing_from_models_is_refused():
    with pytest.raises(LandingPageError, match="ghost"):
        models_in_run(make_config({"m": hub()}, ["m", "ghost"]))


def test_no_benchmark_folder_says_so(tmp_path):
    page = landing_page(make_config({"m": hub()}, ["m"]), None, tmp_path / "none", versions=VERSIONS)
    assert "No benchmark files under" in page


# --- the captions of `snakemake --report` (rules/report/*.rst): a broken one only fails at report time ---

ROOT = Path(__file__).resolve().parents[1]
CAPTIONS = ROOT / "rules" / "report"


def render_caption(path: Path, config: dict, tiny_models: list[str]) -> str:
    """As Snakemake renders a caption: Jinja2 (trim and lstrip blocks), then docutils, warnings fatal."""
    import jinja2
    from docutils.core import publish_parts

    snakemake = SimpleNamespace(config=config, params=SimpleNamespace(tiny_models=tiny_models), wildcards={})
    links = "\n\n.. _Overview: javascript:app.showCategory('Overview')\n"  # Snakemake appends one per category
    rst = jinja2.Environment(trim_blocks=True, lstrip_blocks=True).from_string(path.read_text() + links).render(
        snakemake=snakemake)
    return publish_parts(rst, writer="html", settings_overrides={"halt_level": 2, "report_level": 5})["body"]


def repository_config(tiny_slug: str | None = None) -> dict:
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    if tiny_slug:
        config["models"][tiny_slug] = tiny()
        config["suites"]["blimp"]["models"].append(tiny_slug)
    return config


def test_every_table_and_figure_kind_has_a_caption():
    from lmprobes.suites.blimp.pipeline import FIGURES
    from lmprobes.suites.blimp.tables import TITLES as BLIMP_TABLES
    from lmprobes.suites.ettinger.tables import QUALITATIVE, QUANTITATIVE
    from lmprobes.suites.lama.pipeline import TABLES as LAMA_TABLES

    expected = ([f"ettinger/{t}" for t in (*QUANTITATIVE, *QUALITATIVE, "accuracy")]
                + [f"lama/{t}" for t in (*LAMA_TABLES, "precision_at_k")]
                + [f"blimp/{t}" for t in (*BLIMP_TABLES, *FIGURES)]
                + [f"olmpics/{t}" for t in ("zero_shot", "table4", "figure3", "learning_curves",
                                            "learning_curves_comparison", "table12_medals", "learning_curves_figure")]
                + [f"overview/{t}" for t in ("run", "verdicts", "models")])
    missing = [name for name in expected if not (CAPTIONS / f"{name}.rst").is_file()]
    assert not missing


@pytest.mark.parametrize("caption", sorted(p.relative_to(CAPTIONS).as_posix() for p in CAPTIONS.rglob("*.rst")))
def test_captions_render_without_docutils_warnings(caption):
    body = render_caption(CAPTIONS / caption, repository_config(), [])
    assert len(body) > 100 and "{{" not in body


def test_workflow_description_warns_iff_a_tiny_model_runs():
    tiny_page = render_caption(CAPTIONS / "workflow.rst", repository_config("tiny-<b>"), [])
    full_page = render_caption(CAPTIONS / "workflow.rst", repository_config(), [])
    warning = "they are not a reproduction of any paper"
    assert warning in tiny_page and "Tiny models in this run: tiny-&lt;b&gt;." in tiny_page
    assert warning not in full_page


@pytest.mark.parametrize("caption", ["overview/verdicts.rst", "overview/models.rst"])
def test_overview_captions_call_a_configured_stand_in_a_stand_in_not_a_tiny_model(caption):
    """The demo's baselines (report.stand_ins) are trained on made-up vectors, not tiny random-weight models."""
    warned = render_caption(CAPTIONS / caption, repository_config(), ["esim_baseline", "tiny-bert"])
    assert "Numbers from stand-ins (esim_baseline, tiny-bert: tiny random-weight models, or systems" in warned
    assert "random-weight models ran (esim_baseline" not in warned
    assert "not a reproduction" not in render_caption(CAPTIONS / caption, repository_config(), [])


SUITE_CAPTIONS = sorted(p.relative_to(CAPTIONS).as_posix() for p in CAPTIONS.rglob("*.rst")
                        if p.parent.name in ("lama", "blimp", "olmpics", "ettinger"))


@pytest.mark.parametrize("caption", SUITE_CAPTIONS)
def test_every_suite_caption_warns_iff_its_table_shows_a_stand_in(caption):
    warned = render_caption(CAPTIONS / caption, repository_config(), ["tiny-bert", "esim_baseline"])
    assert "Numbers from stand-ins (tiny-bert, esim_baseline: tiny random-weight models" in warned
    assert "not a reproduction" not in render_caption(CAPTIONS / caption, repository_config(), [])
