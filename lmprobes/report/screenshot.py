"""A PNG screenshot of an HTML file (the Snakemake report) with headless Chromium.

Why these flags: the report must render offline and leave nothing behind, so Chromium gets a fresh
profile folder (deleted afterwards) and every background service that would reach the network (sync,
component updates, QUIC) is off. ``--no-sandbox`` because CI runs as root in a container, where
Chromium's sandbox cannot start. Snakemake's report is a React single-page app that draws after its
scripts run: ``--virtual-time-budget`` lets the page's timers and scripts run (in virtual time, so
quickly) before the picture is taken, else it shows "Loading...".

Usage: ``python -m lmprobes.report.screenshot report.html report.png [--width W] [--height H]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
VIRTUAL_TIME_MS = 15000
TIMEOUT_S = 180


class ScreenshotError(ValueError):
    """Chromium is missing, failed, or wrote no picture; the message says which and shows its output."""


def chromium_command(chromium: str, html: Path, png: Path, width: int, height: int, profile: Path) -> list[str]:
    return [
        chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={profile}", "--hide-scrollbars", f"--virtual-time-budget={VIRTUAL_TIME_MS}",
        f"--screenshot={png}", f"--window-size={width},{height}", html.resolve().as_uri(),
    ]


def find_chromium(chromium: str) -> str:
    found = shutil.which(chromium)
    if found is None:
        raise ScreenshotError(f"chromium not found at {chromium!r}; install it (Debian: apt-get install -y "
                              "--no-install-recommends chromium) or pass its path")
    return found


def screenshot(html: Path, png: Path, width: int = 1400, height: int = 1800, chromium: str = CHROMIUM) -> Path:
    """Render ``html`` in headless Chromium and write a ``width`` x ``height`` PNG to ``png``."""
    html, png = Path(html), Path(png)
    if not html.is_file():
        raise ScreenshotError(f"{html}: no such HTML file")
    if width <= 0 or height <= 0:
        raise ScreenshotError(f"window size must be positive, got {width}x{height}")
    executable = find_chromium(chromium)
    png.parent.mkdir(parents=True, exist_ok=True)
    png.unlink(missing_ok=True)  # so that an old picture is never taken for a new one
    with tempfile.TemporaryDirectory(prefix="lmprobes-chromium-") as profile:
        command = chromium_command(executable, html, png.resolve(), width, height, Path(profile))
        returncode, stderr = run_chromium(command, html)
    if returncode != 0 or not png.is_file() or png.stat().st_size == 0:
        raise ScreenshotError(f"chromium failed on {html} (exit {returncode}, no picture written):\n{stderr[-2000:]}")
    return png


def run_chromium(command: list[str], html: Path) -> tuple[int, str]:
    """Exit status and stderr; Chromium runs in its own process group, all of it killed on a timeout."""
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          start_new_session=True) as process:
        try:
            _, stderr = process.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # its renderer and GPU helpers too
            process.communicate()
            raise ScreenshotError(f"chromium took more than {TIMEOUT_S} s on {html}") from None
    return process.returncode, stderr


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("html", type=Path)
    parser.add_argument("png", type=Path)
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--height", type=int, default=1800)
    parser.add_argument("--chromium", default=CHROMIUM)
    args = parser.parse_args(argv)
    try:
        screenshot(args.html, args.png, args.width, args.height, args.chromium)
    except ScreenshotError as error:
        parser.exit(1, f"error: {error}\n")
    print(args.png)


if __name__ == "__main__":
    main()
