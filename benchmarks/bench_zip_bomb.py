"""What a zip bomb handed in costs the grader's intake (issue 56): a learner's zip of 10,000 bzip2 entries, each
MAX_BYTES (16 MB) of spaces, each under the per-file limit, about 2 MB in all; beside it, the same class with an
honest learner's zip.  Prints the CPU seconds of intake (finding, reading and identifying every file: all that
happens before any kernel starts) for each, and what the bomb's row says.

    python benchmarks/bench_zip_bomb.py [--entries 10000]

Before issue 56 the grader decompressed and parsed each entry before any limit applied: 166 s of CPU for 2,000
such entries against 2.7 s for the control, about 14 CPU-minutes for the whole zip.  A learner's zip is now read
once, counting the bytes it expands to as they are read (lesson_tools.grading.limits.MAX_UNZIPPED_BYTES): the goal
is a few seconds.
"""
import argparse
import bz2
import io
import resource
import struct
import tempfile
import zipfile
import zlib
from pathlib import Path

import nbformat

from lesson_tools.build import SOLUTIONS
from lesson_tools.grading import course_notebooks, limits
from lesson_tools.grading.grader import collect

M04 = "04_feedback"


def bomb(entries, size=None):
    """The bytes of a zip of `entries` bzip2 entries of `size` spaces (default MAX_BYTES), written by hand: the one
    compressed stream is made once and repeated (zipfile would compress each 16 MB again)."""
    size = limits.MAX_BYTES if size is None else size
    data, crc = bz2.compress(b" " * size, 9), zlib.crc32(b" " * size)
    out, central = io.BytesIO(), []
    for k in range(entries):
        name = f"spaces{k:05d}.ipynb".encode()
        offset = out.tell()
        out.write(struct.pack("<4s5H3L2H", b"PK\x03\x04", 46, 0, zipfile.ZIP_BZIP2, 0, 0x21, crc, len(data), size,
                              len(name), 0) + name + data)
        central.append(struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 46, 46, 0, zipfile.ZIP_BZIP2, 0, 0x21, crc,
                                   len(data), size, len(name), 0, 0, 0, 0, 0, offset) + name)
    start = out.tell()
    out.write(b"".join(central))
    out.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, entries, entries, out.tell() - start, start, 0))
    return out.getvalue()


def honest():
    """A learner's zip holding the teachers' 04 and a PDF."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(f"mywork/{M04}.ipynb", nbformat.writes(nbformat.read(str(SOLUTIONS / f"{M04}.ipynb"),
                                                                         as_version=4)))
        zf.writestr("mywork/report.pdf", b"%PDF-1.4 " + bytes(range(256)) * 100)
    return out.getvalue()


def cpu():
    return resource.getrusage(resource.RUSAGE_SELF).ru_utime + resource.getrusage(resource.RUSAGE_SELF).ru_stime


def intake(folder, learner_zip, course):
    """(CPU seconds, submissions) of intake on a class of three plain folders, mallory's holding `learner_zip`."""
    for who in ("alice", "bob"):
        (folder / who).mkdir(parents=True)
        (folder / who / f"{M04}.ipynb").write_bytes((SOLUTIONS / f"{M04}.ipynb").read_bytes())
    (folder / "mallory").mkdir()
    (folder / "mallory" / "work.zip").write_bytes(learner_zip)
    start = cpu()
    subs = collect([folder], course)
    return cpu() - start, subs


def main(entries=10_000):
    course = course_notebooks.load()
    payload = bomb(entries)
    with tempfile.TemporaryDirectory() as tmp:
        control, _ = intake(Path(tmp) / "control", honest(), course)
        spent, subs = intake(Path(tmp) / "bomb", payload, course)
    row, = [s for s in subs if s.student == "mallory"]
    print(f"a learner's zip of {entries:,} bzip2 entries of {limits.MAX_BYTES / 2**20:.0f} MB of spaces "
          f"({len(payload) / 1e6:.1f} MB, claiming {entries * limits.MAX_BYTES / 2**30:,.0f} GB)")
    print(f"intake, CPU seconds: bomb {spent:.2f} s, control {control:.2f} s")
    print(f"the bomb's row: NOT GRADED, {row.problem}")
    return spent, control, row


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entries", type=int, default=10_000)
    main(parser.parse_args().entries)
