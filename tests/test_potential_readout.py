"""V's readout solved at the end of each fit call (lesson_lib.model.potential_readout): the torque is affine in the
readout, with the derivative autograd gives the definition; the solve recovers a teacher's readout from torques the
teacher made; a step that does not lower the validation loss is not taken; nothing but the readout changes; fit ends
with the best average refined and trains exactly as without it, a spike included, and never ends a press worse than it
started; a press may end with its L and the V it started from, whose M is the press's and whose g is the start's."""
import functools

import autograd.numpy as anp
import numpy as np
import pytest
from autograd import jacobian
from model_states import arrays, sample_rows

from lesson_lib import DeLaN, double_pendulum, sample_uniform
from lesson_lib.data import write_letters
from lesson_lib.facts import VALIDATION
from lesson_lib.model import definition, delan, training
from lesson_lib.model.diagonal import DiagonalDeLaN
from lesson_lib.model.potential_readout import readout_index, residual_and_design, solved
from lesson_lib.model.training_data import split
from lesson_lib.physics.chain import PlanarChain

chain = double_pendulum()
LENGTHS = np.array([1.0, 0.8, 0.6])
triple = PlanarChain(m=np.ones(3), l=LENGTHS, lc=LENGTHS / 2, I=LENGTHS ** 2 / 12)


def rows_of(batch):
    """fit's sample rows (5n, N) from a training batch."""
    return np.concatenate([x.T for x in batch])


def teacher_data(teacher, n, seed):
    """States on the torus with the teacher's torques: data the teacher's readout fits exactly."""
    data = sample_uniform(chain, n, seed=seed)
    return {**data, "tau": teacher.inverse_dynamics(data["q"], data["qd"], data["qdd"])}


def with_readout(model, w):
    """A copy of the model's weights with V's readout w."""
    theta = model.get_params()
    theta[readout_index(model)] = w
    return theta


@pytest.mark.parametrize("make", [lambda: DeLaN(seed=1, hidden=(16,), mass_units=3),
                                  lambda: DeLaN(seed=1, mass_units=0), lambda: DeLaN(seed=1, hidden=(8, 8)),
                                  lambda: DiagonalDeLaN(seed=1), lambda: DeLaN(n_dof=3, seed=1, hidden=(16,))],
                         ids=["16 units", "shared units", "two layers", "diagonal", "three joints"])
def test_the_design_is_the_definitions_derivative_in_the_readout(make):
    """r and A from the fast path against the readable definition under autograd: the residual at the weights, and
    its Jacobian in the readout."""
    model = make()
    arm = double_pendulum() if model.n_dof == 2 else triple
    model.fit(sample_uniform(arm, 256, seed=0), steps=50)
    batch = model.training_batch(sample_uniform(arm, 6, seed=2))
    q, qd, qdd, target, inv_scale = batch
    index, theta0 = readout_index(model), model.get_params()
    select = np.eye(theta0.size)[:, index]

    def residual(w):
        theta = theta0 + select @ (w - theta0[index])
        tau = definition.torque(model.architecture, *model.learned_jet(theta, q), qd, qdd)
        return anp.ravel(tau * inv_scale - target)

    r, A = residual_and_design(model, theta0, batch)
    np.testing.assert_allclose(r.ravel(), residual(theta0[index]), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(A.reshape(-1, len(index)), jacobian(residual)(theta0[index]), rtol=1e-9, atol=1e-12)


def test_the_solve_recovers_a_teachers_readout():
    """A student that is the teacher but for V's readout, solved on the teacher's torques: its torques on states
    neither saw match the teacher's a thousand times better than before."""
    teacher = DeLaN(seed=0)
    teacher.fit(sample_uniform(chain, 512, seed=0), steps=100)
    student = DeLaN(seed=0)
    student.set_params(with_readout(teacher, teacher.theta[readout_index(teacher)]
                                    + 0.05 * np.random.default_rng(1).standard_normal(len(readout_index(teacher)))))
    student.tau_scale = teacher.tau_scale
    rows = rows_of(student.training_batch(teacher_data(teacher, 1024, seed=1)))
    held = student.training_batch(teacher_data(teacher, 128, seed=2))
    fresh = teacher_data(teacher, 256, seed=3)
    states = fresh["q"], fresh["qd"], fresh["qdd"]
    before = np.abs(student.inverse_dynamics(*states) - fresh["tau"]).max()
    student.set_params(solved(student, student.theta, rows, held))
    after = np.abs(student.inverse_dynamics(*states) - fresh["tau"]).max()
    assert after < 1e-3 * before, (before, after)


def test_a_step_that_does_not_lower_the_validation_loss_is_not_taken():
    """Validation torques the model predicts exactly: any change of the readout raises their loss, so the weights
    stay as they are, while the training samples (another model's) alone would move them."""
    model, other = DeLaN(seed=0), DeLaN(seed=1)
    rows = rows_of(model.training_batch(teacher_data(other, 512, seed=1)))
    held = model.training_batch(teacher_data(model, 128, seed=2))
    np.testing.assert_array_equal(solved(model, model.theta, rows, held), model.theta)
    elsewhere = model.training_batch(teacher_data(other, 128, seed=2))
    assert not np.array_equal(solved(model, model.theta, rows, elsewhere), model.theta)


def test_only_the_readout_changes_and_the_validation_loss_falls():
    model = DeLaN(seed=2)
    model.fit(sample_uniform(chain, 512, seed=0), steps=100)
    rows = rows_of(model.training_batch(sample_uniform(chain, 512, seed=1)))
    held = model.training_batch(sample_uniform(chain, 128, seed=2))
    refined = solved(model, model.theta, rows, held)
    others = np.setdiff1d(np.arange(model.theta.size), readout_index(model))
    np.testing.assert_array_equal(refined[others], model.theta[others])
    assert model.batch_loss(refined, held) < model.batch_loss(model.theta, held)


def letters():
    """Seventeen letters as trajectories: data where V's readout has most to gain."""
    return write_letters("abcdefghkmnosuvwz", chain).sample(dt=0.01)


def outside_readout(model, theta):
    return np.delete(theta, readout_index(model))


def within_presses(model, press=300):
    """The validation history but for each press's last entry (the loss of the weights the press ends with)."""
    return [entry for entry in model.validation_history if entry[0] % press]


def test_fit_ends_with_the_best_average_refined_and_trains_as_without():
    """The same seed with solves_readout False, two presses: the same iterates, averages, resume point and validation
    decisions (the refinement reaches none of them; the second press starts from Adam's average, not from the refined
    weights), the same weights but for V's readout, which lowers the loss on the validation samples; each press's last
    validation entry is the loss of the weights it ends with."""
    data = letters()
    solving, plain = DeLaN(seed=3), DeLaN(seed=3)
    plain.solves_readout = False
    held = None
    for _ in range(2):
        for model in (solving, plain):
            model.fit(data, steps=300)
        held = held or sample_rows(solving, arrays(data), split(len(data["q"]), data["traj"], VALIDATION, 3)[1],
                                   weighted=False)
        assert within_presses(solving) == within_presses(plain)
        np.testing.assert_array_equal(solving.resume_point["params"], plain.resume_point["params"])
        np.testing.assert_array_equal(solving.optimizer.average, plain.optimizer.average)
        np.testing.assert_array_equal(outside_readout(solving, solving.get_params()),
                                      outside_readout(solving, solving.optimizer.average))
        assert not np.array_equal(solving.get_params(), plain.get_params())
        assert solving.validation_history[-1][1] == pytest.approx(float(solving.batch_loss(solving.theta, held)))
        assert solving.validation_history[-1][1] < plain.validation_history[-1][1]


def test_a_spike_goes_back_to_adams_average_not_to_the_refined_weights(monkeypatch):
    """A spike before the second press's first new best sends training back to where the press started: Adam's
    average, as it would without the solve (the same scripted validation losses for both models)."""
    data = letters()
    solving, plain = DeLaN(seed=3), DeLaN(seed=3)
    plain.solves_readout = False
    for model in (solving, plain):
        model.fit(data, steps=300)
    assert not np.array_equal(solving.get_params(), solving.optimizer.average)       # the first press refined
    script = {300: 0.4, 400: 100.0, 500: 0.3, 600: 0.2}                           # a spike at the first evaluation
    monkeypatch.setattr(training, "validation_loss", lambda model, validation_set, theta=None: script[model.step])
    for model in (solving, plain):
        model.fit(data, steps=300)
    assert within_presses(solving) == within_presses(plain)
    assert plain.validation_history[3] == (400, 100.0, DeLaN().lr / 2)                 # the spike: the rate halved
    np.testing.assert_array_equal(solving.resume_point["params"], plain.resume_point["params"])
    np.testing.assert_array_equal(solving.optimizer.average, plain.optimizer.average)


def test_a_refinement_worse_than_the_weights_the_press_started_from_is_not_kept(monkeypatch):
    """A model whose refinement only makes things worse ends the press with the weights it started from (the last
    press's refinement): a press never leaves the model worse on the validation samples."""
    model = DeLaN(seed=3)
    model.fit(letters(), steps=300)
    before, loss = model.get_params(), model.validation_history[-1][1]
    monkeypatch.setattr(model, "refined", lambda theta, rows, validation_set: theta + 0.5)
    model.fit(letters(), steps=100)
    np.testing.assert_array_equal(model.get_params(), before)
    assert model.validation_history[-1][1] == pytest.approx(loss)


def with_model(make, theta):
    model = make()
    model.set_params(theta)
    return model


def test_recombined_weights_have_the_mass_matrix_of_one_and_the_gravity_of_the_other():
    """DeLaN.recombined(theta, start): M(q) and its derivative those of theta, V(q) and g(q) those of start, exactly, on
    states neither was made for (weights and biases drawn at random where training changes them); none where L and V
    share units (a second layer or mass_units 0) or where the weights between them are not 0."""
    make = functools.partial(DeLaN, hidden=(16,), mass_units=3)
    rng, mask = np.random.default_rng(7), make().trainable_mask
    theta, start = (rng.normal(size=mask.size) * mask for _ in range(2))
    (joined,) = make().recombined(theta, start)
    q = sample_uniform(chain, 32, seed=5)["q"]
    mine, its_l, its_v = with_model(make, joined), with_model(make, theta), with_model(make, start)
    np.testing.assert_array_equal(mine.mass_matrix(q), its_l.mass_matrix(q))
    np.testing.assert_array_equal(mine.mass_matrix_derivative(q), its_l.mass_matrix_derivative(q))
    np.testing.assert_array_equal(mine.gravity(q), its_v.gravity(q))
    np.testing.assert_array_equal(mine.potential(q), its_v.potential(q))        # V's bias too
    assert not np.allclose(its_l.gravity(q), its_v.gravity(q))                # the two differ where it matters
    assert make().recombined(theta, start + (1 - mask)) == ()                 # weights between L and V: not two
    for other in (DeLaN(hidden=(8, 8)), DeLaN(mass_units=0)):
        assert other.recombined(other.theta, other.theta + 1.0) == ()


def test_a_press_ends_with_its_l_and_the_v_it_started_from_when_that_does_best(monkeypatch):
    """A second press whose refinement spoils V: it ends with its own L (Adam's average's) and the V the first press
    ended with, which on the validation samples beats both the spoiled weights and the first press's."""
    data, model = letters(), DeLaN(seed=3)
    model.fit(data, steps=300)
    start = model.get_params()
    v_own = delan._potential_weights(model.layer_sizes, model.mass_units)

    def spoiled(theta, rows, validation_set):
        out = theta.copy()
        out[readout_index(model)] *= 3.0
        return out
    monkeypatch.setattr(model, "refined", spoiled)
    model.fit(data, steps=300)
    kept = model.get_params()
    np.testing.assert_array_equal(kept[v_own], start[v_own])
    np.testing.assert_array_equal(np.delete(kept, v_own), np.delete(model.optimizer.average, v_own))
    held = sample_rows(model, arrays(data), split(len(data["q"]), data["traj"], VALIDATION, 3)[1], weighted=False)
    loss = model.validation_history[-1][1]
    assert loss == pytest.approx(float(model.batch_loss(kept, held)))
    assert loss < float(model.batch_loss(start, held))


def test_no_joined_weights_without_weights_of_its_own_to_start_from(monkeypatch):
    """A first call, and a call that does not keep its best (restore_best False), weigh no joined candidate."""
    model = DeLaN(seed=3)
    monkeypatch.setattr(model, "recombined", lambda theta, start: pytest.fail("recombined was called"))
    model.fit(letters(), steps=200)
    model.fit(letters(), steps=100, restore_best=False)
