"""V's readout solved at each validation (lesson_lib.model.potential_readout): the torque is affine in the readout,
with the derivative autograd gives the definition; the solve recovers a teacher's readout from torques the teacher
made; a step that does not lower the validation loss is not taken; nothing but the readout changes; fit applies it
to the average it ends with, and trains exactly as without it."""
import autograd.numpy as anp
import numpy as np
from autograd import jacobian
from model_states import arrays, sample_rows

from lesson_lib import DeLaN, double_pendulum, sample_uniform
from lesson_lib.data import write_letters
from lesson_lib.facts import VALIDATION
from lesson_lib.model import definition
from lesson_lib.model.potential_readout import readout_index, residual_and_design, solved
from lesson_lib.model.training_data import split

chain = double_pendulum()


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


def test_the_design_is_the_definitions_derivative_in_the_readout():
    """r and A from the fast path against the readable definition under autograd: the residual at the weights, and
    its Jacobian in the readout."""
    model = DeLaN(seed=1, hidden=(16,), mass_units=3)
    model.fit(sample_uniform(chain, 256, seed=0), steps=50)
    batch = model.training_batch(sample_uniform(chain, 6, seed=2))
    q, qd, qdd, target, inv_scale = batch
    index, theta0 = readout_index(model), model.get_params()
    select = np.eye(theta0.size)[:, index]

    def residual(w):
        theta = theta0 + select @ (w - theta0[index])
        tau = definition.torque(model.architecture, *definition.learned_jet(theta, model.architecture, q), qd, qdd)
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


def test_fit_ends_with_the_best_average_refined_and_trains_as_without():
    """The same seed with solves_readout False: the same iterates, averages, validation history and resume point
    (the refinement reaches none of them), the same weights but for V's readout, which has the lower loss on the
    validation samples."""
    data = write_letters("abcdefghkmnosuvwz", chain).sample(dt=0.01)     # letters, where V's readout has most to gain
    solving, plain = DeLaN(seed=3), DeLaN(seed=3)
    plain.solves_readout = False
    for _ in range(2):                                              # two presses: the second starts from the refined
        for model in (solving, plain):
            model.fit(data, steps=300)
    assert solving.validation_history == plain.validation_history
    np.testing.assert_array_equal(solving.resume_point["params"], plain.resume_point["params"])
    np.testing.assert_array_equal(solving.optimizer.average, plain.optimizer.average)
    others = np.setdiff1d(np.arange(solving.theta.size), readout_index(solving))
    np.testing.assert_array_equal(solving.get_params()[others], plain.get_params()[others])
    np.testing.assert_array_equal(solving.get_params()[others], solving.optimizer.average[others])
    held = sample_rows(solving, arrays(data), split(len(data["q"]), data["traj"], VALIDATION, 3)[1], weighted=False)
    assert solving.batch_loss(solving.theta, held) < plain.batch_loss(plain.theta, held)
