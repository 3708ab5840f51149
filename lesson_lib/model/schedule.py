"""The learning-rate schedule: what each validation loss of a fit decides.

Every validation evaluation (fit's loop, lesson_lib.model.training), `validated(v, best, lr)` answers (keep,
restore, lr):

    keep     v < best: these weights are the call's new best (fit keeps them with Adam's state)
    restore  a spike, v > SPIKE x best or not finite: fit goes back to the best weights
    lr       the rate from now on: x FACTOR on a spike, or on a plateau (PATIENCE evaluations without a loss
             THRESHOLD, relative, below the best); never below base_lr x MIN_FACTOR, base_lr the user's rate

Like PyTorch's ReduceLROnPlateau, but a spike also goes back to the best weights.  Its state (base_lr, since) is
saved with the model and undone with a failed fit.  Another schedule replaces this one with the same four names:
base_lr, validated, state and set_state (Trainable builds it from the rate, `Schedule(lr)`).
benchmarks/bench_trajectories.py measures the settings.
"""
import math

PATIENCE = 10        # evaluations without progress before the rate is lowered (1,000 steps at 100 per evaluation)
THRESHOLD = 0.02     # progress: a validation loss at least 2 % below the best
FACTOR = 0.5         # the rate is multiplied by this on a plateau or a spike
SPIKE = 10.0         # a validation loss above SPIKE x the best is a spike (3 halved the rate on the ordinary
                     # ups and downs of the validation loss along fast trajectories: bench_trajectories.py)
MIN_FACTOR = 1 / 64  # the rate stays >= base_lr x MIN_FACTOR (six halvings)


class Schedule:
    """The plateau-and-spike schedule: base_lr (the user's rate) and since (evaluations without progress).

    >>> schedule = Schedule(base_lr=0.01)
    >>> schedule.validated(0.5, best=1.0, lr=0.01)                # a new best: kept, the rate as it was
    (True, False, 0.01)
    >>> schedule.validated(float("nan"), best=0.5, lr=0.01)       # a spike: back to the best, the rate halved
    (False, True, 0.005)"""

    def __init__(self, base_lr):
        self.base_lr, self.since = float(base_lr), 0

    def validated(self, v, best, lr):
        """(keep, restore, lr) after the validation loss v, given the call's best loss and the current rate.

        >>> Schedule(0.01).validated(2.0, best=0.1, lr=0.01)          # 20 x the best: a spike
        (False, True, 0.005)"""
        if not math.isfinite(v) or v > SPIKE * best:
            self.since = 0
            return False, True, self.lowered(lr)
        self.since = 0 if v < best * (1 - THRESHOLD) else self.since + 1
        if self.since >= PATIENCE:
            self.since = 0
            return v < best, False, self.lowered(lr)
        return v < best, False, lr

    def lowered(self, lr):
        """The rate after a plateau or a spike: lr x FACTOR, but not below base_lr x MIN_FACTOR.

        >>> Schedule(0.01).lowered(0.01), Schedule(0.01).lowered(1e-4)             # halved, but not below 0.01 / 64
        (0.005, 0.0001)"""
        return min(lr, max(lr * FACTOR, self.base_lr * MIN_FACTOR))

    def state(self):
        """What save and a transaction keep: base_lr and since.

        >>> Schedule(0.01).state()
        {'base_lr': 0.01, 'since': 0}"""
        return {"base_lr": self.base_lr, "since": self.since}

    def set_state(self, state):
        """Put back a state that state() exported.

        >>> schedule = Schedule(0.01)
        >>> schedule.set_state({"base_lr": 0.02, "since": 3})
        >>> schedule.base_lr, schedule.since
        (0.02, 3)"""
        self.base_lr, self.since = float(state["base_lr"]), int(state["since"])
