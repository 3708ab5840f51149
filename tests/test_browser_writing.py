"""Notebook 07's writing desk in a real browser: Voilà runs notebooks/07_write_with_the_model.ipynb, then a learner
types a word, presses Write, watches it play, and switches to PD alone.  Headless Chromium through Playwright, with
the servers, tabs and skip rules of tests/test_browser.py (screenshots in artifacts/browser/writing-*.png).

The logic (kinematics shown, errors, caching, bad input) is tested without a browser in tests/test_writing.py;
this test covers what only a browser shows: the widgets render, the Play button animates the image through the
kernel, and the toggles reach the kernel; every image on the page (the notebook's three figures, the desk's) has a
text alternative (axe-core's image-alt), the desk's following the word shown.
"""
import re

import numpy as np
import pytest
from test_browser import PAGE_MS, UI_MS, Tab, _axe_rules, _watch, artifacts, browser, voila_server  # noqa: F401

from lesson_lib.data import write_word

try:
    from playwright.sync_api import expect
except ImportError:                                    # the `browser` fixture skips (or fails in CI)
    expect = None

ARTIFACT_NAMES = {"writing", "voila07"}              # this file's tab and server (the `artifacts` fixture clears them)
NOTEBOOK = "notebooks/07_write_with_the_model.ipynb"
RUN_MS = 2 * PAGE_MS                                   # Voilà runs the whole notebook (training, tracking) first
WRITE_MS = 120_000                                     # one word tracked on the true arm (3-8 s alone)


def duration(word, speed=1.0):
    """The readout's total time of a word: its last control tick (s), as text."""
    return f"{np.ceil(write_word(word, speed=0.3 * speed).duration / 0.01 - 1e-9) * 0.01:.2f}"


@pytest.fixture(scope="module")
def voila_07(request, browser, tmp_path_factory):      # noqa: F811 -- the fixture imported above
    yield from voila_server(request, tmp_path_factory, "voila07", NOTEBOOK)


@pytest.fixture
def tab(request, browser, voila_07):                   # noqa: F811
    with Tab(browser, "writing-voila") as tab:
        yield from _watch(request, tab)


def settled(desk, word):
    """Wait until the desk shows `word` (its duration in the readout) and is not busy."""
    expect(desk.locator(".writing-readout")).to_contain_text(f"of {duration(word)} s", timeout=WRITE_MS)
    expect(desk.locator("button.writing-write")).to_be_enabled(timeout=WRITE_MS)
    expect(desk.locator(".writing-busy")).to_have_count(0, timeout=WRITE_MS)


def test_writing_desk_in_voila(tab, voila_07):
    page = tab.page
    page.goto(voila_07.url + "/", timeout=RUN_MS)
    desk = page.locator(".writing")
    expect(desk).to_have_count(1, timeout=RUN_MS)
    assert "WritingDesk(" not in page.locator("body").inner_text(), "Voilà must not show the code"
    desk.scroll_into_view_if_needed()
    img = desk.locator("img.writing-plot")
    expect(img).to_have_attribute("src", re.compile(r"^(blob:|data:image/png)"), timeout=UI_MS)
    settled(desk, "hello")
    expect(desk.locator(".writing-controller button.mod-active")).to_have_text("DeLaN")
    assert img.evaluate("el => el.decode().then(() => el.naturalWidth)") > 400
    expect(img).to_have_attribute("alt", re.compile("“hello” with DeLaN"), timeout=UI_MS)
    violations = _axe_rules(page, "body", ["image-alt"], "writing-voila")      # the notebook's figures, the desk's
    assert not violations and page.locator("img[alt^='Figure']").count() == 3, violations
    tab.shot("0-hello")

    desk.locator(".writing-word input").fill("ab")
    desk.locator("button.writing-write").click()
    settled(desk, "ab")
    first = img.get_attribute("src")
    expect(desk.locator(".writing-t")).not_to_have_text("0.00", timeout=UI_MS)       # Play runs in the browser
    expect(img).not_to_have_attribute("src", first, timeout=UI_MS)                   # and the kernel redraws
    tab.shot("1-ab-playing")
    delan_rms = float(desk.locator(".writing-rms").inner_text())

    desk.locator(".writing-controller button", has_text="PD alone").click()
    expect(desk.locator(".writing-rms")).not_to_have_text(f"{delan_rms:.2f}", timeout=WRITE_MS)
    settled(desk, "ab")
    expect(img).to_have_attribute("alt", re.compile("“ab” with PD alone"), timeout=UI_MS)    # follows the word
    assert float(desk.locator(".writing-rms").inner_text()) > 10 * delan_rms        # PD alone sags and lags
    tab.shot("2-pd-alone")

    page.set_viewport_size({"width": 1000, "height": 900})        # a laptop's window: the figure shrinks, whole
    page.wait_for_timeout(300)
    img.scroll_into_view_if_needed()
    box, shown = img.bounding_box(), img.evaluate("el => el.getBoundingClientRect().width / el.naturalWidth")
    tab.shot("3-at-1000px")
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1000, f"the desk's figure is cut off at 1000 px: {box}"
    assert shown >= 0.75, f"the figure is shown at {shown:.2f} of its size: its 13 px text would be under 10 px"
