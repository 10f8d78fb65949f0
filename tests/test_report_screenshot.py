"""Headless Chromium screenshots: a picture of what a page draws, and clear errors when it cannot be taken."""

from __future__ import annotations

from pathlib import Path

import matplotlib.image
import numpy as np
import pytest

from lmprobes.report.screenshot import CHROMIUM, ScreenshotError, main, screenshot

needs_chromium = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no chromium at {CHROMIUM}")
# White page, a red heading drawn by script (as the React report is) and a blue block of known size.
PAGE = """<!DOCTYPE html><html><body style="margin:0;background:#fff">
<div id="late"></div>
<div style="position:absolute;left:0;top:100px;width:200px;height:100px;background:#0000ff"></div>
<script>setTimeout(function () {
  document.getElementById("late").innerHTML = '<div style="width:300px;height:50px;background:#ff0000"></div>';
}, 2000);</script>
</body></html>
"""


@needs_chromium
def test_screenshot_draws_the_page_after_its_scripts(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    png = screenshot(page, tmp_path / "out" / "page.png", width=400, height=300)
    pixels = matplotlib.image.imread(png)[..., :3]
    assert pixels.shape == (300, 400, 3)
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 1
    assert np.allclose(pixels[150, 100], [0, 0, 1])  # the blue block
    assert np.allclose(pixels[25, 150], [1, 0, 0])  # drawn 2 s after load: the virtual-time budget waited
    assert np.allclose(pixels[280, 380], [1, 1, 1])


def test_missing_chromium_is_a_clear_error(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    with pytest.raises(ScreenshotError, match="chromium not found at '/nonexistent/chromium'"):
        screenshot(page, tmp_path / "page.png", chromium="/nonexistent/chromium")


def test_failing_chromium_is_a_clear_error(tmp_path):
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\necho 'cannot open display' >&2\nexit 3\n")
    fake.chmod(0o755)
    with pytest.raises(ScreenshotError, match=r"(?s)exit 3.*cannot open display"):
        screenshot(page, tmp_path / "page.png", chromium=str(fake))


def test_a_hanging_chromium_is_stopped(tmp_path, monkeypatch):
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    fake = tmp_path / "chromium"
    fake.write_text("#!/bin/sh\nsleep 30 &\nsleep 30\n")  # a helper process, as Chromium starts
    fake.chmod(0o755)
    monkeypatch.setattr("lmprobes.report.screenshot.TIMEOUT_S", 1)
    with pytest.raises(ScreenshotError, match="took more than 1 s"):
        screenshot(page, tmp_path / "page.png", chromium=str(fake))


def test_missing_page_and_bad_size_are_refused(tmp_path):
    with pytest.raises(ScreenshotError, match="no such HTML file"):
        screenshot(tmp_path / "absent.html", tmp_path / "page.png")
    page = tmp_path / "page.html"
    page.write_text(PAGE)
    with pytest.raises(ScreenshotError, match="window size must be positive"):
        screenshot(page, tmp_path / "page.png", width=0)


def test_command_line_reports_errors_with_exit_status_1(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "absent.html"), str(tmp_path / "page.png")])
    assert exit_info.value.code == 1
    assert "no such HTML file" in capsys.readouterr().err
