"""The landing page of the report (``results/report/run.html``): what ran, on what, from which sources, how long.

Conventions, and why:

- One self-contained HTML page: inline CSS, no JavaScript, nothing fetched. Snakemake's report shows an
  HTML result in an iframe over a data URI, and the report must open offline.
- Everything shown comes from the arguments (config, lock file, benchmark folder, score metadata, library
  versions): no clock and no host name, so the same inputs give the same bytes.
- Every value is html-escaped: slugs, URLs and notes come from hand-edited YAML and downloaded files.
- Models: only those some suite runs are listed. The demo config is merged onto config.yaml, whose hub
  models it does not run; listing them would suggest they were scored. A model is tiny when its config
  entry has a ``tiny:`` key; any tiny model in the run puts a warning box on top of the page.
- Device and dtype "as run" come from the metadata of the score files when they record them; a configured
  device other than ``auto`` is what ran (loading fails otherwise), ``auto`` without a record stays unknown.
- Sources: the sha256 of the config when pinned, else the one ``lmprobes.sources`` recorded in the lock
  file (``url  sha256  bytes``) on first download, else "unpinned, not downloaded yet".
- Wall time: Snakemake's benchmark files (``benchmarks/**/*.tsv``, one row per run, ``s`` in seconds,
  ``max_rss`` in MB or ``NA``). The stage of a file is its folder under ``benchmarks/``, at most two levels
  deep (``scores/blimp``, ``curves/olmpics``, ``sources``); a job's time is the sum of its rows (a
  ``repeat(...)`` benchmark has several). Every file in the folder counts, earlier runs' included.
"""

from __future__ import annotations

import csv
import html
import importlib.metadata
import platform
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from lmprobes.config import model_kind, suite_model_lists
from lmprobes.io import read_metadata, write_text
from lmprobes.sources import read_lockfile

TINY_WARNING = (
    "These numbers come from tiny random-weight models built by the workflow: they test the pipeline, "
    "they are not a reproduction of any paper."
)
PAPERS = {"lama": "LAMA (Petroni et al. 2019)", "blimp": "BLiMP (Warstadt et al. 2020)",
          "olmpics": "oLMpics (Talmor et al. 2020)", "ettinger": "Ettinger (2020)"}
LIBRARIES = ("torch", "transformers", "tokenizers", "snakemake", "pandas", "pyarrow", "numpy")
RELEASES = ("blimp", "olmpics")
CSS = """
body { font-family: sans-serif; margin: 1.5em; color: #222; max-width: 80em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.5em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
table.wide { width: 100%; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f0f0f0; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 0.95em; overflow-wrap: anywhere; }
.warning { border: 3px solid #b00; background: #fee; color: #600; padding: 1em; font-size: 1.15em;
           font-weight: bold; margin: 1em 0; }
.note { color: #555; font-size: 0.9em; }
"""


class LandingPageError(ValueError):
    """A benchmark or lock file the landing page cannot read; the message names the file and line."""


@dataclass(frozen=True)
class StageTime:
    """Wall time of one stage: the number of jobs, their summed and longest time, the largest RSS."""

    stage: str
    jobs: int
    total_s: float
    max_s: float
    max_rss_mb: float | None


# --- what the run used ------------------------------------------------------------------------


def models_in_run(config: dict) -> dict[str, list[str]]:
    """``{slug: [suites that run it]}`` in the order of ``config['models']``."""
    users: dict[str, list[str]] = {}
    for label, _, slugs in suite_model_lists(config):
        for slug in slugs:
            users.setdefault(slug, []).append(label)
    unknown = sorted(set(users) - set(config.get("models", {})))
    if unknown:
        raise LandingPageError(f"suites run models that config 'models' does not define: {unknown}")
    return {slug: users[slug] for slug in config["models"] if slug in users}


def tiny_models_in_run(config: dict) -> list[str]:
    return [slug for slug in models_in_run(config) if model_kind(config["models"][slug]) == "tiny"]


def read_lock(path: Path | None) -> dict[str, str]:
    """``{url: sha256}`` recorded for unpinned sources; an absent lock file records nothing."""
    return {} if path is None else {url: digest for url, (digest, _) in read_lockfile(path).items()}


def library_versions() -> dict[str, str]:
    """Python and the libraries the numbers depend on, as installed where the page is built."""
    versions = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def recorded_runs(scores: Iterable[Path]) -> dict[str, dict[str, set[str]]]:
    """``{model: {field: values}}`` from the score files' metadata (revision, dtype, device, versions)."""
    runs: dict[str, dict[str, set[str]]] = {}
    for path in scores:
        metadata = read_metadata(path)
        fields = runs.setdefault(str(metadata.get("model", Path(path).parent.name)), {})
        for key in ("model_revision", "model_commit", "model_files_sha256", "dtype", "device", "torch",
                    "transformers", "tokenizers"):
            if metadata.get(key) not in (None, ""):
                fields.setdefault(key, set()).add(str(metadata[key]))
    return runs


# --- wall time ---------------------------------------------------------------------------------


def stage_of(path: Path, root: Path) -> str:
    parts = Path(path).relative_to(root).parent.parts[:2]
    return "/".join(parts) or "(top level)"


def read_benchmark(path: Path) -> list[tuple[float, float | None]]:
    """``(seconds, max_rss MB or None)`` per row of one Snakemake benchmark file."""
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    if not rows or "s" not in rows[0]:
        raise LandingPageError(f"{path}: not a Snakemake benchmark file (no 's' column or no rows)")
    runs = []
    for lineno, row in enumerate(rows, start=2):
        try:
            seconds = float(row["s"])
        except (TypeError, ValueError):
            raise LandingPageError(f"{path}:{lineno}: column s is {row['s']!r}, not a number of seconds") from None
        runs.append((seconds, _number_or_none(row.get("max_rss"))))
    return runs


def _number_or_none(text: str | None) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None  # Snakemake writes NA when it could not measure


def stage_times(benchmarks: Path) -> list[StageTime]:
    """Jobs, summed and longest wall time and largest RSS per stage, stages sorted by name."""
    jobs: dict[str, list[tuple[float, float | None]]] = {}
    for path in sorted(Path(benchmarks).rglob("*.tsv")):
        runs = read_benchmark(path)
        rss = [r for _, r in runs if r is not None]
        jobs.setdefault(stage_of(path, benchmarks), []).append((sum(s for s, _ in runs), max(rss, default=None)))
    return [_stage(stage, jobs[stage]) for stage in sorted(jobs)]


def _stage(stage: str, jobs: list[tuple[float, float | None]]) -> StageTime:
    rss = [r for _, r in jobs if r is not None]
    seconds = [s for s, _ in jobs]
    return StageTime(stage, len(jobs), sum(seconds), max(seconds), max(rss, default=None))


def clock(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


# --- HTML ----------------------------------------------------------------------------------------


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def html_table(headers: Sequence[str], rows: Iterable[Sequence[object]], numeric: Sequence[int] = (),
               code: Sequence[int] = (), wide: bool = False) -> str:
    """A plain table of escaped cells: ``numeric`` columns right-aligned, ``code`` columns (URLs, hashes) in
    code type and breakable anywhere; a wide table fills the page."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(_cell(value, i in numeric, i in code) for i, value in enumerate(row)) + "</tr>\n"
        for row in rows
    )
    opening = '<table class="wide">' if wide else "<table>"
    return f"{opening}\n<tr>{head}</tr>\n{body}</table>\n"


def _cell(value: object, numeric: bool, code: bool) -> str:
    text = f"<code>{esc(value)}</code>" if code else esc(value)
    return f'<td class="num">{text}</td>' if numeric else f"<td>{text}</td>"


def warning_box(tiny: Sequence[str]) -> str:
    if not tiny:
        return ""
    return (f'<div class="warning">{esc(TINY_WARNING)}<br>Tiny models in this run: '
            f"{esc(', '.join(tiny))}.</div>\n")


def source_label(spec: dict) -> str:
    """Where a model comes from, as the run page shows it (the path as configured)."""
    kind = model_kind(spec)
    if kind == "hub":
        return f"hub: {spec['hub_id']}"
    if kind == "local":
        return f"path: {spec['path']}"
    return "tiny random (built)"


def revision_as_run(ran: Mapping[str, set[str]]) -> str:
    """The hub commit a snapshot was taken at, where recorded; else the revision as configured; for a
    local or tiny model, the start of its files' sha256."""
    if ran.get("model_commit") or ran.get("model_revision"):
        return ", ".join(sorted(ran.get("model_commit") or ran["model_revision"]))
    if ran.get("model_files_sha256"):
        return ", ".join(f"files sha256 {digest[:12]}" for digest in sorted(ran["model_files_sha256"]))
    return "not scored"


def device_as_run(configured: str, recorded: set[str]) -> str:
    if recorded:
        return ", ".join(sorted(recorded))
    return configured if configured != "auto" else "not recorded"


def models_section(config: dict, runs: Mapping[str, Mapping[str, set[str]]]) -> str:
    configured_device = str(config.get("device", "auto"))
    rows = []
    for slug, suites in models_in_run(config).items():
        spec = config["models"][slug]
        ran = runs.get(slug, {})
        rows.append((
            slug, source_label(spec), spec.get("revision", "main") if model_kind(spec) == "hub" else "-",
            revision_as_run(ran),
            spec.get("dtype", "float32"), ", ".join(sorted(ran.get("dtype", set()))) or "not scored",
            configured_device, device_as_run(configured_device, ran.get("device", set())), ", ".join(suites),
        ))
    headers = ("model", "source", "revision (config)", "revision (run)", "dtype (config)", "dtype (run)",
               "device (config)", "device (run)", "suites")
    return "<h2>Models</h2>\n" + html_table(headers, rows, wide=True)


def source_hash(spec: dict, lock: Mapping[str, str]) -> tuple[str, str]:
    """The sha256 of a source and where it comes from (config, lock file, or nowhere yet)."""
    if spec.get("sha256"):
        return spec["sha256"], "config"
    if spec.get("url") in lock:
        return lock[spec["url"]], "lock file"
    return "unpinned, not downloaded yet", "-"


def sources_section(config: dict, lock: Mapping[str, str]) -> str:
    rows = []
    for name, spec in config.get("sources", {}).items():
        sha256, pinned_by = source_hash(spec, lock)
        rows.append((name, spec.get("url", ""), sha256, pinned_by, spec.get("note", "")))
    for suite in RELEASES:
        release = config.get("suites", {}).get(suite, {}).get("release")
        if release:
            rows.append((f"{suite} release", release.get("url", ""),
                         f"one per file, in {release.get('manifest', '?')}", "manifest", "each file checked"))
    mirror = config.get("mirror")
    where = f"Read from the offline mirror <code>{esc(mirror)}</code>." if mirror else "Downloaded from the URLs."
    return (f"<h2>Sources</h2>\n<p>{where}</p>\n"
            + html_table(("source", "URL", "sha256", "hash from", "note"), rows, code=(1, 2), wide=True))


def versions_section(versions: Mapping[str, str], runs: Mapping[str, Mapping[str, set[str]]]) -> str:
    rows = []
    for name, version in versions.items():
        scored = sorted({v for fields in runs.values() for v in fields.get(name, set())})
        rows.append((name, version, ", ".join(scored) or "-"))
    return ("<h2>Library versions</h2>\n"
            + html_table(("library", "where this page was built", "recorded by the score files"), rows))


def times_section(stages: Sequence[StageTime], benchmarks: Path) -> str:
    if not stages:
        return f"<h2>Wall time per stage</h2>\n<p>No benchmark files under <code>{esc(benchmarks)}</code>.</p>\n"
    rows = [(s.stage, s.jobs, clock(s.total_s), f"{s.total_s:.1f}", clock(s.max_s), f"{s.max_s:.1f}",
             "NA" if s.max_rss_mb is None else f"{s.max_rss_mb:.0f}") for s in stages]
    total = sum(s.total_s for s in stages)
    rows.append(("all stages", sum(s.jobs for s in stages), clock(total), f"{total:.1f}", "", "", ""))
    headers = ("stage", "jobs", "sum (h:m:s)", "sum (s)", "longest job (h:m:s)", "longest job (s)", "max RSS (MB)")
    note = (f'<p class="note">From the Snakemake benchmark files under <code>{esc(benchmarks)}</code> (every '
            "file there, earlier runs included); stages without a benchmark directive (datasets, tables) "
            "are not timed. A sum adds the wall times of jobs that may have run in parallel: it is not the run's "
            "elapsed time.</p>")
    return "<h2>Wall time per stage</h2>\n" + html_table(headers, rows, numeric=range(1, 7)) + note + "\n"


def introduction(config: dict) -> str:
    """The suites this run scores models on (the demo runs no LAMA), and where the verdicts are."""
    running = [paper for suite, paper in PAPERS.items()
               if any(suite == label.split()[0] for labels in models_in_run(config).values() for label in labels)]
    return (f"<p>Probing suites this run scores models on: {esc(', '.join(running) or 'none')}. The "
            "paper-versus-reproduction verdicts and the per-model summary are in the Overview category of this "
            "report.</p>\n")


def run_section(config: dict, configfiles: Sequence[str]) -> str:
    rows = [("config files (each over those before it)", ", ".join(configfiles) or "not given"),
            ("seed", config.get("seed", "")), ("device", config.get("device", "auto")),
            ("mirror", config.get("mirror") or "none (downloads)")]
    return "<h2>Run</h2>\n" + html_table(("setting", "value"), rows)


def landing_page(config: dict, lock: Path | None, benchmarks: Path, *, scores: Sequence[Path] = (),
                 configfiles: Sequence[str] = (), versions: Mapping[str, str] | None = None) -> str:
    """The whole page: warning (if any tiny model runs), run settings, models, sources, versions, wall time."""
    runs = recorded_runs(scores)
    parts = [
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>lmprobes run</title>\n",
        f"<style>{CSS}</style>\n</head>\n<body>\n<h1>lmprobes: this run</h1>\n",
        warning_box(tiny_models_in_run(config)),
        introduction(config),
        run_section(config, configfiles),
        models_section(config, runs),
        sources_section(config, read_lock(lock)),
        versions_section(library_versions() if versions is None else versions, runs),
        times_section(stage_times(benchmarks) if Path(benchmarks).is_dir() else [], benchmarks),
        "</body>\n</html>\n",
    ]
    return "".join(parts)


def write_landing_page(path: Path, config: dict, lock: Path | None, benchmarks: Path, **options) -> None:
    write_text(landing_page(config, lock, benchmarks, **options), path)
