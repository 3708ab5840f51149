"""A classroom on one machine's JupyterHub: N learners open the Bench app (Voilà) from its nbgitpuller link and press
Train, all at once and spread over a window; the press times they see (p50, p95) and the memory each learner holds.

    python benchmarks/bench_classroom.py                      # N = 2, 4, 6, 8 learners, all at once and spread over 60 s
    python benchmarks/bench_classroom.py --learners 4 8 --spread 30

A real local JupyterHub (tests/test_hub.py's: DummyAuthenticator, SimpleLocalProcessSpawner, configurable-http-proxy,
the learners' edition served from git with binder/jupyter-settings applied), one headless Chromium page per learner.
Each learner first presses once to warm up (spawn, pull, first training), then every learner's press is timed in its
page from the click to the Bench's last update (the same measure as bench_browser_press).  Memory per learner: the
resident memory of the learner's single-user server and kernel (read from /proc, matched by JUPYTERHUB_USER).  At the
end it prints, from the largest N whose simultaneous p95 stays within the goal (3 s), the presses per core a machine
carries, and the cores and memory a class of 30, 100 and 300 needs if every learner presses at once, and if the
presses spread over the window (from a press's own CPU time, at most 70 % busy).  Not a test: it asserts nothing.
"""
import argparse
import math
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import test_browser as tb                       # noqa: E402  (Chromium's options, the page's press recorder)
import test_hub as th                           # noqa: E402  (the local JupyterHub)
from lesson_tools import links                  # noqa: E402

GOAL_P95_S = 3.0
CLASSES = (30, 100, 300)


def learner_memory_mb(username):
    """Resident memory (MB) of the processes whose environment says JUPYTERHUB_USER=username."""
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            env = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
            if f"JUPYTERHUB_USER={username}".encode() not in env:
                continue
            total += int(next(line.split()[1] for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                              if line.startswith("VmRSS:")))
        except (OSError, StopIteration, ValueError):
            continue
    return total / 1024


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, max(0, math.ceil(p / 100 * len(values)) - 1))]


def press_all(pages, spread_s):
    """Press Train on every page, all at once (spread_s = 0) or at random moments within spread_s; the seconds each
    press took, click to the Bench's last update, as each page measured it."""
    for page in pages:
        page.locator(".bench").evaluate(tb._RECORD_PRESS_JS)
    moments = sorted((random.uniform(0, spread_s), k) for k in range(len(pages)))
    start = time.monotonic()
    for at, k in moments:
        time.sleep(max(0.0, at - (time.monotonic() - start)))
        pages[k].locator("button.bench-train").evaluate("b => b.click()")
    seconds = []
    for page in pages:
        page.wait_for_function("() => { const r = window.__benchPress; return r && r.clicked !== null && "
                               "r.snaps.length && r.snaps[r.snaps.length - 1].busy === 'false' && "
                               "r.snaps.some(s => s.busy === 'true'); }", timeout=600_000)
        seconds.append(tb._press_time(page))
    return seconds


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--learners", type=int, nargs="+", default=[2, 4, 6, 8])
    p.add_argument("--spread", type=float, default=60.0, help="seconds the spread presses fall within")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    random.seed(args.seed)
    from playwright.sync_api import sync_playwright
    folder = Path(tempfile.mkdtemp(prefix="bench-classroom-"))
    proc, url, repo, log = th.start(folder)
    rows, cores = [], len(os.sched_getaffinity(0))
    try:
        _, voila = links.hub_links(url, repo, notebooks=["bench_app"])[0][1:]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=tb._chromium(), headless=True, args=tb.CHROMIUM_ARGS)
            pages = []
            for n in sorted(args.learners):
                while len(pages) < n:                          # a new learner: log in, pull, open, warm up
                    context = browser.new_context(viewport={"width": 1400, "height": 1300})
                    page = context.new_page()
                    th.login(page, url, f"learner{len(pages) + 1}")
                    page.goto(voila)
                    page.wait_for_selector(".bench button.bench-train", timeout=600_000)
                    press_all([page], 0)
                    pages.append(page)
                memory = [learner_memory_mb(f"learner{k + 1}") for k in range(n)]
                together = press_all(pages[:n], 0)
                spread = press_all(pages[:n], args.spread)
                rows.append((n, together, spread, statistics.mean(memory)))
                print(f"{n} learners on {cores} cores: all at once p50 {statistics.median(together):.2f} s, "
                      f"p95 {percentile(together, 95):.2f} s; spread over {args.spread:g} s p50 "
                      f"{statistics.median(spread):.2f} s, p95 {percentile(spread, 95):.2f} s; "
                      f"{statistics.mean(memory):.0f} MB per learner (server and kernel)", flush=True)
            browser.close()
    finally:
        th.stop(proc, log)
        shutil.rmtree(folder, ignore_errors=True)
    within = [n for n, together, _, _ in rows if percentile(together, 95) <= GOAL_P95_S]
    per_core = max(within) / cores if within else 0.0
    memory_gb = max(m for *_, m in rows) / 1024
    print(f"\nsimultaneous presses per core at p95 <= {GOAL_P95_S:g} s: {per_core:.1f} (largest N within the goal: "
          f"{max(within) if within else 'none'}); memory per learner about {memory_gb:.2f} GB")
    # spread: a press alone costs about its uncontended time in CPU seconds (training is one thread); a class whose
    # presses fall within the window keeps ceil(size * that / window / 0.7) cores 70 % busy at most
    alone = statistics.median(t for _, _, spread, _ in rows for t in spread)
    print(f"a press alone: {alone:.2f} s; spread over {args.spread:g} s, cores = class x {alone:.2f} s / "
          f"{args.spread:g} s / 0.7 (70 % busy at most)")
    print("class | memory | cores if every learner presses at once | cores if the presses spread over the window")
    for size in CLASSES:
        at_once = math.ceil(size / per_core) if per_core else "?"
        spread_cores = max(1, math.ceil(size * alone / args.spread / 0.7))
        print(f"{size} | {size * memory_gb:.0f} GB | {at_once} | {spread_cores}")

if __name__ == "__main__":
    main()
