"""The class report's page as a teacher sees it: in Chromium, screenshotted (artifacts/browser/report-*.png), checked
by axe-core, fetching nothing, running nothing, no wider than the window.  Needs Chromium and axe-core (as
tests/test_grading_lms.py's feedback page); REQUIRE_BROWSER=1 makes their absence a failure."""
import json
import os
from pathlib import Path

import pytest
from class_report import M04, SCRIPT, graded_class

from lesson_tools.build import ROOT
from lesson_tools.grading import course_notebooks, report
from lesson_tools.grading.command import fresh_folder

ARTIFACTS = ROOT / "artifacts" / "browser"


def test_a_report_page_in_chromium_is_readable_accessible_and_self_contained(tmp_path):
    sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    axe = Path(os.environ.get("AXE_CORE") or ROOT / "build" / "npm" / "node_modules" / "axe-core" / "axe.min.js")
    exe = "/usr/bin/chromium"
    if not os.path.isfile(exe) or not axe.is_file():
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"no chromium or no axe-core at {axe}; REQUIRE_BROWSER=1 says the browser tests must run")
        pytest.skip("no chromium or axe-core")
    course = course_notebooks.load()
    subs, rows = graded_class(tmp_path / "class", course)
    report.write(fresh_folder(tmp_path / "report", "--report", report.MARK), subs, rows, course)
    page_file = tmp_path / "report" / f"{M04}.html"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=exe, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            page = browser.new_context(viewport={"width": 1000, "height": 800}).new_page()
            requests, errors, dialogs = [], [], []
            page.on("request", lambda r: requests.append(r.url))
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
            page.goto(page_file.as_uri())
            page.wait_for_load_state("load")
            page.screenshot(path=str(ARTIFACTS / "report-04.png"), full_page=True)
            assert page.locator("h1").inner_text() == f"{M04}: the class at a glance"
            images = page.locator("img")
            assert images.count() == 3 and all(images.nth(i).evaluate("i => i.complete && i.naturalWidth > 0")
                                               for i in range(3)), "a figure did not render"
            assert page.get_by_role("cell", name=SCRIPT).count() == 1      # the name shown as text, not as HTML
            width = page.evaluate("document.documentElement.scrollWidth")
            assert width <= 1000, f"the page is {width} px wide in a 1000 px window"
            assert [u for u in requests if not u.startswith(("file:", "data:"))] == [], requests
            assert not errors and not dialogs, (errors, dialogs)
            context = browser.new_context(viewport={"width": 1000, "height": 800}, bypass_csp=True)
            page = context.new_page()                     # axe is a script: the page's own CSP would refuse it
            page.goto(page_file.as_uri())
            page.add_script_tag(path=str(axe))
            result = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']}))"
                                   ".violations.map(v => [v.id, v.impact, v.help])")
            (ARTIFACTS / "report-04-axe.json").write_text(json.dumps(result, indent=1))
            assert result == [], result
        finally:
            browser.close()
