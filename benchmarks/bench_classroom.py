"""A classroom on one machine's JupyterHub: each learner opens 03 in JupyterLab and runs it, then the Bench app in
Voilà, and presses Train; the press times they see, all at once and spread over a minute at several rates, the
memory each learner holds, and the sizing of a hub for 30, 100 and 300 learners that follows from them.

    python benchmarks/bench_classroom.py                       # N = 2, 4, 8, 12, 16; spread: 1, 4, 8 presses each
    python benchmarks/bench_classroom.py --learners 2 4 --rates 1 2 --window 30

A real local JupyterHub (tests/test_hub.py's: DummyAuthenticator, SimpleLocalProcessSpawner, configurable-http-proxy,
the learners' edition served from git with binder/jupyter-settings applied), headless Chromium.  Each learner logs
in, follows 03's link into JupyterLab and runs all its cells (the page is then closed, its kernel kept, as a learner
who leaves Lab open in another tab), follows the Bench app's link into Voilà and presses once to warm up.  Memory per
learner: the resident memory of their single-user server and both kernels (/proc, matched by JUPYTERHUB_USER).
Each press is timed in its page from the click to the Bench's last update (bench_browser_press's measure).

- *All at once*: N learners press together, for each N given: p50 and p95.
- *Spread over the window*: all learners press `rate` times each at random moments within the window (a learner's
  next press waits for their last to end): p50 and p95 per rate, beside the CPU share the presses need,
  presses x t_press / window / cores, t_press being a press's work in the kernel as benchmarks/RESULTS.md gives it
  (bench_bench.py's median, read from that file).

The sizing it prints, by formulas the guide (lesson_tools/README.md) states:
  memory           = class x the memory a learner holds (at the largest N)
  cores, at once   = class / (the largest N whose p95 <= 3 s, per core)
  cores, spread    = class x 1 press x t_press / 60 s / U, U the largest CPU share measured whose p95 stayed <= 3 s
Not a test: it asserts nothing.  The machine's load average is printed: other work on it lengthens every press.
"""
import argparse
import math
import os
import random
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
import test_browser as tb  # noqa: E402  (Chromium's options, the page's press recorder)
import test_hub as th  # noqa: E402  (the local JupyterHub)

from lesson_tools import links  # noqa: E402

GOAL_P95_S = 3.0
CLASSES = (30, 100, 300)
RESULTS = ROOT / "benchmarks" / "RESULTS.md"


def press_seconds(results=RESULTS):
    """A Train press's work in the kernel, in seconds: bench_bench.py's median in benchmarks/RESULTS.md."""
    line = next(line for line in results.read_text(encoding="utf-8").splitlines() if "`bench_bench.py`" in line)
    return float(re.search(r"median (\d+(?:\.\d+)?) s", line).group(1))


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


DONE_JS = ("() => { const r = window.__benchPress; return r && r.clicked !== null && r.snaps.length && "
           "r.snaps[r.snaps.length - 1].busy === 'false' && r.snaps.some(s => s.busy === 'true'); }")


def click(page):
    page.locator(".bench").evaluate(tb._RECORD_PRESS_JS)
    page.locator("button.bench-train").evaluate("b => b.click()")


def finish(page):
    """Wait for the page's press to end; its seconds, click to the Bench's last update."""
    page.wait_for_function(DONE_JS, timeout=600_000)
    return tb._press_time(page)


def press(pages, window_s=0.0, rate=1):
    """Every page presses `rate` times, all at once (window_s = 0) or at random moments within window_s; the seconds
    of each press."""
    moments = sorted((random.uniform(0, window_s), k) for k in range(len(pages)) for _ in range(rate))
    pending, seconds = set(), []
    start = time.monotonic()
    for at, k in moments:
        time.sleep(max(0.0, at - (time.monotonic() - start)))
        if k in pending:                                   # this learner's last press first
            seconds.append(finish(pages[k]))
        click(pages[k])
        pending.add(k)
    seconds += [finish(pages[k]) for k in sorted(pending)]
    return seconds


def join(browser, url, lab, voila, k):
    """Learner k: log in, run 03 in JupyterLab (the page closed, its kernel kept), open the Bench app in Voilà and
    press once; the Voilà page."""
    from playwright.sync_api import expect
    context = browser.new_context(viewport={"width": 1400, "height": 1300})
    with tb.Tab(context, f"classroom{k}") as tab:
        th.login(tab.page, url, f"learner{k}")
        tb._open_and_run_all(tab, lab)
        expect(tab.page.locator(".jp-CodeCell .jp-InputArea-prompt", has_text="[*]")).to_have_count(
            0, timeout=600_000)
    page = context.new_page()
    page.goto(voila)
    page.wait_for_selector(".bench button.bench-train", timeout=600_000)
    press([page])
    return page


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--learners", type=int, nargs="+", default=[2, 4, 8, 12, 16])
    p.add_argument("--rates", type=int, nargs="+", default=[1, 4, 8],
                   help="presses per learner within the window, for the spread rounds (all learners)")
    p.add_argument("--window", type=float, default=60.0, help="seconds the spread presses fall within")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    random.seed(args.seed)
    from playwright.sync_api import sync_playwright
    t_press, cores = press_seconds(), len(os.sched_getaffinity(0))
    folder = Path(tempfile.mkdtemp(prefix="bench-classroom-"))
    proc, url, repo, log = th.start(folder)
    together, spread, memory = {}, {}, {}
    print(f"load average at the start: {os.getloadavg()[0]:.1f} ({cores} cores)", flush=True)
    try:
        rows = {name: row for name, *row in links.hub_links(url, repo, notebooks=["03_guided_practice", "bench_app"])}
        lab, voila = rows["03_guided_practice"][0], rows["bench_app"][1]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=tb._chromium(), headless=True, args=tb.CHROMIUM_ARGS)
            pages = []
            for n in sorted(args.learners):
                while len(pages) < n:
                    pages.append(join(browser, url, lab, voila, len(pages) + 1))
                memory[n] = statistics.mean(learner_memory_mb(f"learner{k + 1}") for k in range(n))
                together[n] = press(pages[:n])
                print(f"{n} learners, all at once: p50 {statistics.median(together[n]):.2f} s, p95 "
                      f"{percentile(together[n], 95):.2f} s; {memory[n]:.0f} MB per learner (server, 03's kernel, "
                      f"the Bench's kernel); load average {os.getloadavg()[0]:.1f}", flush=True)
            for rate in sorted(args.rates):
                spread[rate] = press(pages, args.window, rate)
                share = len(pages) * rate * t_press / args.window / cores
                print(f"{len(pages)} learners x {rate} press{'es' if rate > 1 else ''} within {args.window:g} s "
                      f"({len(pages) * rate * 60 / args.window:.0f} per minute, CPU share {share:.2f}): p50 "
                      f"{statistics.median(spread[rate]):.2f} s, p95 {percentile(spread[rate], 95):.2f} s; load "
                      f"average {os.getloadavg()[0]:.1f}", flush=True)
            browser.close()
    finally:
        th.stop(proc, log)
        shutil.rmtree(folder, ignore_errors=True)
    n_max = max(memory)
    memory_gb = memory[n_max] / 1024
    within = [n for n in together if percentile(together[n], 95) <= GOAL_P95_S]
    per_core = max(within) / cores if within else None
    shares = [n_max * r * t_press / args.window / cores for r in spread if percentile(spread[r], 95) <= GOAL_P95_S]
    usable = max(shares) if shares else None
    print(f"\nt_press {t_press:g} s (benchmarks/RESULTS.md, bench_bench.py); memory per learner {memory_gb:.2f} GB "
          f"(at N = {n_max}); simultaneous presses per core within p95 {GOAL_P95_S:g} s: "
          f"{per_core if per_core is None else round(per_core, 1)}; largest CPU share measured within the goal U = "
          f"{usable if usable is None else round(usable, 2)}")
    print("class | memory (class x memory per learner) | cores if every learner presses at once (class / presses per "
          "core) | cores if each presses once within a minute (class x t_press / 60 s / U)")
    for size in CLASSES:
        at_once = math.ceil(size / per_core) if per_core else "?"
        once_a_minute = math.ceil(size * t_press / 60 / usable) if usable else "?"
        print(f"{size} | {size * memory_gb:.0f} GB | {at_once} | {once_a_minute}")


if __name__ == "__main__":
    main()
