"""The learning-rate schedule: lower the rate when the validation loss stops improving, or jumps.

Every validation, `Schedule.update(v, best)` answers (keep, change):

    keep        v < best: new best weights (fit keeps them and their optimiser state)
    "spike"     v > SPIKE x best, or not finite: fit goes back to the best weights; rate x FACTOR
    "plateau"   PATIENCE evaluations without a loss THRESHOLD (relative) below the best: rate x FACTOR
    None        no change

The rate stays >= base_lr x MIN_FACTOR; base_lr is the rate the user chose (reset() returns to it).  Like
PyTorch's ReduceLROnPlateau, but a spike also goes back to the best weights.  The state (base_lr, since) is
saved with the model.  benchmarks/bench_trajectories.py measures the settings."""
import math

PATIENCE = 10        # evaluations without progress before the rate is lowered (1,000 steps at 100 per evaluation)
THRESHOLD = 0.02     # progress: a validation loss at least 2 % below the best
FACTOR = 0.5         # the rate is multiplied by this on a plateau or a spike
SPIKE = 10.0         # a validation loss above SPIKE x the best is a spike (3 halved the rate on the ordinary
                     # ups and downs of the validation loss along fast trajectories: bench_trajectories.py)
MIN_FACTOR = 1 / 64  # the rate stays >= base_lr x MIN_FACTOR (six halvings)


class Schedule:
    """Plateau-and-spike schedule state: base_lr (the user's rate) and since (evaluations without progress)."""

    def __init__(self, base_lr):
        self.base_lr, self.since = float(base_lr), 0

    def initial_state(self):
        return {"base_lr": self.base_lr, "since": 0}

    def state(self):
        return {"base_lr": self.base_lr, "since": self.since}

    def set_state(self, state):
        self.base_lr, self.since = float(state["base_lr"]), int(state["since"])

    def update(self, v, best):
        """(keep, change) after the validation loss v, given the call's best: keep says whether v is a
        new best, change is "spike", "plateau" or None."""
        if not math.isfinite(v) or v > SPIKE * best:
            self.since = 0
            return False, "spike"
        self.since = 0 if v < best * (1 - THRESHOLD) else self.since + 1
        if self.since >= PATIENCE:
            self.since = 0
            return v < best, "plateau"
        return v < best, None

    def lowered(self, lr):
        """The rate after a plateau or a spike: lr x FACTOR, but not below base_lr x MIN_FACTOR."""
        return min(lr, max(lr * FACTOR, self.base_lr * MIN_FACTOR))
