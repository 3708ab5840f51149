"""The Bench's Train press in a real browser: click to final redraw, and how much of it the kernel's own work is.

    python benchmarks/bench_browser_press.py                       this repository's Bench
    python benchmarks/bench_browser_press.py --against OTHER_CHECKOUT   the same, interleaved with another
                                                                   checkout's (e.g. a git worktree of an older
                                                                   commit): before and after, in one run

Each checkout's Bench app (notebooks/bench_app.ipynb) is served by Voilà with that checkout first on the kernel's
path and opened in headless Chromium (the system one, as tests/test_browser.py uses, whose server and page
helpers this reuses).  Then, in rounds that alternate between the checkouts, Train is clicked and the page
records every update of the Bench (the ARIA carrier's data-bench-step, written last in each update); after each
press the same steps run alone (one fit, a fresh process, no page).  Printed per checkout: click to final redraw
(the learner's wait), the kernel's own time for the press (the Bench's message, "in X s"), what is left
(websocket, the page's decoding and painting, the click's way to the kernel), and the live updates the page
received.  Best and median over the presses; the load average is printed too.

Against another checkout, each round's two presses and two fits make a pair: the round's ratio of the presses
(this checkout / the other) and of the steps alone.  A busy machine slows a whole round, and a ratio within a
round cancels most of it.  Printed: the median of the rounds' ratios with a distribution-free 95 % interval (the
sign test's: order statistics, no assumption on the noise's shape; from 6 rounds), and the same for their
difference, press ratio minus steps ratio, with the verdict it supports: the press shrank at least as much as the
steps (the whole interval at or below 0), less (above 0), or the run cannot tell (the interval holds 0).

Not a test: it asserts nothing and judges no speed (tests/test_browser.py checks the press's behaviour).  Needs
playwright and /usr/bin/chromium (or $CHROMIUM), as the browser tests do.
"""
import argparse
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import test_browser as tb  # noqa: E402  (its servers and page helpers)

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


def median_interval(values, confidence=0.95):
    """(median, (low, high)) of `values`: the median and the distribution-free interval (x_(k), x_(n+1-k)) of
    the sorted values, with the largest k for which P(k <= B <= n - k) >= confidence, B ~ Binomial(n, 1/2)
    (the sign test's interval for a median).  (low, high) is None when n is too small for any k (n < 6 at 95 %)."""
    x, n = sorted(values), len(values)
    if n == 0:
        raise ValueError("median_interval needs at least one value")
    below = lambda k: sum(math.comb(n, i) for i in range(k)) / 2 ** n      # noqa: E731  (P(B < k))
    ks = [k for k in range(1, n // 2 + 1) if 1 - 2 * below(k) >= confidence]
    return statistics.median(x), ((x[ks[-1] - 1], x[n - ks[-1]]) if ks else None)


def _described(median, interval):
    """A median and its interval (from median_interval) as printed."""
    return f"{median:.2f}" + (f" (95 % interval {interval[0]:.2f} to {interval[1]:.2f})" if interval else
                              " (too few rounds for an interval; 6 or more give one)")


def paired_verdict(rows_a, rows_b):
    """Lines comparing two checkouts round by round: rows are (press s, kernel s, live updates, steps alone s)."""
    press = [a[0] / b[0] for a, b in zip(rows_a, rows_b, strict=True)]
    steps = [a[3] / b[3] for a, b in zip(rows_a, rows_b, strict=True)]
    gap = [p - s for p, s in zip(press, steps, strict=True)]
    gap_median, interval = median_interval(gap)
    if interval is None:
        verdict = "too few rounds to tell"
    elif interval[1] <= 0:
        verdict = "the press in the browser shrank at least as much as the steps"
    elif interval[0] > 0:
        verdict = "the press in the browser shrank less than the steps"
    else:
        verdict = "this run cannot tell whether the press shrank as much as the steps (the interval holds 0)"
    return [f"round by round, this checkout / the other: the press in the browser "
            f"{_described(*median_interval(press))}; the steps alone {_described(*median_interval(steps))}",
            f"the press's ratio minus the steps' ratio: {_described(gap_median, interval)}: {verdict}"]


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
                for checkout, (page, bench) in zip(checkouts, pages, strict=True):
                    results[checkout].append((*press(page, bench), fit_alone(checkout)))
        finally:
            context.close()
            for server in servers:
                server.stop()
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} "
          f"cores; Voilà, headless Chromium; {args.rounds} presses each, interleaved")
    medians = {}
    for checkout, rows in results.items():
        total, kernel, live, alone = zip(*rows, strict=True)
        page_part = [t - k for t, k in zip(total, kernel, strict=True)]
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
        print("\n".join(paired_verdict(*results.values())))


if __name__ == "__main__":
    main()
