"""Answers as plain data (lesson_tools.grading.wire): the judge's verdict on every answer the checks know is the
same as in a notebook, while no learner object, code or pickle ever reaches the judge, and no truth behind an
offered argument reaches the learner's side.

The kernel's side runs in a thread here (serve_answer, as the grader's setup cell calls it) and the judge's side in
the test (lesson_tools.grading.clean.judge), over a real Unix socket.
"""
import socket
import threading

import numpy as np
import pytest
from check_cases import RIGHT, WRONG
from test_checks import answers, define

from lesson_course import checks
from lesson_course.checks import framework
from lesson_lib import DeLaN, double_pendulum
from lesson_tools.grading import wire
from lesson_tools.grading.clean import Budget, judge

# Answers that are DeLaN subclasses overriding mass_matrix (so the check runs without training): through the
# wire a model crosses as its weights, so they are judged by what they learned (see the test below)
FAKES = {("triple_delan", None), ("triple_delan", "spd"), ("triple_delan", "longer"), ("triple_delan", "not finite")}
NAMES = sorted(checks.REGISTRY)
HINTS = [(name, key, i) for name in NAMES for key in sorted(WRONG[name]) if (name, key) not in FAKES
         for i in range(len(answers(name, key)))]


def through_wire(tmp_path, name, fn, cell_s=5, kernel_survives=True, handed=None):
    """(status, line) of check `name` on `fn`, the function staying on the kernel's side of a socket (`handed`:
    a set the library functions the kernel saw `fn` hand the exercise to are added to).  Every check here takes
    under 0.3 s; the 5 s budget (and its 15 s wall backstop, and the accept's) makes a kernel side that never
    answers fail in seconds, not hang."""
    import tempfile
    address = tempfile.mktemp(suffix=".sock", dir=tmp_path)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(1)
    listener.settimeout(15)
    errors = []

    def kernel():
        try:
            wire.serve_answer(address, "tok", 0, lambda: fn)
        except Exception as exc:                       # noqa: BLE001 -- reported by the test
            errors.append(exc)

    thread = threading.Thread(target=kernel, daemon=True)
    thread.start()
    conn, _ = listener.accept()
    channel = wire.Channel(conn)
    hello = channel.recv()
    assert hello["token"] == "tok" and hello["index"] == 0
    result = judge(checks, channel, hello, name, Budget(cell_s), handed)
    thread.join(30)
    listener.close()
    assert not errors or not kernel_survives, errors
    return result


def _through_a_helper(f, q, qd, dt):
    from lesson_lib.physics import integrators
    return integrators.symplectic_euler_step(f, q, qd, dt)


def _from_a_thread(f, q, qd, dt):
    import threading

    from lesson_lib.physics import integrators
    out = []
    worker = threading.Thread(target=lambda: out.append(integrators.symplectic_euler_step(f, q, qd, dt)))
    worker.start()
    worker.join()
    return out[0]


_BORROWED = {"__name__": "lesson" + "_lib.mine"}           # a module that calls itself part of the library
exec("def _under_a_borrowed_name(f, q, qd, dt):\n"
     "    from lesson_lib.physics import integrators\n"
     "    return integrators.symplectic_euler_step(f, q, qd, dt)\n", _BORROWED)


HANDED = {   # answers to 05 that hand the exercise to the library, in ways its source alone does not show
    "directly": lambda f, q, qd, dt: __import__("lesson_lib.physics.integrators", fromlist=["x"])
    .symplectic_euler_step(f, q, qd, dt),
    "through a helper of its own": lambda f, q, qd, dt: _through_a_helper(f, q, qd, dt),
    "through the library's table of steppers": lambda f, q, qd, dt: __import__(
        "lesson_lib.physics.integrators", fromlist=["x"]).STEPPERS["symplectic Euler"](f, q, qd, dt),
    "from a thread it starts": _from_a_thread,
    "under a module name borrowed from the library": _BORROWED["_under_a_borrowed_name"],
}


def _empties_the_watcher(f, q, qd, dt):
    import inspect
    import sys

    from lesson_lib.physics import integrators
    profile = sys.getprofile()
    if profile is not None:
        inspect.getclosurevars(profile).nonlocals["codes"].clear()      # nothing left to watch for
    return integrators.symplectic_euler_step(f, q, qd, dt)


def test_an_answer_that_empties_or_switches_off_the_watcher_is_seen_doing_that(tmp_path):
    def switches_off(f, q, qd, dt):
        import sys
        sys.setprofile(None)
        return RIGHT["symplectic_euler_step"](f, q, qd, dt)
    for answer in (_empties_the_watcher, switches_off):
        handed = set()
        status, _ = through_wire(tmp_path, "symplectic_euler_step", answer, handed=handed)
        assert status == "pass" and wire.WATCHER_OFF in handed, (answer.__name__, handed)


@pytest.mark.parametrize("way", sorted(HANDED))
def test_an_answer_that_calls_the_librarys_own_implementation_is_seen_doing_it(tmp_path, way):
    handed = set()
    status, _ = through_wire(tmp_path, "symplectic_euler_step", HANDED[way], handed=handed)
    assert status == "pass" and handed == {"lesson_lib.physics.integrators.symplectic_euler_step"}, handed


def test_an_honest_answer_is_not_seen_handing_anything(tmp_path):
    handed = set()                               # the control: the same check, an answer of its own
    status, _ = through_wire(tmp_path, "symplectic_euler_step", RIGHT["symplectic_euler_step"], handed=handed)
    assert status == "pass" and handed == set()


@pytest.mark.parametrize("name", [n for n in NAMES if (n, None) not in FAKES])
def test_a_right_answer_passes_through_the_wire(tmp_path, name):
    assert through_wire(tmp_path, name, RIGHT[name]) == ("pass", f"PASS: {name}")


@pytest.mark.parametrize("name, key, i", HINTS)
def test_a_wrong_answer_gets_the_same_line_through_the_wire_as_in_a_notebook(tmp_path, name, key, i):
    answer = answers(name, key)[i]
    assert through_wire(tmp_path, name, answer) == checks.evaluate(name, answer)


@pytest.mark.parametrize("name", NAMES)
def test_the_stub_is_not_attempted_through_the_wire(tmp_path, name):
    spec = checks.REGISTRY[name]
    stub = define(framework.stub_source(spec), spec.function)
    assert through_wire(tmp_path, name, stub) == ("not attempted", f"NOT ATTEMPTED: {name}: {checks.NOT_ATTEMPTED}")


def _first_change_per_check():
    from test_checks_diagnosis import CHANGES
    return [next(c for c in CHANGES if c[0] == name) for name in dict.fromkeys(c[0] for c in CHANGES)]


@pytest.mark.parametrize("name, k, path", _first_change_per_check())
def test_an_answer_that_changes_its_arguments_fails_through_the_wire_as_in_a_notebook(tmp_path, name, k, path):
    """The arguments reach the learner's function as the kernel's own copies: the kernel reports the ones a call
    changed, and the judge compares them with the copies it kept, so the verdict and its line are a notebook's."""
    from test_checks_diagnosis import changing
    answer = changing(name, k, path)
    status, line = through_wire(tmp_path, name, answer)
    assert (status, line) == checks.evaluate(name, answer) and "in place" in line, line


def test_an_offered_chain_has_no_truth_behind_it_on_the_kernels_side(tmp_path):
    """In a notebook, 02's chain wrapper holds the true chain (`_chain`); through the wire the learner's function
    gets a proxy with n_dof and rnea only, so reaching for the truth fails instead of passing."""
    def sneaky(chain, q):
        return chain._chain.mass_matrix(q)
    assert checks.evaluate("mass_matrix_from_rnea", sneaky)[0] == "pass"          # in-process: it works
    status, line = through_wire(tmp_path, "mass_matrix_from_rnea", sneaky)
    assert status == "fail" and "chain._chain is not available" in line, line

    def inspects(model, q, qd, q_d, qd_d, qdd_d, kp, kd):
        return vars(model)
    status, line = through_wire(tmp_path, "computed_torque", inspects)
    assert status == "fail" and "TypeError" in line, line                          # a proxy has no __dict__


def test_a_model_that_lies_about_itself_is_judged_by_its_weights(tmp_path):
    """A DeLaN subclass whose mass_matrix returns the truth passes in a notebook; through the wire a model crosses
    as its file, which the library refuses (1000 steps claimed, no loss recorded), so it is no trained DeLaN.  A
    subclass with untrained weights that claims nothing is judged by those weights."""
    fake = RIGHT["triple_delan"]
    assert checks.evaluate("triple_delan", fake)[0] == "pass"
    status, line = through_wire(tmp_path, "triple_delan", fake)
    assert status == "fail" and "train_triple_delan returned unreadable delan (" in line, line
    assert "step count 1000" in line, line

    class Liar(DeLaN):
        def mass_matrix(self, q):
            return checks.reference_triple_pendulum().mass_matrix(q)

    def trains_one_step(chain, data):
        model = Liar(n_dof=3, hidden=(8, 8))
        model.fit(data, steps=1)
        return model
    assert checks.evaluate("triple_delan", trains_one_step)[0] == "pass"
    status, line = through_wire(tmp_path, "triple_delan", trains_one_step)
    assert status == "fail" and "after 1 steps max |M_hat - M|" in line, line


def test_the_learners_stack_holds_no_expected_value(tmp_path):
    """An answer that looks for the check's truth in its callers' frames finds only the kernel's serving loop."""
    def reads_the_caller(M, qd):
        import inspect
        frame = inspect.currentframe().f_back
        while frame is not None:
            if hasattr(frame.f_locals.get("case"), "truth"):          # the check's case (diagnosis.judge)
                return frame.f_locals["case"].truth
            frame = frame.f_back
        return 0.0
    assert checks.evaluate("kinetic_energy", reads_the_caller)[0] == "pass"       # in-process, it finds it
    assert through_wire(tmp_path, "kinetic_energy", reads_the_caller)[0] == "fail"


def test_what_cannot_cross_as_data_arrives_as_an_opaque_type(tmp_path):
    ran = tmp_path / "payload-ran"

    class Payload:
        def __reduce__(self):
            return (open, (str(ran), "w"))

    assert through_wire(tmp_path, "total_mass", lambda chain: Payload()) == (
        "fail", "FAIL: total_mass: total_mass returned Payload, not numbers. Hint: "
                + checks.REGISTRY["total_mass"].hint("not numbers"))
    assert not ran.exists()
    status, line = through_wire(tmp_path, "total_mass", lambda chain: (x for x in [1.0]))
    assert status == "fail" and "returned generator, not numbers" in line
    status, line = through_wire(tmp_path, "kinetic_energy", lambda M, qd: np.array([object()]))
    assert status == "fail" and "not numbers" in line


def test_the_learners_exception_comes_back_by_name_and_message(tmp_path):
    def raises(M, qd):
        raise KeyError("boom")
    status, line = through_wire(tmp_path, "kinetic_energy", raises)
    assert status == "fail" and "your code raised KeyError: 'boom'" in line


def test_a_function_that_outlives_the_checks_time_is_a_timeout(tmp_path):
    import time

    def slow(chain):
        time.sleep(3)
        return 1.0
    assert through_wire(tmp_path, "total_mass", slow, cell_s=0.5, kernel_survives=False)[0] == "timeout"


@pytest.mark.parametrize("value", [
    None, True, "text", 3, -2**70, 0.1, float("inf"), np.float64(2.5), np.arange(6.0).reshape(2, 3),
    np.array([1, 2], dtype=np.int32), np.array([True, False]), np.array(1.5 + 2j), [1.0, (2, "a")],
    {"q": np.zeros((3, 2)), "tau": [np.ones(2)]}])
def test_plain_values_cross_unchanged(value):
    back = wire.decode(wire.encode(value))
    assert type(back) is type(value)
    if isinstance(value, (np.ndarray, np.generic)):
        assert back.dtype == np.asarray(value).dtype and np.array_equal(back, value)
    elif isinstance(value, dict):
        assert back.keys() == value.keys() and np.array_equal(back["q"], value["q"])
    else:
        assert back == value or (isinstance(value, float) and np.isnan(value))


def test_a_chain_and_a_model_are_rebuilt_from_their_parameters():
    chain = double_pendulum()
    again = wire.decode(wire.encode(chain))
    assert again is not chain and np.array_equal(again.mass_matrix([0.3, 0.2]), chain.mass_matrix([0.3, 0.2]))
    model = DeLaN(seed=4, hidden=(8, 8))
    model.fit(__import__("lesson_lib").sample_uniform(chain, 64, seed=0), steps=3)
    copy = wire.decode(wire.encode(model))
    q = np.array([[0.1, -0.4]])
    assert type(copy) is DeLaN and copy.step == model.step == 3
    assert np.array_equal(copy.mass_matrix(q), model.mass_matrix(q))


@pytest.mark.parametrize("data, words", [
    ({"pickle": "gASV"}, "vocabulary"),
    ({"array": "O", "shape": [1], "data": ""}, "could not be rebuilt"),
    ({"array": "f8", "shape": [3], "data": "AAAA"}, "could not be rebuilt"),
    ({"array": "f8", "shape": [1], "data": "!!"}, "could not be rebuilt"),
    ({"chain": {"m": {"float": "1"}}}, "could not be rebuilt"),
    ({"delan": "bm90IGEgemlw"}, "could not be rebuilt"),
    ({"ref": 0}, "vocabulary"),                        # a reference is only ever made by the judge
    (["a list"], "vocabulary"),
])
def test_data_outside_the_vocabulary_is_refused(data, words):
    with pytest.raises(wire.WireError, match=words):
        wire.decode(data)


def test_deep_nesting_and_oversized_messages_are_refused():
    deep = 1.0
    for _ in range(wire.MAX_DEPTH + 2):
        deep = [deep]
    with pytest.raises(wire.WireError, match="nested"):
        wire.encode(deep)
    a, b = socket.socketpair()
    a.sendall(wire._HEADER.pack(wire.MAX_MESSAGE + 1))
    with pytest.raises(wire.WireError, match="over the limit"):
        wire.Channel(b).recv()
    a.sendall(wire._HEADER.pack(4) + b"[1]\n")
    with pytest.raises(wire.WireError, match="not a JSON object"):
        wire.Channel(b).recv()


# ---------------------------------------------------------------------- inputs no one can predict
def _recorded(name, answer):
    """The calls a check makes in a learner's notebook (no salt), each with what `answer` returned."""
    calls = []

    def record(*args):
        calls.append((args, answer(*args)))
        return calls[-1][1]
    assert checks.evaluate(name, record)[0] == "pass"
    return calls


def _key(args):
    return tuple(np.asarray(a).round(12).tobytes() if isinstance(a, np.ndarray) else a for a in args
                 if not callable(a))


@pytest.fixture
def no_salt(monkeypatch):
    from lesson_course.checks import independent
    monkeypatch.setattr(independent, "SALT", None)
    return independent


def test_a_table_of_the_editions_inputs_passes_in_a_notebook_and_fails_before_the_judge(tmp_path, no_salt):
    table = {_key(args): result for args, result in _recorded("symplectic_euler_step", RIGHT["symplectic_euler_step"])}

    def looks_up(f, q, qd, dt):
        return table[_key((q, qd, dt))]
    assert checks.evaluate("symplectic_euler_step", looks_up)[0] == "pass"          # the control: no salt
    from lesson_tools.grading.clean import salt_the_inputs
    salt_the_inputs()                                   # what the judge does first
    assert no_salt.SALT is not None
    status, line = through_wire(tmp_path, "symplectic_euler_step", looks_up)
    assert status == "fail" and "KeyError" in line, line


def test_a_memorised_order_of_calls_passes_in_a_notebook_and_fails_before_the_judge(tmp_path, no_salt):
    answers = [result for _, result in _recorded("lesson_passes", RIGHT["lesson_passes"])]
    calls = []

    def memorised(max_error, min_eig):
        calls.append(1)
        return answers[(len(calls) - 1) % len(answers)]
    assert checks.evaluate("lesson_passes", memorised)[0] == "pass"                  # the control: no salt
    no_salt.SALT = 20261204                             # a judge's salt (fixed here, so the test repeats)
    calls.clear()
    assert through_wire(tmp_path, "lesson_passes", memorised)[0] == "fail"


def test_each_judge_draws_a_salt_of_its_own():
    from lesson_course.checks import independent
    from lesson_tools.grading.clean import salt_the_inputs
    before = independent.SALT
    try:
        salts = set()
        for _ in range(3):
            salt_the_inputs()
            salts.add(independent.SALT)
        assert len(salts) == 3 and None not in salts
    finally:
        independent.SALT = before
