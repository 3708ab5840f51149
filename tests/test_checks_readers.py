"""What a check says about the learner's result, reader by reader (lesson_course.checks.framework): the words a
learner reads on a FAIL line, what counts as numbers, and a check's own bug kept apart from the learner's."""
import functools
import pkgutil

import numpy as np
import pytest

from lesson_course.checks import REGISTRY
from lesson_course.checks.framework import (
    Check,
    Fail,
    RemoteAnswer,
    as_array,
    as_bool,
    as_number,
    as_pair,
    call,
    close,
    evaluate,
    num,
    outcome,
)


def _fail_of(reader, *args):
    with pytest.raises(Fail) as info:
        reader(*args)
    return info.value.what, info.value.hint


def test_a_check_that_names_a_hint_it_does_not_have_is_a_broken_check_not_a_crash():
    def test(answer):
        raise Fail("something", "no such hint")
    result = outcome(Check("made_up", "00_start_here", "f", test), lambda: None)
    assert result.status == "fail" and result.hint == "broken"
    assert result.line.startswith("FAIL: made_up: the check could not run (no hint 'no such hint'). Hint: ")


def test_a_callable_returned_instead_of_its_result_is_named_uncalled():
    partial = functools.partial(np.sum, np.ones(2))                # callable, yet not a function type
    assert _fail_of(as_array, partial, (), "total_mass") == (
        "total_mass returned a partial: the function itself, not its result", "uncalled")


def test_what_is_not_a_number_is_named_by_its_kind():
    assert _fail_of(as_array, "x" * 25, (), "f")[0] == f"f returned str {'x' * 20!r}, not numbers"
    assert _fail_of(as_bool, float("nan"), "f")[0] == "f returned float nan, expected True or False"
    assert _fail_of(as_bool, [1, 2, 3], "f")[0] == "f returned a list of 3, expected True or False"
    assert _fail_of(as_pair, None, "f") == ("f returned None", "none")


def test_numbers_are_plain_numbers_of_any_numeric_kind():
    assert as_number(True, "f") == 1.0 and as_number(np.bool_(False), "f") == 0.0
    assert as_number(np.float32(2.5), "f") == 2.5 and as_number(7, "f") == 7.0
    assert as_array([], (0,), "f").shape == (0,)
    assert _fail_of(as_number, np.str_("1.5"), "f")[1] == "not numbers"      # numpy text is still text


def test_a_numpy_subclass_is_read_as_its_data_not_through_its_own_methods():
    class Lying(np.ndarray):
        def astype(self, *args, **kwargs):
            return np.zeros(self.shape)
    np.testing.assert_array_equal(as_array(np.arange(1.0, 4.0).view(Lying), (3,), "f"), [1.0, 2.0, 3.0])


def test_a_pair_may_be_a_list():
    assert as_pair([1.0, 2.0], "f") == (1.0, 2.0)


def test_what_is_not_a_function_is_named_by_its_type_here_and_through_the_judge():
    assert _fail_of(call, 3) == ("expected a function, got int", "not a function")
    remote = type("Remote", (RemoteAnswer,), {"callable": False, "type_name": "list"})()
    assert _fail_of(call, remote) == ("expected a function, got list", "not a function")


def test_call_passes_keyword_arguments():
    assert call(lambda q, scale=1.0: q * scale, 2.0, scale=3.0) == 6.0


@pytest.mark.parametrize("a, b", (([None], [0.0]), ([0.0], [None]), (["0"], [0.0])))
def test_close_is_false_not_an_error_for_anything_that_is_not_a_number(a, b):
    assert close(a, b, 1.0) is False


def test_small_numbers_keep_their_digits():
    assert num(0.0008) == "0.0008" and num(0.0012) == "0.001" and num(2e-5) == "2e-05"


def test_the_stub_left_in_an_answer_of_ones_own_is_told_so():
    def kinetic_energy(M, qd):
        T = 0.5 * qd @ M @ qd
        raise NotImplementedError("write this")
        return T
    status, line = evaluate("kinetic_energy", kinetic_energy)
    assert status == "fail" and "your function still raises NotImplementedError from the stub" in line


def test_every_check_names_the_library_functions_that_compute_its_answer_as_a_tuple_of_real_ones():
    for spec in REGISTRY.values():
        assert isinstance(spec.computed_by, tuple), spec.name
        for dotted in spec.computed_by:
            assert callable(pkgutil.resolve_name(dotted)), (spec.name, dotted)
