"""Benchmark of the ConceptNet stream: ``python -m lmprobes.suites.lama.conceptnet_bench --rows 5000000``.

Generates a synthetic assertions file in the real 5.7 format (mixed languages, realistic JSON
info), then streams it to Parquet in a child process so that the generator's memory does not
count towards the reported peak (``ru_maxrss`` of that child).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RELATIONS = ("IsA", "RelatedTo", "Synonym", "AtLocation", "UsedFor", "CapableOf", "HasProperty",
             "PartOf", "Antonym", "DerivedFrom", "FormOf", "HasSubevent", "dbpedia/genre")
LANGUAGES = ("en", "fr", "de", "ja", "es", "it", "ru", "zh")
WORDS = ("dog", "cat", "bark", "field", "wheat", "test", "hard_questions", "run", "able", "house",
         "kitchen", "knife", "cut", "bread", "music", "bird", "fly", "red", "apple", "tree")
POS = ("", "/n", "/v", "/a", "/n/wikt/en_1")
SOURCES = (
    [{"contributor": "/s/resource/wiktionary/en", "process": "/s/process/wikiparsec/2"}],
    [{"activity": "/s/activity/omcs/omcs1_possibly_free_text", "contributor": "/s/contributor/omcs/user1"},
     {"activity": "/s/activity/omcs/vote", "contributor": "/s/contributor/omcs/user2"}],
    [{"activity": "/s/activity/kyoto_yahoo"}],
)


def concept_uri(rng: random.Random, lang: str) -> str:
    return f"/c/{lang}/{rng.choice(WORDS)}{rng.choice(POS)}"


def pick_languages(rng: random.Random) -> tuple[str, str]:
    """About a third English/English, some mixed, the rest other languages (as in 5.7)."""
    draw = rng.random()
    if draw < 0.35:
        return "en", "en"
    if draw < 0.5:
        return "en", rng.choice(LANGUAGES[1:])
    lang = rng.choice(LANGUAGES[1:])
    return lang, lang


def assertion_line(rng: random.Random) -> str:
    relation = rng.choice(RELATIONS)
    start_lang, end_lang = pick_languages(rng)
    start, end = concept_uri(rng, start_lang), concept_uri(rng, end_lang)
    info = {"dataset": f"/d/conceptnet/4/{start_lang}", "license": "cc:by/4.0",
            "sources": rng.choice(SOURCES)}
    if rng.random() < 0.4:
        info["surfaceEnd"] = end.split("/")[3]
        info["surfaceStart"] = start.split("/")[3]
        info["surfaceText"] = f"[[{info['surfaceStart']}]] is related to [[{info['surfaceEnd']}]]"
    info["weight"] = rng.choice((1.0, 2.0, 0.5, 3.464))
    edge = f"/a/[/r/{relation}/,{start}/,{end}/]"
    return "\t".join((edge, f"/r/{relation}", start, end, json.dumps(info, ensure_ascii=False))) + "\n"


def generate(path: Path, rows: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wt", encoding="utf-8") as handle:
        for _ in range(rows):
            handle.write(assertion_line(rng))


def measure_stream(source: str, out: str) -> None:
    """Child-process entry point: stream, then print one JSON line with the figures."""
    from lmprobes.suites.lama.conceptnet import stream_to_parquet

    began = time.perf_counter()
    stats = stream_to_parquet(source, out)
    seconds = time.perf_counter() - began
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux -> MiB
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, **stats}))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--gzip", action="store_true", help="compress the synthetic input")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / ("assertions.csv.gz" if args.gzip else "assertions.csv")
        began = time.perf_counter()
        generate(source, args.rows)
        print(f"generated {args.rows:,} rows ({source.stat().st_size / 2**20:.0f} MiB) "
              f"in {time.perf_counter() - began:.1f} s")
        child = subprocess.run(
            [sys.executable, "-c", ("import sys; from lmprobes.suites.lama.conceptnet_bench import "
                                    "measure_stream; measure_stream(sys.argv[1], sys.argv[2])"),
             str(source), str(Path(tmp) / "edges.parquet")],
            check=True, capture_output=True, text=True)
        result = json.loads(child.stdout.strip().splitlines()[-1])
    print(f"streamed {result['rows_read']:,} rows in {result['seconds']:.1f} s: "
          f"{result['rows_read'] / result['seconds']:,.0f} rows/s, "
          f"{result['english_edges']:,} English edges, "
          f"peak memory {result['peak_mb']:.0f} MiB (ru_maxrss of the streaming process)")


if __name__ == "__main__":
    main()
