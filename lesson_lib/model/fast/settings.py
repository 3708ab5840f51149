"""One BLAS thread while training: a step's matrix products are small (a few hundred rows), and on a 2-core
machine OpenBLAS's threads cost more in hand-over than they save.  Scoped to the call (threadpoolctl), so the
learner's kernel keeps its own setting."""
from threadpoolctl import ThreadpoolController

_CONTROLLER = ThreadpoolController()       # the BLAS libraries loaded with numpy


def single_blas_thread():
    """A context manager: the body runs with BLAS limited to one thread; the previous count is put back after."""
    return _CONTROLLER.limit(limits=1, user_api="blas")
