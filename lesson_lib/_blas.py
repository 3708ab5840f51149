"""One BLAS thread while training: the matrix products of a training step are small (a few hundred rows), and
on a 2-core machine OpenBLAS's threads cost more in hand-over than they save, several times more when the
other core is busy (measured in benchmarks/bench_delan.py).  numpy's wheels bundle OpenBLAS as
`numpy.libs/libscipy_openblas*`; this finds its thread setter (as threadpoolctl does) and is a no-op where
there is none (other BLAS builds)."""
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
