"""One BLAS thread while training: a step's matrix products are small (a few hundred rows), and on a 2-core
machine OpenBLAS's threads cost more in hand-over than they save.  Scoped to the call (threadpoolctl), so the
learner's kernel keeps its own setting."""
import functools

from threadpoolctl import ThreadpoolController


@functools.cache
def _controller():
    """threadpoolctl's view of the BLAS libraries loaded with numpy, found once, at the first training call."""
    return ThreadpoolController()


def single_blas_thread():
    """A context manager: the body runs with BLAS limited to one thread; the previous count is put back after."""
    return _controller().limit(limits=1, user_api="blas")
