"""How long a learner waits: the learners' edition installed into a fresh virtualenv, then JupyterLab serving.

Writes the edition (`lesson-tools release`) into a temporary folder, then times, in a brand-new virtualenv, the
edition's own set-up command `pip install --no-compile -r binder/requirements.txt -e .` (pip's cache as it is on
this machine: run once before to fill it), and the time from starting `jupyter lab` to its first answer on
loopback.  Goal (issue 17): the install ≤ 45 s on the 2-core machine, idle.  Prints the figures, the package
count and the virtualenv's size; asserts nothing.

Run:  python benchmarks/bench_edition_install.py [--repeats N]
"""
import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from lesson_tools import release


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _size_mb(folder):
    return sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file() and not p.is_symlink()) / 1e6


def once(folder, compile_bytecode=True):
    """(install seconds, seconds to a serving JupyterLab, packages, venv MB) for one fresh virtualenv."""
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env['PATH']}")
    t0 = time.perf_counter()
    subprocess.run([py, "-m", "pip", "install", "-q", *([] if compile_bytecode else ["--no-compile"]),
                    "-r", "binder/requirements.txt", "-e", "."], cwd=folder / "edition", env=env, check=True)
    install = time.perf_counter() - t0
    packages = len(subprocess.run([py, "-m", "pip", "list", "--format=freeze"], env=env, capture_output=True,
                                  text=True, check=True).stdout.split())
    port = _free_port()
    t0 = time.perf_counter()
    lab = subprocess.Popen([py, "-m", "jupyter", "lab", "--no-browser", "--allow-root", f"--port={port}",
                            "--ip=127.0.0.1", "--ServerApp.token=", "notebooks/00_start_here.ipynb"],
                           cwd=folder / "edition", env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/lab", timeout=2).read()
                break
            except OSError:
                if time.perf_counter() - t0 > 120 or lab.poll() is not None:
                    raise RuntimeError("JupyterLab did not answer within 120 s") from None
                time.sleep(0.2)
        serving = time.perf_counter() - t0
    finally:
        lab.terminate()
        lab.wait(30)
    size = _size_mb(venv)
    shutil.rmtree(venv)
    return install, serving, packages, size


def main(repeats=3):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        release.release(folder / "edition", log=lambda *_: None, allow_uncommitted=True)
        print(f"load average before: {os.getloadavg()[0]:.1f}")
        for i in range(repeats):
            for compile_bytecode in (True, False):
                install, serving, packages, size = once(folder, compile_bytecode)
                how = "pip install" if compile_bytecode else "pip install --no-compile"
                print(f"run {i + 1}, {how:25s}: install {install:5.1f} s (goal <= 45 s), jupyter lab answering "
                      f"after {serving:4.1f} s, {packages} packages, venv {size:.0f} MB")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    main(parser.parse_args().repeats)
