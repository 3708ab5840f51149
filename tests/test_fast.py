"""The model room's plumbing on small hand-made cases: a fused autograd primitive built here (so the handover
itself is exercised, not only the primitives the library built at import), and the process setting of
lesson_lib.model.fast.settings (one BLAS thread, scoped to the call)."""
import sys

import numpy as np
import pytest
from autograd import grad, value_and_grad
from threadpoolctl import threadpool_info, threadpool_limits

from lesson_lib.model import fast, training


def square_sum(record):
    """f(x, a) = a sum(x^2) as a fused primitive with its reverse pass d f / d x = 2 a x (pieces: 2x)."""
    def forward(x, a):
        record.append("forward")
        return a * np.sum(x * x), 2 * x

    def make_vjp(argnums, pieces, x, a):
        record.append(("vjp", tuple(argnums)))
        return lambda g: (g * a * pieces,)
    return fast.fused_primitive(forward, make_vjp, wrt=(0,))


def test_untraced_calls_return_the_value_and_keep_nothing():
    record = []
    f = square_sum(record)
    assert f(np.array([1.0, -2.0]), 3.0) == 15.0
    assert record == ["forward"] and tuple(fast._slot) == (None, None)


def test_a_traced_call_hands_its_forward_pass_to_its_reverse_pass():
    record = []
    f = square_sum(record)
    g = grad(f)(np.array([1.0, -2.0]), 3.0)
    np.testing.assert_array_equal(g, [6.0, -12.0])                          # 2 a x
    assert record == ["forward", ("vjp", (0,))]                              # the forward pass ran once
    assert tuple(fast._slot) == (None, None)


def test_the_reverse_pass_recomputes_pieces_it_was_not_handed(monkeypatch):
    record = []
    f = square_sum(record)
    take = fast._take

    def forget(ans):                                   # as if the slot held another call's pieces (and clear it)
        take(ans)
        return None
    monkeypatch.setattr(fast, "_take", forget)
    np.testing.assert_array_equal(grad(f)(np.array([1.0, -2.0]), 3.0), [6.0, -12.0])
    assert record == ["forward", "forward", ("vjp", (0,))]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_value_and_grad_runs_the_same_passes_as_autograd_without_tracing(dtype):
    record = []
    f = square_sum(record)
    x = np.array([1.0, -2.0], dtype)
    value, (g,) = f.value_and_grad(x, 3.0)
    assert record == ["forward", ("vjp", (0,))] and tuple(fast._slot) == (None, None)
    want_value, want_g = value_and_grad(f)(x, 3.0)
    assert value == want_value == 15.0 and g.dtype == want_g.dtype == dtype
    np.testing.assert_array_equal(g, want_g)


def test_only_the_arguments_named_in_wrt_can_be_differentiated():
    f = square_sum([])
    with pytest.raises(NotImplementedError, match=r"^forward is differentiable only in arguments \(0,\), asked "
                                                  r"for \(1,\)$"):
        grad(f, 1)(np.array([1.0, -2.0]), 3.0)


def test_without_wrt_every_argument_can_be_differentiated():
    def forward(x, a):
        return a * np.sum(x * x), (x, a)

    def make_vjp(argnums, pieces, x, a):
        grads = {0: lambda g: g * 2 * a * x, 1: lambda g: g * np.sum(x * x)}
        return lambda g: tuple(grads[i](g) for i in argnums)
    f = fast.fused_primitive(forward, make_vjp)
    assert grad(f, 1)(np.array([1.0, -2.0]), 3.0) == 5.0                    # d/da = sum x^2
    assert not hasattr(f, "value_and_grad")                                 # which gradients? wrt says


# ---------------------------------------------------------------------- settings
def blas_threads():
    """The thread count of every BLAS library loaded in this process (threadpoolctl's view)."""
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


@pytest.fixture
def blas():
    """Skip where threadpoolctl sees no BLAS library; on Linux numpy's wheels bundle OpenBLAS, so it must be found."""
    if not blas_threads():
        if sys.platform.startswith("linux"):
            pytest.fail("numpy's bundled OpenBLAS was not found: training would run with BLAS threads")
        pytest.skip(f"no BLAS library threadpoolctl knows is loaded on {sys.platform}; nothing to limit")


def test_single_blas_thread_sets_one_thread_and_restores_the_count_even_after_an_error(blas):
    with threadpool_limits(limits=2, user_api="blas"):
        with pytest.raises(ZeroDivisionError):
            with training.single_blas_thread():
                assert set(blas_threads()) == {1}
                raise ZeroDivisionError("an error inside the block")
        assert set(blas_threads()) == {2}


def test_fit_trains_on_one_blas_thread_and_leaves_the_process_as_it_found_it(blas):
    """Training runs with one BLAS thread (seen from fit's callback); no process-wide side effect: the count after
    a fit (and after a fit that fails) is the one before."""
    from lesson_lib import DeLaN, double_pendulum, sample_uniform
    data = sample_uniform(double_pendulum(), 64, seed=0)
    seen = []
    with threadpool_limits(limits=2, user_api="blas"):
        DeLaN(seed=0).fit(data, steps=3, callback=lambda model: seen.append(set(blas_threads())), every=1)
        with pytest.raises(TypeError):
            DeLaN(seed=0).fit(data, steps=3, callback=42)
        assert set(blas_threads()) == {2}
    assert seen == [{1}] * 3


def test_fit_verlet_trains_on_one_blas_thread_too(blas, monkeypatch):
    """Notebook 08's training through Störmer–Verlet: every step with one BLAS thread (two threads spinning for a
    busy machine's cores made it ~20x slower at load 8, against 2.6-3.2x with one: benchmarks/bench_load.py)."""
    from lesson_lib import DeLaN, double_pendulum
    from lesson_lib.data import record, write_letters
    from lesson_lib.model import verlet
    seen = []

    class Watched(verlet.Adam):
        def step(self, theta, g):
            seen.append(set(blas_threads()))
            return super().step(theta, g)
    monkeypatch.setattr(verlet, "Adam", Watched)
    rec = record(write_letters("o", double_pendulum()).sample(dt=0.002), sigma=1e-3, seed=0)
    with threadpool_limits(limits=2, user_api="blas"):
        verlet.fit_verlet(DeLaN(seed=0), rec, steps=3, chunk=8, chunks=1, span=0.004)
        assert set(blas_threads()) == {2}
    assert seen == [{1}] * 3
