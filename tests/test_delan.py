"""The DeLaN: structure by construction, exact derivatives, training, divergence guard, generalisation."""
import autograd.numpy as anp
import numpy as np
import pytest
from autograd import grad, jacobian
from autograd.test_util import check_grads

from lesson_lib import (
    BlackBox,
    DeLaN,
    TrainingDiverged,
    double_pendulum,
    facts,
    lesson_check,
    sample_uniform,
    torque_nmse,
)
from lesson_lib.model import definition, fast
from lesson_lib.model.definition import ACTIVATIONS

rng = np.random.default_rng(7)
chain = double_pendulum()


@pytest.fixture(scope="module")
def data():
    return sample_uniform(chain, 4096, seed=0)


@pytest.fixture(scope="module")
def trained(data):
    model = DeLaN(seed=0)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=2000)
    return model


def random_model(scale, n_dof=2, seed=0):
    model = DeLaN(n_dof=n_dof, seed=seed)
    model.set_params(scale * np.random.default_rng(seed).standard_normal(model.get_params().size))
    return model


@pytest.mark.parametrize("scale", [0.01, 0.1, 1.0, 10.0, 100.0])
@pytest.mark.parametrize("n_dof", [2, 3])
def test_mass_matrix_spd_for_any_weights(scale, n_dof):
    q = np.concatenate([rng.uniform(-np.pi, np.pi, (300, n_dof)), rng.uniform(-1e3, 1e3, (300, n_dof))])
    for seed in range(3):
        M = random_model(scale, n_dof, seed).mass_matrix(q)
        assert np.all(np.isfinite(M))
        np.testing.assert_allclose(M, np.swapaxes(M, 1, 2), rtol=1e-12, atol=0)
        assert np.linalg.eigvalsh(M).min() > 0, f"scale {scale}, seed {seed}"


def mass_matrix_by_autograd(model, q):
    """M(q) and V(q) for ONE q through a value-only forward pass written in autograd.numpy (no jets, the
    network's raw outputs, the potential's unit applied here)."""
    x = anp.concatenate([anp.cos(q), anp.sin(q)])[None, None, :]
    y = fast.mlp(x, model.theta, model.layer_sizes, model.activation, model.n_dof)[:, 0, 0]
    rows, cols = definition.tril_order(model.n_dof)
    P = np.zeros((len(rows), model.n_dof ** 2))                 # places the outputs into L
    P[np.arange(len(rows)), rows * model.n_dof + cols] = 1.0
    L = anp.reshape(anp.dot(y[:len(rows)], P), (model.n_dof, model.n_dof))
    V = model.potential_scale * y[-1]                                                   # V, in its unit
    return anp.dot(L, L.T) + model.eps * np.eye(model.n_dof), V


@pytest.mark.parametrize("n_dof", [2, 3])
def test_jet_derivatives_match_autograd_and_finite_differences(n_dof):
    model, h = random_model(0.7, n_dof, seed=3), 1e-6
    q = rng.uniform(-np.pi, np.pi, (5, n_dof))
    dM = model.mass_matrix_derivative(q)                        # (B, k, i, j)
    g = model.gravity(q)
    for b in range(5):
        jac = jacobian(lambda x: mass_matrix_by_autograd(model, x)[0])(q[b])     # (i, j, k)
        np.testing.assert_allclose(dM[b], np.moveaxis(jac, -1, 0), atol=1e-10)
        np.testing.assert_allclose(g[b], grad(lambda x: mass_matrix_by_autograd(model, x)[1])(q[b]), atol=1e-10)
        for k, e in enumerate(np.eye(n_dof) * h):
            fd = (model.mass_matrix(q[b] + e) - model.mass_matrix(q[b] - e)) / (2 * h)
            np.testing.assert_allclose(dM[b, k], fd, atol=1e-7)
            np.testing.assert_allclose(g[b, k], (model.potential(q[b] + e) - model.potential(q[b] - e)) / (2 * h),
                                       atol=1e-7)


def christoffel_C(dM, qd):
    """C_ij = sum_k 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) qd_k, dM indexed [k, i, j]."""
    return 0.5 * (np.einsum("kij,k->ij", dM, qd) + np.einsum("jik,k->ij", dM, qd) - np.einsum("ijk,k->ij", dM, qd))


def test_coriolis_equals_christoffel_formula_and_Mdot_minus_2C_is_skew():
    model = random_model(0.7, 3, seed=4)
    q, qd = rng.uniform(-np.pi, np.pi, (10, 3)), rng.uniform(-3, 3, (10, 3))
    dM, c = model.mass_matrix_derivative(q), model.coriolis(q, qd)
    for b in range(10):
        C = christoffel_C(dM[b], qd[b])
        np.testing.assert_allclose(C @ qd[b], c[b], atol=1e-10)
        S = np.einsum("kij,k->ij", dM[b], qd[b]) - 2 * C
        np.testing.assert_allclose(S, -S.T, atol=1e-10)
    # and c is quadratic in qd, like the truth
    np.testing.assert_allclose(model.coriolis(q, -2 * qd), 4 * c, atol=1e-10)


@pytest.mark.parametrize("act", sorted(ACTIVATIONS))
def test_fused_primitives_gradients(act):
    """The network's jet and the loss, each one autograd node with a hand-written reverse pass, against finite
    differences (check_grads); the loss equals the scaled squared error of the definition's torque; V and g are in
    units of potential_scale."""
    n = 3
    arch = definition.Architecture(n, (5, 4), act, 1e-3, 7.5)
    theta = DeLaN(n_dof=n, hidden=(5, 4)).get_params()
    X = fast.input_jet(rng.uniform(-3, 3, (4, n)))
    check_grads(lambda t: fast.mlp(X, t, arch.layer_sizes, act, n), modes=["rev"], order=1)(theta)
    check_grads(lambda x: fast.mlp(x, theta, arch.layer_sizes, act, n), modes=["rev"], order=1)(X)
    q, qd, qdd = (rng.normal(size=(4, n)) for _ in range(3))
    tau, inv_scale = rng.normal(size=(4, n)), rng.uniform(0.1, 2.0, (4, n))
    for v in (1.0, 7.5):
        scaled = arch._replace(potential_scale=v)
        batch = (q, qd, qdd, tau * inv_scale, inv_scale)
        check_grads(lambda t, scaled=scaled, batch=batch: fast.loss(t, scaled, batch), modes=["rev"], order=1)(theta)
        tau_hat = definition.torque(scaled, *definition.learned_jet(theta, scaled, q), qd, qdd)
        np.testing.assert_allclose(fast.loss(theta, scaled, batch), np.mean(((tau_hat - tau) * inv_scale) ** 2),
                                   rtol=1e-12)
    g1, g75 = (definition.learned_jet(theta, arch._replace(potential_scale=v), q)[2] for v in (1.0, 7.5))
    np.testing.assert_allclose(g75, 7.5 * g1, rtol=1e-12)


def test_training_reduces_loss_and_mass_error_and_passes(data, trained):
    untrained = lesson_check(DeLaN(seed=0), chain)
    after = lesson_check(trained, chain)
    losses = trained.loss_history
    assert np.mean(losses[-100:]) < 0.01 * np.mean(losses[:10])
    assert after["max_error"] < 0.2 < untrained["max_error"]
    assert after["min_eig"] > 0 and untrained["min_eig"] > 0
    assert after["passed"] and not untrained["passed"]


def test_same_seed_same_numbers_and_fit_continues(data):
    args = (data["q"], data["qd"], data["qdd"], data["tau"])
    a, b = DeLaN(seed=1), DeLaN(seed=1)
    a.fit(*args, steps=150)
    b.fit(*args, steps=100)
    b.fit(*args, steps=50)                       # a second press continues: same as one longer press
    np.testing.assert_array_equal(a.get_params(), b.get_params())
    assert a.step == b.step == 150
    c = DeLaN(seed=2)
    c.fit(*args, steps=150)
    assert not np.array_equal(a.get_params(), c.get_params())


def test_save_and_load_round_trip(tmp_path, data):
    args = (data["q"], data["qd"], data["qdd"], data["tau"])
    a = DeLaN(seed=1)
    a.fit(*args, steps=50)
    a.save(tmp_path / "m.npz")
    b = DeLaN(seed=1).load(tmp_path / "m.npz")
    np.testing.assert_array_equal(a.get_params(), b.get_params())
    a.fit(*args, steps=20)
    b.fit(*args, steps=20)
    np.testing.assert_array_equal(a.get_params(), b.get_params())


def test_divergence_is_caught_and_last_good_state_kept(data):
    args = (data["q"], data["qd"], data["qdd"], data["tau"])
    model = DeLaN(seed=0)
    model.fit(*args, steps=50)
    before, step = model.get_params(), model.step
    model.lr = 10.0
    with pytest.raises(TrainingDiverged, match="smaller learning rate"):
        model.fit(*args, steps=500)
    np.testing.assert_array_equal(model.get_params(), before)
    assert model.step == step
    model.lr = 3e-3                               # and training can go on from there
    model.fit(*args, steps=10)
    assert model.step == step + 10


def test_bad_input_messages():
    model = DeLaN()
    with pytest.raises(ValueError, match=r"q has shape \(3,\)"):
        model.mass_matrix([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="NaN or inf"):
        model.inverse_dynamics([0.0, np.nan], [0, 0], [0, 0])
    with pytest.raises(ValueError, match="flat vector"):
        model.set_params(np.zeros(3))
    with pytest.raises(ValueError, match="lr must be"):
        DeLaN(lr=-1)
    with pytest.raises(ValueError, match="qdd has shape"):
        model.fit(np.zeros((5, 2)), np.zeros((5, 2)), np.zeros((5, 3)), np.zeros((5, 2)))


def test_learned_forward_dynamics_inverts_inverse_dynamics(trained):
    q, qd, qdd = (rng.uniform(-3, 3, (20, 2)) for _ in range(3))
    np.testing.assert_allclose(trained.forward_dynamics(q, qd, trained.inverse_dynamics(q, qd, qdd)), qdd, atol=1e-8)


@pytest.mark.parametrize("n_dof", [2, 3, 4])
def test_values_without_derivatives_and_the_fused_torque_give_the_readable_numbers(n_dof):
    """mass_matrix, cholesky_factor and potential push the values alone through the network (no derivative rows):
    each equals autograd's value-only pass state by state.  inverse_dynamics, computed as fit's loss does, equals
    the sum of parts, whose terms are M qdd, c and g written out."""
    model = random_model(0.7, n_dof, seed=5)
    q, qd, qdd = (rng.uniform(-3, 3, (9, n_dof)) for _ in range(3))
    M, L, V = model.mass_matrix(q), model.cholesky_factor(q), model.potential(q)
    for b in range(len(q)):
        want_M, want_V = mass_matrix_by_autograd(model, q[b])
        np.testing.assert_allclose(M[b], want_M, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(V[b], want_V, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(L @ np.swapaxes(L, -1, -2) + model.eps * np.eye(n_dof), M, rtol=1e-12, atol=1e-12)
    assert np.all(np.triu(L, 1) == 0) and np.all(np.diagonal(L, axis1=1, axis2=2) > 0)
    parts = model.parts(q, qd, qdd)
    np.testing.assert_allclose(parts["M_qdd"], np.einsum("bij,bj->bi", M, qdd), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.inverse_dynamics(q, qd, qdd), sum(parts.values()), rtol=1e-12, atol=1e-12)
    for empty in (model.mass_matrix(np.zeros((0, n_dof))), model.potential(np.zeros((0, n_dof))),
                  model.inverse_dynamics(*(np.zeros((0, n_dof)),) * 3)):
        assert len(empty) == 0


def test_states_are_evaluated_in_chunks_with_each_state_s_own_numbers(monkeypatch, trained):
    """A batch larger than fast.EVAL_CHUNK (here 3 chunks and a part, the last one short) gives, row by row, what each
    state gives alone: no state dropped, repeated or moved to another's row."""
    monkeypatch.setattr(fast, "EVAL_CHUNK", 8)
    q, qd, qdd = (rng.uniform(-3, 3, (29, 2)) for _ in range(3))
    batched = {"M": trained.mass_matrix(q), "g": trained.gravity(q), "V": trained.potential(q),
               "tau": trained.inverse_dynamics(q, qd, qdd), "qdd": trained.forward_dynamics(q, qd, qdd)}
    for i in range(len(q)):
        alone = {"M": trained.mass_matrix(q[i]), "g": trained.gravity(q[i]), "V": trained.potential(q[i]),
                 "tau": trained.inverse_dynamics(q[i], qd[i], qdd[i]),
                 "qdd": trained.forward_dynamics(q[i], qd[i], qdd[i])}
        for key, value in alone.items():
            np.testing.assert_allclose(batched[key][i], value, rtol=1e-12, atol=1e-12, err_msg=f"{key} of state {i}")
    assert trained.mass_matrix(np.zeros((0, 2))).shape == (0, 2, 2)


def test_delan_generalises_beyond_training_range_far_better_than_black_box(data, trained):
    """Held-out velocities and accelerations twice the training range (qd 6 rad/s, qdd 20 rad/s^2)."""
    box = BlackBox(seed=0)
    box.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=2000)
    far = sample_uniform(chain, 2000, seed=99, qd_max=6.0, qdd_max=20.0)
    delan_err, box_err = torque_nmse(trained, far).mean(), torque_nmse(box, far).mean()
    print(f"normalised torque error on 2x range: DeLaN {delan_err:.2e}, black box {box_err:.2e}")
    assert delan_err < 0.01
    assert box_err > 10 * delan_err


def test_fit_is_adam_on_the_float32_loss(data):
    """fit = autograd.misc.optimizers.adam on the same minibatches, with the loss computed in float32.  The
    minibatches come from the training rows only (the validation split's rows are never trained on); the call is
    shorter than one validation interval, so the schedule does not act, and its end is its best (checked): the model
    keeps the average of the iterates and goes on from the last."""
    from model_states import adam_and_average, minibatches
    args = (data["q"], data["qd"], data["qdd"], data["tau"])
    model = DeLaN(seed=3, lr=3e-3, batch_size=64)
    theta0 = model.get_params()
    model.fit(*args, steps=30)
    assert [s for s, _, _ in model.validation_history] == [30] and model.lr == 3e-3
    batches = minibatches(model, args, 30, seed=3)
    last, average = adam_and_average(batches, theta0, 30, 3e-3, model)
    assert model.get_params().dtype == np.float64
    np.testing.assert_allclose(model.resume_point["params"], last, rtol=0, atol=1e-12)
    np.testing.assert_allclose(model.optimizer.average, average, rtol=0, atol=1e-12)
    assert not np.allclose(model.get_params(), theta0, rtol=0, atol=1e-4)       # it did move


def test_float32_loss_gradient_matches_float64(data):
    """Training computes in float32; its gradient agrees with the float64 one (itself checked by check_grads)."""
    from autograd import value_and_grad
    model = DeLaN(seed=0)
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=200)
    inv_scale = np.linspace(0.2, 2.0, 256)[:, None] / model.tau_scale
    batch = tuple(data[k][:256] for k in ("q", "qd", "qdd")) + (data["tau"][:256] * inv_scale, inv_scale)
    loss64, g64 = value_and_grad(model.loss)(model.theta, batch)
    loss32, g32 = value_and_grad(model.loss)(model.theta, tuple(b.astype(np.float32) for b in batch))
    assert g32.dtype == np.float64 and np.asarray(loss32).dtype == np.float32
    np.testing.assert_allclose(loss32, loss64, rtol=1e-5)
    assert np.linalg.norm(g32 - g64) < 1e-5 * np.linalg.norm(g64)


def test_the_potential_is_measured_in_its_unit():
    q = np.random.default_rng(0).uniform(-3, 3, (20, 2))
    unit, scaled = DeLaN(seed=0, potential_scale=1.0), DeLaN(seed=0, potential_scale=7.5)
    np.testing.assert_array_equal(scaled.get_params(), unit.get_params())
    np.testing.assert_allclose(scaled.gravity(q), 7.5 * unit.gravity(q), rtol=1e-12)
    np.testing.assert_allclose(scaled.potential(q), 7.5 * unit.potential(q), rtol=1e-12)
    np.testing.assert_array_equal(scaled.mass_matrix(q), unit.mass_matrix(q))
    assert "potential_scale=7.5" in repr(scaled) and "potential_scale" not in repr(DeLaN())
    with pytest.raises(ValueError, match="potential_scale must be"):
        DeLaN(potential_scale=0)


# ---------------------------------------------------------------------- L and V on units of their own
def test_l_and_v_read_units_of_their_own_before_during_and_after_training(data):
    """The output layer's weights from V's units to L's entries and from L's units to V start at 0 and stay 0
    through fit and fit_verlet (DeLaN.trainable_mask), so M depends on L's units only and V on V's: changing the hidden
    weights of one group leaves the other's outputs equal to the bit."""
    from lesson_lib.data import record, write_word
    from lesson_lib.model.verlet import fit_verlet
    model = DeLaN(seed=4)
    assert model.mass_units == facts.MASS_UNITS and model.hidden == facts.HIDDEN
    frozen = model.trainable_mask == 0
    n_L, width = model.layer_sizes[-1] - 1, model.hidden[-1]
    assert frozen.sum() == n_L * (width - model.mass_units) + model.mass_units     # the cross weights, nothing else
    assert not model.theta[frozen].any()
    start = model.theta.copy()
    model.fit(data["q"], data["qd"], data["qdd"], data["tau"], steps=200)
    assert not model.theta[frozen].any() and (model.theta != start)[~frozen].mean() > 0.9     # the others learn
    fit_verlet(model, record(write_word("o").sample(dt=0.005), sigma=1e-4), steps=3, chunk=16, chunks=1, span=0.01)
    assert not model.theta[frozen].any()
    q = data["q"][:50]
    M, g = model.mass_matrix(q), model.gravity(q)
    for units, same_M in ((slice(model.mass_units, None), True), (slice(0, model.mass_units), False)):
        changed = model.theta.copy()
        (W, b), _ = definition.unflatten(changed, model.layer_sizes)
        W[units] += 0.3
        b[units] -= 0.2
        other = DeLaN(seed=4)
        other.set_params(changed)
        assert np.array_equal(other.mass_matrix(q), M) == same_M           # V's units: M unchanged to the bit
        assert np.array_equal(other.gravity(q), g) != same_M                # L's units: g unchanged to the bit
