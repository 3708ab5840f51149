"""The checks' machinery, piece by piece: a check's points, the messages that name what a learner's result was,
an answer reached only through calls (the grader's judge), the salted inputs of grading, and the refusals of what
an exercise does not offer."""
import numpy as np
import pytest

from lesson_course.checks import REGISTRY, framework, independent
from lesson_course.checks.framework import Fail, RemoteAnswer, as_array, as_bool, evaluate, register
from lesson_lib import double_pendulum


def test_a_check_keeps_the_points_it_is_registered_with():
    @register("00_start_here", function="nothing", points=2.5)
    def a_check_worth_more(answer):
        pass
    @register("00_start_here", function="nothing", computed_by=["lesson_lib.facts.text"])
    def a_check_of_the_usual_worth(answer):
        pass
    try:
        assert REGISTRY["a_check_worth_more"].points == 2.5 and a_check_worth_more.spec.points == 2.5
        assert REGISTRY["a_check_of_the_usual_worth"].points == 1                # a PASS is worth 1 by default
        assert REGISTRY["a_check_of_the_usual_worth"].computed_by == ("lesson_lib.facts.text",)
    finally:
        del REGISTRY["a_check_worth_more"], REGISTRY["a_check_of_the_usual_worth"]


def test_a_non_finite_result_is_counted_entry_by_entry():
    with pytest.raises(Fail) as info:
        as_array([1.0, np.nan, 2.0], (3,), "f")
    assert "NaN" in info.value.what and "in 1 of its 3 entries" in info.value.what
    with pytest.raises(Fail) as info:
        as_array([np.inf, np.inf, np.inf, 0.0], (4,), "f")
    assert "inf" in info.value.what and "in 3 of its 4 entries" in info.value.what


def test_none_where_true_or_false_is_expected_is_named_none():
    with pytest.raises(Fail) as info:
        as_bool(None, "is_valid_inertia")
    assert info.value.what == "is_valid_inertia returned None, expected True or False" and info.value.hint == "none"


class _Remote(RemoteAnswer):
    """total_mass as the grader's judge reaches it: only its source and calls into another process."""
    callable, type_name = True, "function"

    def invoke(self, args, kwargs):
        raise NotImplementedError("my_helper is not written yet")


def test_a_remote_answer_is_judged_on_its_own_source():
    """Through the judge, the learner's stub left as it is is NOT ATTEMPTED; a function of their own that raises
    NotImplementedError (a helper not written yet) is a FAIL that says so."""
    stub = type("Stub", (_Remote,), {"source": framework.stub_source(REGISTRY["total_mass"])})
    assert stub.source and evaluate("total_mass", stub())[0] == "not attempted"
    theirs = type("Theirs", (_Remote,), {"source": "def total_mass(chain):\n    return my_helper(chain)\n"})
    status, line = evaluate("total_mass", theirs())
    assert status == "fail" and "NotImplementedError: my_helper is not written yet" in line


def test_grading_draws_inputs_no_one_can_predict(monkeypatch):
    """With the judge's SALT the cases come in another order and the three-link chain is a random one, different
    for each salt; without it, as in a notebook, the same every time."""
    items = list(range(20))
    assert independent.shuffled(items, 5) == items
    monkeypatch.setattr(independent, "SALT", 11)
    first, chain = independent.shuffled(items, 5), independent.three_link()
    assert sorted(first) == items and first != items
    monkeypatch.setattr(independent, "SALT", 12)
    assert independent.shuffled(items, 5) != first
    assert not np.allclose(independent.three_link().m, chain.m)
    assert not np.allclose(independent.two_link().m, double_pendulum().m)        # not the lesson's pendulum
    for chain in (independent.two_link(), independent.three_link()):         # unequal links, as in a notebook
        assert len(set(chain.m)) == len(set(chain.l)) == chain.n_dof, (chain.m, chain.l)


def test_what_an_exercise_does_not_offer_is_refused_by_name():
    from lesson_course.checks.nb07_write_with_the_model import _PartsOnly
    parts = _PartsOnly(independent.three_link())
    with pytest.raises(AttributeError, match=r"model\.inverse_dynamics is not available"):
        _ = parts.inverse_dynamics


def test_a_checks_own_hint_for_an_error_is_given_only_when_its_condition_holds():
    """coriolis_from_dM's own hint for a NameError speaks of a loop variable: for another undefined name (a
    variable of the notebook's, not the function's argument) the FAIL line gives the general hint instead."""
    spec = REGISTRY["coriolis_from_dM"]
    own = next(r for r in spec.raised if r.kind == "undefined")
    namespace = {"np": np}
    exec("def c(dM, qd):\n    return np.einsum('kij,j,k->i', dM_of_the_notebook, qd, qd)\n", namespace)
    line = framework.outcome(spec, namespace["c"]).line
    assert "dM_of_the_notebook" in line and line.endswith(spec.hint("undefined")) and own.hint not in line, line
    exec("def c(dM, qd):\n    for j in range(len(qd)):\n        pass\n    return dM[k, :, j] @ qd\n", namespace)
    assert framework.outcome(spec, namespace["c"]).line.endswith(own.hint)


def test_a_checks_own_hint_for_an_error_cannot_take_the_general_hints_key():
    from lesson_course.checks.diagnosis import Raised
    with pytest.raises(ValueError, match="a key of its own, not the general 'undefined'"):
        register("00_start_here", raised=(Raised("undefined", "undefined", "a loop variable", lambda m, line: True),))


def test_a_chain_whose_parameters_make_no_chain_is_told_what_went_wrong():
    def make_triple_pendulum(*args, **kwargs):
        chain = independent.three_link()
        object.__setattr__(chain, "lc", ["a", "b", "c"])           # changed after it was made
        return chain
    status, line = evaluate("triple_pendulum", make_triple_pendulum)
    assert status == "fail" and "do not make a chain (ValueError: could not convert string to float: 'a')" in line
    assert "Hint: " + REGISTRY["triple_pendulum"].hints["type"][:40] in line


@pytest.mark.parametrize("salt", (1, 2, 3, 2**40 + 7))
def test_the_judges_random_chains_are_rigid_bodies_that_could_exist(salt, monkeypatch):
    """Each link's centre of mass lies on it, 0 < lc < l, and its inertia about that centre is positive and at most
    m lc (l - lc), the most that a mass m spread over [0, l] with its centre at lc can have (all of it at the two
    ends)."""
    monkeypatch.setattr(independent, "SALT", salt)
    for chain in (independent.two_link(), independent.three_link()):
        m, l, lc, inertia = (np.asarray(getattr(chain, k)) for k in ("m", "l", "lc", "I"))
        assert np.all(m > 0) and np.all((0 < lc) & (lc < l)), (l, lc)
        assert np.all((0 < inertia) & (inertia <= m * lc * (l - lc))), (inertia, m * lc * (l - lc))


def test_the_judges_uniform_rods_have_the_textbook_centre_inertia_and_gravity():
    """independent.uniform_rods integrates each rod's mass; a uniform rod has lc = l/2 and I = m l^2/12, whatever
    its mass, and its chain falls under the g it was given (the gravity torque of two rods hanging from q1, q2
    measured from the downward vertical: g1 = g ((m1 lc1 + m2 l1) sin q1 + m2 lc2 sin(q1 + q2)), g2 = g m2 lc2
    sin(q1 + q2))."""
    m, l, g = np.array([2.0, 0.5]), np.array([1.2, 0.4]), 1.62                 # the Moon's
    chain = independent.uniform_rods(m, l, g=g)
    np.testing.assert_allclose(chain.lc, l / 2, rtol=1e-12)
    np.testing.assert_allclose(chain.I, m * l**2 / 12, rtol=1e-12)
    q = np.array([0.7, -1.9])
    (m1, m2), (l1, _), (c1, c2) = m, l, l / 2
    closed_form = g * np.array([(m1 * c1 + m2 * l1) * np.sin(q[0]) + m2 * c2 * np.sin(q.sum()),
                                m2 * c2 * np.sin(q.sum())])
    np.testing.assert_allclose(chain.gravity(q), closed_form, rtol=1e-12)


@pytest.mark.parametrize("salt", (None, 5, 2**33 + 1))
def test_the_control_laws_cases_move_every_term_at_every_joint(salt, monkeypatch):
    """07's judge promises states where every term of the law is non-zero: at every joint the errors e = q_d - q
    and e_dot = qd_d - qd and the desired acceleration are never 0, so a term dropped at any joint shows."""
    from lesson_course.checks.nb07_write_with_the_model import _cases
    monkeypatch.setattr(independent, "SALT", salt)
    cases = _cases()
    for chain, q, qd, q_d, qd_d, qdd_d, _kp, _kd, e, e_dot in cases:
        np.testing.assert_allclose(e, q_d - q, rtol=0, atol=1e-12)
        np.testing.assert_allclose(e_dot, qd_d - qd, rtol=0, atol=1e-12)
        for name, values in (("e", e), ("e_dot", e_dot), ("qdd_d", qdd_d)):
            assert np.shape(values) == (chain.n_dof,) and np.all(np.abs(values) > 1e-3), (name, values)
    assert sorted({case[0].n_dof for case in cases}) == [2, 3]
