"""Process settings that make training on small arrays fast.  Neither changes the learner's kernel behind its back:

- single_blas_thread(): the matrix products of a step are small (a few hundred rows); on a 2-core machine
  OpenBLAS's threads cost more in hand-over than they save, much more when the other core is busy.  numpy's
  wheels bundle OpenBLAS as `numpy.libs/libscipy_openblas*`; this finds its thread setter (as threadpoolctl
  does).  A context manager: `fit` and the Bench run their steps inside it, and the count is put back after.
- keep_freed_memory(): opt-in, for the whole process, never called by the library.  A training step allocates
  and frees a few MB of arrays; by default glibc returns freed heap memory to the operating system at once and
  the next step page-faults it back in.  This asks glibc (mallopt) to keep up to 256 MB of freed memory for
  reuse.  glibc cannot undo it (setting a threshold turns its dynamic mmap threshold off for good), so it is
  the caller's choice: it pays for large networks (benchmarks/bench_delan.py prints the reference size with
  and without it) and not for the course's default one.
"""
import contextlib
import ctypes
import glob
import os

import numpy as np


def _openblas_thread_functions():
    for path in sorted(glob.glob(os.path.join(os.path.dirname(np.__file__) + ".libs", "*openblas*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                get = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                set_ = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                if get is not None and set_ is not None:
                    return get, set_
    return None


_FUNCTIONS = _openblas_thread_functions()
_MEMORY_KEPT = []


def keep_freed_memory(limit=256 << 20):
    """Ask glibc to keep up to `limit` bytes of freed heap for reuse instead of trimming it (once per process)."""
    if _MEMORY_KEPT:
        return
    _MEMORY_KEPT.append(True)
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:                      # not glibc (macOS, Windows, musl): nothing to do
        return
    M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
    for option, value in ((M_TRIM_THRESHOLD, limit), (M_TOP_PAD, limit // 4), (M_MMAP_THRESHOLD, limit)):
        libc.mallopt(option, value)


@contextlib.contextmanager
def single_blas_thread():
    """Run the body with OpenBLAS limited to one thread, then restore the previous count."""
    if _FUNCTIONS is None:
        yield
        return
    get, set_ = _FUNCTIONS
    before = get()
    set_(1)
    try:
        yield
    finally:
        set_(before)
