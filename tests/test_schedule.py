"""The learning-rate schedule (lesson_lib.model.schedule) on its own: what each validation loss decides.  Its
effects on a fit are in tests/test_training.py."""
import pytest

from lesson_lib.model.schedule import SPIKE, Schedule


def test_the_schedules_verdicts():
    s = Schedule(0.01)
    assert s.validated(1.0, float("inf"), 0.01) == (True, False, 0.01) and s.since == 0
    assert s.validated(float("nan"), 1.0, 0.01) == (False, True, 0.005)                 # a spike: back, halved
    assert s.validated(SPIKE + 0.01, 1.0, 0.01) == (False, True, 0.005)
    assert s.validated(SPIKE, 1.0, 0.01) == (False, False, 0.01) and s.since == 1       # no spike, no progress
    assert s.validated(0.99, 1.0, 0.01) == (True, False, 0.01) and s.since == 2         # a new best, no progress
    assert s.validated(0.97, 1.0, 0.01) == (True, False, 0.01) and s.since == 0         # progress: 2 % or more


def test_a_plateau_lowers_the_rate_after_patience_evaluations_without_progress(monkeypatch):
    from lesson_lib.model import schedule
    monkeypatch.setattr(schedule, "PATIENCE", 3)
    s = Schedule(0.01)
    assert [s.validated(1.0, 1.0, 0.01) for _ in range(3)] == [(False, False, 0.01)] * 2 + [(False, False, 0.005)]
    assert s.since == 0


def test_the_rate_is_lowered_to_a_floor_and_never_raised():
    s = Schedule(0.01)
    assert s.lowered(0.01) == 0.005 and s.lowered(0.0002) == pytest.approx(0.01 / 64)
    assert s.lowered(1e-5) == 1e-5
    s.set_state({"base_lr": 0.02, "since": 4})
    assert s.state() == {"base_lr": 0.02, "since": 4}
