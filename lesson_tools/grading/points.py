"""Points: what a PASS of each check earns, as declared beside the check (`register(..., points=2)`, default 1),
or as a teacher sets them in a file of their own, without editing lesson_lib (whose files grading verifies):

    # points.toml
    [points]
    kinetic_energy = 2
    coriolis_from_dM = 3

    lesson-tools grade submissions/ --points points.toml --out gradebook.csv
"""
import tomllib

from .intake import UsageError


def declared():
    """{check: points} as the course's checks declare them."""
    from lesson_course.checks import REGISTRY
    return {name: spec.points for name, spec in REGISTRY.items()}


def load(path=None, table=None, settings=None):
    """{check: points}: the declared points, with the `[points]` table of a teacher's file (`path`, --points) over
    them, else the settings file's (`table`, read from `settings`): every name a check of the course, every value a
    number >= 0.  Raises UsageError saying what is wrong and how to fix it."""
    points = declared()
    if path is None:
        return points if table is None else checked(points, table, f"{settings}: [points]")
    table = read_toml(path, "--points", "give the TOML file that sets points, e.g. a file holding [points] and "
                      "kinetic_energy = 2", "; write it as [points] then one line per check, e.g. kinetic_energy = 2")
    given = table.get("points")
    if not isinstance(given, dict) or set(table) - {"points"}:
        raise UsageError(f"--points {path}: expected one table [points] of check = points, got "
                         f"{', '.join(sorted(table)) or 'an empty file'}; e.g. [points] then kinetic_energy = 2")
    return checked(points, given, f"--points {path}")


def checked(points, given, where):
    """The declared `points` with `given` over them, every name a check and every value a number >= 0."""
    unknown = sorted(set(given) - set(points))
    if unknown:
        raise UsageError(f"{where}: {', '.join(unknown)} {'is not a check' if len(unknown) == 1 else 'are not checks'} "
                         f"of the course; the checks are: {', '.join(sorted(points))}")
    bad = {k: v for k, v in given.items() if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0}
    if bad:
        raise UsageError(f"{where}: points must be numbers >= 0, got "
                         f"{', '.join(f'{k} = {v!r}' for k, v in sorted(bad.items()))}")
    return {**points, **given}


def read_toml(path, flag, unreadable, invalid):
    """The TOML file a teacher gave with `flag`, as a dict; UsageError naming the flag and the file when it cannot
    be read (then `unreadable`: what to give) or is not TOML (then `invalid`: how to fix it)."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as exc:
        raise UsageError(f"{flag} {path}: cannot read it ({exc.strerror}); {unreadable}") from None
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{flag} {path} is not valid TOML ({exc}){invalid}") from None
