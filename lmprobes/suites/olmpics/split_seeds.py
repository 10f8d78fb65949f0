"""Split MC-QA curve files made before each seed had its own job into the seed files that job writes.

    python -m lmprobes.suites.olmpics.split_seeds results/curves/olmpics/<model>/<task>.<variant>.parquet ...

Run it once after upgrading, before ``snakemake all``: the seed jobs' outputs then exist, so the runs
already done are merged again rather than fine-tuned again. Then
``snakemake --touch --cores 1 --forcerun olmpics_mc_qa_seed all`` records them as those jobs' outputs,
so that a later change of their settings refits them (README, "After an upgrade").
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lmprobes.suites.olmpics.seed_curves import split_seed_curves


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("curves", nargs="+", type=Path, help="MC-QA curve files (<task>.<variant>.parquet)")
    for curve in parser.parse_args(argv).curves:
        for out in split_seed_curves(curve):
            print(out)


if __name__ == "__main__":
    main()
