"""lesson_lib.validate on hand-worked cases: the limits' exact boundaries, what a message shows of the value it
refuses, the data dict's optional keys, and the defaults of its message parts."""
import ast
import re

import numpy as np
import pytest

from lesson_lib import validate as v
from lesson_lib.limits import MAX_MATRIX_ENTRIES
from lesson_lib.validate import LimitExceeded

N = 5
DATA = {k: np.arange(2.0 * N).reshape(N, 2) + i for i, k in enumerate(v.DATA_KEYS)}


def test_max_configurations_is_a_whole_number_of_configurations():
    assert v.max_configurations(3) == MAX_MATRIX_ENTRIES // 9 and isinstance(v.max_configurations(3), int)


def test_configurations_allow_exactly_the_limit():
    limit = v.max_configurations(2)
    assert v.configurations("q", limit, 2) == limit
    with pytest.raises(LimitExceeded, match=rf"^q asks for {limit + 1:,} configurations of 2 joints, above the "
                                            rf"limit of {limit:,} \({MAX_MATRIX_ENTRIES:,} mass-matrix entries "
                                            rf"per call\)$"):
        v.configurations("q", limit + 1, 2)                       # no fix given: nothing after the limit


@pytest.mark.parametrize("count, shown", [(10**15, "1,000,000,000,000,000"), (2 * 10**15, "more than 10^15"),
                                          (10**40, "more than 10^15")])
def test_configurations_show_huge_requests_in_words(count, shown):
    with pytest.raises(LimitExceeded, match=rf"^q asks for {re.escape(shown)} configurations .*; fix it$"):
        v.configurations("q", count, 2, "fix it")


def test_as_vector_names_the_length_and_adds_nothing_without_a_hint():
    with pytest.raises(ValueError) as info:
        v.as_vector("theta", [1.0, 2.0], 3)
    assert str(info.value) == "theta must be a flat vector of 3 numbers, got shape (2,)"
    with pytest.raises(ValueError, match=r"^theta must be a flat vector of 3 numbers \(use get_params\), got"):
        v.as_vector("theta", np.zeros((1, 3)), 3, hint=" (use get_params)")


@pytest.mark.parametrize("x, error, start, shown", [
    ("12", TypeError, "v must be a list of numbers", "'12' (str)"),
    ((), ValueError, "v must hold at least one number", "() (tuple)"),
    ([1, -2], ValueError, "each entry of v must be > 0", "-2"),
])
def test_number_list_shows_what_it_got_and_an_example_that_works(x, error, start, shown):
    with pytest.raises(error) as info:
        v.number_list("v", x)
    message = str(info.value)
    assert message.startswith(start) and f"got {shown}" in message, message
    example = re.search(r"e\.g\. v=(\(.*?\))", message)[1]
    assert v.number_list("v", ast.literal_eval(example)) == ast.literal_eval(example)


def test_sign_shows_what_it_got():
    with pytest.raises(TypeError, match=r"^side must be \+1 or -1, got '\+' \(str\)$"):
        v.sign("side", "+")


def test_as_data_accepts_one_sample_by_default_and_counts_min_samples_exactly():
    one = {k: a[:1] for k, a in DATA.items()}
    assert v.as_data("d", one, 2)["q"].shape == (1, 2)
    assert v.as_data("d", {k: a[:2] for k, a in DATA.items()}, 2, min_samples=2)["q"].shape == (2, 2)
    with pytest.raises(ValueError, match=r"^d holds 1 sample\(s\), at least 2 needed$"):
        v.as_data("d", one, 2, min_samples=2)


def test_as_data_checks_the_times_when_present():
    out = v.as_data("d", {**DATA, "t": [0, 1, 2, 3, 4]}, 2)
    assert out["t"].dtype == float and out["t"].tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    with pytest.raises(ValueError, match=r"^d\['t'\] has shape \(4,\), expected \(5,\): one time per sample$"):
        v.as_data("d", {**DATA, "t": np.zeros(4)}, 2)
    with pytest.raises(ValueError, match=r"^d\['t'\] has shape \(5, 1\), expected \(5,\) times of the samples$"):
        v.as_data("d", {**DATA, "t": np.zeros((5, 1))}, 2)
    with pytest.raises(ValueError, match=r"^d\['t'\] contains NaN or inf"):
        v.as_data("d", {**DATA, "t": [0, 1, np.nan, 3, 4]}, 2)
    with pytest.raises(TypeError, match=r"^d\['t'\] must be \(5,\) times of the samples"):
        v.as_data("d", {**DATA, "t": "now"}, 2)
    assert "t" not in v.as_data("d", DATA, 2) and "T" not in v.as_data("d", {**DATA, "t": np.zeros(5)}, 2)


def test_as_data_checks_trajectory_ids_and_shows_them():
    assert v.as_data("d", {**DATA, "traj": np.array([0, 0, 1, 1, 2])}, 2)["traj"].tolist() == [0, 0, 1, 1, 2]
    for traj in (np.array([0, 0, 1, 1, -1]), np.array([0.0, 0.0, 1.0, 1.0, 2.0]), np.zeros(4, int)):
        with pytest.raises(ValueError, match=r"^d\['traj'\] must be \(5,\) whole numbers >= 0 .*, got array\("):
            v.as_data("d", {**DATA, "traj": traj}, 2)


def test_as_data_names_the_keys_and_shows_what_it_got():
    with pytest.raises(TypeError, match=r"^d must be a dict of arrays with keys q, qd, qdd, tau .*, got \[1, 2\] "
                                        r"\(list\)$"):
        v.as_data("d", [1, 2], 2)
    with pytest.raises(ValueError, match=r"^d lacks the key\(s\) 'qdd', 'tau'; a data dict holds q, qd, qdd, tau, "):
        v.as_data("d", {"q": DATA["q"], "qd": DATA["qd"]}, 2)
