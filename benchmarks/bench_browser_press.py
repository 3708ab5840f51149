"""The Bench's Train press in a real browser: click to final redraw, and how much of it the kernel's own work is.

    python benchmarks/bench_browser_press.py                       this repository's Bench
    python benchmarks/bench_browser_press.py --against OTHER_CHECKOUT   the same, interleaved with another
                                                                   checkout's (e.g. a git worktree of an older
                                                                   commit): before and after, in one run

Each checkout's Bench app (notebooks/bench_app.ipynb) is served by Voilà with that checkout first on the kernel's
path and opened in headless Chromium (the system one, as tests/test_browser.py uses, whose server and page
helpers this reuses).  Then, in rounds that alternate between the checkouts, Train is clicked and the page
records every update of the Bench (the ARIA carrier's data-bench-step, written last in each update).  Printed per
checkout: click to final redraw (the learner's wait), the kernel's own time for the press (the Bench's message,
"in X s"), what is left (websocket, the page's decoding and painting, the click's way to the kernel), and the
live updates the page received.  Best and median over the presses; the load average is printed too.

Not a test: it asserts nothing and judges no speed (tests/test_browser.py checks the press's behaviour).  Needs
playwright and /usr/bin/chromium (or $CHROMIUM), as the browser tests do.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import test_browser as tb                                             # noqa: E402  (its servers and page helpers)

KERNEL_TIME = re.compile(r"Trained \d+ steps \(step \d+ → (\d+)\) in ([0-9.]+) s")
# The same steps without the Bench (no live updates, no page): the Bench's default model and data, one fit.
FIT_ALONE = """
import time
from lesson_lib import DeLaN, double_pendulum, sample_uniform
from lesson_lib.facts import N_SAMPLES, SEED, STEPS_PER_PRESS
d = sample_uniform(double_pendulum(), N_SAMPLES, seed=SEED)
model = DeLaN(seed=SEED)
t0 = time.perf_counter()
model.fit(d["q"], d["qd"], d["qdd"], d["tau"], steps=STEPS_PER_PRESS)
print(time.perf_counter() - t0)
"""


def first_on_path(checkout, env):
    """`env` with `checkout` first on PYTHONPATH: its lesson_lib is the one imported."""
    return dict(env, PYTHONPATH=os.pathsep.join(filter(None, [str(checkout), env.get("PYTHONPATH")])))


def serve(checkout, tmp):
    """Voilà serving `checkout`'s Bench app, its kernel importing `checkout`'s lesson_lib."""
    env = first_on_path(checkout, tb._jupyter_env(tmp))
    argv = lambda port: [                                                                 # noqa: E731
        sys.executable, "-m", "voila", str(checkout / tb.NOTEBOOK), "--no-browser", f"--port={port}",
        "--Voila.ip=127.0.0.1", "--Voila.port_retries=0"]
    server = tb.Server(checkout.name, argv, env, tmp / "server.log")
    return server.start("/voila/static/")


def open_bench(context, server):
    page = context.new_page()
    page.goto(server.url + "/")
    bench = page.locator(".bench")
    tb.expect(bench).to_have_count(1, timeout=tb.PAGE_MS)
    tb.expect(bench.locator(".bench-badge")).to_contain_text("FAIL", timeout=tb.UI_MS)
    return page, bench


# Records each update of the Bench (its ARIA carrier's data-bench-step and data-bench-busy, written last in an
# update) and resolves once a press has ended: busy "false" at a new step.  Waiting on this promise is one call
# into the page; Playwright's expect() would poll the page all through the press, and that polling cost the
# renderer about half a second of CPU per press, taken from the kernel on a 2-core machine: the benchmark's
# own work, not the learner's.
_AWAIT_PRESS_JS = """root => {
    const before = root.getAttribute('data-bench-step');
    const rec = window.__benchPress = {snaps: [], clicked: null};
    rec.done = new Promise(resolve => new MutationObserver(() => {
        const s = {t: performance.now(), step: root.getAttribute('data-bench-step'),
                   busy: root.getAttribute('data-bench-busy')};
        rec.snaps.push(s);
        if (s.busy === 'false' && s.step !== before) resolve();
    }).observe(root, {attributes: true, attributeFilter: ['data-bench-step', 'data-bench-busy']}));
    root.addEventListener('click', e => {
        if (rec.clicked === null && e.target.closest('button.bench-train')) rec.clicked = performance.now();
    }, true);
}"""


def press(page, bench):
    """One Train press: (click to final redraw s, the kernel's s, live updates the page received)."""
    bench.evaluate(_AWAIT_PRESS_JS)
    before = int(bench.locator(".bench-status .bench-step").inner_text())
    bench.locator("button.bench-train").click()
    ended = page.evaluate("ms => Promise.race([window.__benchPress.done.then(() => true), "
                          "new Promise(resolve => setTimeout(() => resolve(false), ms))])", tb.TRAIN_MS)
    if not ended:
        raise RuntimeError(f"the press did not end within {tb.TRAIN_MS / 1000:.0f} s")
    message = bench.locator(".bench-message").inner_text()
    match = KERNEL_TIME.search(message)
    if match is None:
        raise RuntimeError(f"the press did not end with the Bench's 'Trained ... in X s' message: {message!r}")
    rec = page.evaluate("({snaps: window.__benchPress.snaps, clicked: window.__benchPress.clicked})")
    live = [s for s in rec["snaps"] if s["busy"] == "true" and int(s["step"]) > before]
    return (rec["snaps"][-1]["t"] - rec["clicked"]) / 1000, float(match.group(2)), len(live)


def fit_alone(checkout):
    """Seconds of one fit of the Bench's steps with `checkout`'s lesson_lib, in a fresh process."""
    out = subprocess.run([sys.executable, "-c", FIT_ALONE], cwd=checkout, env=first_on_path(checkout, os.environ),
                         capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, default=None, help="another checkout to race, interleaved")
    parser.add_argument("--rounds", type=int, default=4, help="presses per checkout (default 4)")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    checkouts = [ROOT] + ([args.against.resolve()] if args.against else [])
    for checkout in checkouts:
        if not (checkout / tb.NOTEBOOK).is_file():
            parser.error(f"{checkout} has no {tb.NOTEBOOK}")
    exe = tb._chromium()
    if tb.sync_playwright is None or exe is None:
        print("bench_browser_press: needs playwright and chromium (pip install -r requirements.txt; apt-get "
              "install chromium); nothing measured")
        return
    with tempfile.TemporaryDirectory() as tmp, tb.sync_playwright() as pw:
        tmp = Path(tmp)
        servers = [serve(c, Path(tempfile.mkdtemp(dir=tmp))) for c in checkouts]
        context = pw.chromium.launch_persistent_context(str(tmp / "profile"), executable_path=exe, headless=True,
                                                        args=tb.CHROMIUM_ARGS, viewport=tb.VIEWPORT)
        try:
            pages = [open_bench(context, s) for s in servers]
            results = {c: [] for c in checkouts}
            for _ in range(args.rounds):
                for checkout, (page, bench) in zip(checkouts, pages):
                    results[checkout].append((*press(page, bench), fit_alone(checkout)))
        finally:
            context.close()
            for server in servers:
                server.stop()
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} "
          f"cores; Voilà, headless Chromium; {args.rounds} presses each, interleaved")
    medians = {}
    for checkout, rows in results.items():
        total, kernel, live, alone = zip(*rows)
        page_part = [t - k for t, k in zip(total, kernel)]
        medians[checkout] = statistics.median(total), statistics.median(alone)
        print(f"{checkout}: click to final redraw best {min(total):.2f} s, median {statistics.median(total):.2f} s "
              f"({', '.join(f'{t:.2f}' for t in total)}); the kernel's press best {min(kernel):.2f}, median "
              f"{statistics.median(kernel):.2f} s; the rest (websocket, page) median "
              f"{statistics.median(page_part):.2f} s; live updates in the page {min(live)}-{max(live)}; the same "
              f"steps alone (fit, fresh process) best {min(alone):.2f}, median {statistics.median(alone):.2f} s")
    if len(checkouts) == 2:
        (press_a, fit_a), (press_b, fit_b) = medians.values()
        print(f"this checkout / the other, medians: the press in the browser {press_a / press_b:.2f}, the training "
              f"alone {fit_a / fit_b:.2f}")


if __name__ == "__main__":
    main()
