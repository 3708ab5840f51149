"""Late work, as Canvas's and Moodle's own late policies read it: a share of a submission's points off.

    policy = parse("10%/day")              # 10 % off per day, or part of a day, after the due date
    policy = parse("5%/hour, floor 50%")   # per hour; never below half the points
    policy = parse("20%")                  # a fixed share off any late submission
    factor, why = policy.factor(late=True, handed=ts, due=ts)    # (0.8, "2 days late: 20% off") or (1.0, "")

A submission is late when its platform says so (Canvas's `_LATE_`, a --pattern's `late` group) or, with a due date
(`[notebooks.NN_name] due` in the settings, or --due NN_name=WHEN), when the time the download gives its file is past
it.  Days and hours are counted as Canvas counts them: each one begun counts whole.  The share comes off every
point the submission earns (its counted score too: the best submission is chosen after the penalty), never below
the floor (Canvas's "lowest possible grade"), and the gradebook's `late` column and the learner's page say how late
and how much.
"""
import math
import re
from dataclasses import dataclass
from datetime import datetime

UNITS = {"day": 86400, "hour": 3600}
SPEC = re.compile(r"^\s*(?P<share>\d+(?:\.\d+)?)\s*%\s*(?:/\s*(?P<per>day|hour))?\s*"
                  r"(?:,\s*floor\s+(?P<floor>\d+(?:\.\d+)?)\s*%)?\s*$")


class PolicyError(ValueError):
    """A late policy or a due date that cannot be read: the message says what is expected."""


@dataclass(frozen=True)
class Policy:
    share: float              # off per unit (or once, when `per` is None), 0..1
    per: str = None           # "day", "hour" or None
    floor: float = 0.0        # the least share of the points kept, 0..1

    def factor(self, late, handed=None, due=None):
        """(share of the points kept, why) for one submission: `late` as its platform says; `handed` and `due`
        (seconds since the epoch, or None) for how late."""
        over = (handed - due) if handed is not None and due is not None else None
        if over is not None and over > 0:
            late = True
        if not late:
            return 1.0, ""
        if self.per is None:
            units, how = 1, "late"
        else:
            if over is None:
                units, how = 1, f"late (no due date known: counted as 1 {self.per})"
            else:
                units = max(1, math.ceil(over / UNITS[self.per]))
                how = f"{units} {self.per}{'s' if units != 1 else ''} late"
        kept = max(self.floor, 1.0 - self.share * units)
        return kept, f"{how}: {percent(1.0 - kept)} off"

    def __str__(self):
        return (f"{percent(self.share)}" + (f" per {self.per}" if self.per else " off late work")
                + (f", never below {percent(self.floor)} of the points" if self.floor else ""))


def judged(policy, late, handed=None, due=None):
    """(share of the points kept, why) for one submission under `policy` (a Policy, or None: late work marked, not
    penalised): why is "" on time, else how late ("3 hours late", "late" when no date says) and what comes off."""
    if policy is not None:
        return policy.factor(late, handed, due)
    over = (handed - due) if handed is not None and due is not None else None
    if over is not None and over > 0:
        return 1.0, f"{how_long(over)} late"
    return 1.0, "late" if late else ""


def how_long(seconds):
    """'5 minutes', '3 hours', '2 days': each minute, hour or day begun counts (under an hour in minutes, under a day
    in hours)."""
    for unit, size, below in (("minute", 60, 3600), ("hour", 3600, 86400), ("day", 86400, math.inf)):
        if seconds < below:
            n = max(1, math.ceil(seconds / size))
            return f"{n} {unit}{'s' if n != 1 else ''}"
    raise ValueError(seconds)


def percent(x):
    return f"{round(100 * x, 2):g}%"


def parse(text):
    """The Policy `text` writes (module docstring); PolicyError saying what is expected."""
    m = SPEC.match(str(text))
    if not m:
        raise PolicyError(f"expected a share off late work, as Canvas or Moodle write it: '10%/day', '5%/hour', "
                          f"'20%' (once), optionally ', floor 50%'; got {text!r}")
    share, floor = float(m["share"]) / 100, float(m["floor"] or 0) / 100
    if not 0 < share <= 1 or not 0 <= floor < 1:
        raise PolicyError(f"expected a share between 0% and 100% and a floor below 100%; got {text!r}")
    return Policy(share, m["per"], floor)


def due_time(value, where):
    """Seconds since the epoch of a due date: a TOML datetime or an ISO 8601 text, with its time zone (a date alone
    is the end of that day in the grader's time zone)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            raise PolicyError(f"{where}: {value!r} is not a date; write it as 2026-12-01T23:59:00+01:00") from None
    if isinstance(value, datetime):
        return value.timestamp()
    if hasattr(value, "year") and hasattr(value, "day"):          # a date alone
        return datetime(value.year, value.month, value.day, 23, 59, 59).timestamp()
    raise PolicyError(f"{where}: {value!r} is not a date; write it as 2026-12-01T23:59:00+01:00")
