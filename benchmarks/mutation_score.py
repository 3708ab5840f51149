"""Mutation score of the library: the share of mutants the fast tests kill, per module and per group.

Runs `mutmut run` (configured in pyproject.toml's [tool.mutmut]: the library except ui/ and grading/, the fast
library tests) and prints killed / counted per module, then per group against the goals:

    physics  (physics/, data/, evaluation/, control/, validate, limits, facts)    >= 90 %
    model    (model/)                                                             >= 90 %
    checks   (lesson_course/checks/)                                              >= 90 %
    course   (the rest of lesson_course but ui/)                                  >= 80 %

Not in CI: a full run takes tens of minutes on 2 cores (mutmut keeps its results in mutants/, so a second run
re-tests only the functions that changed since).

Counted: every mutant mutmut made, except those that only change the wording of a message (the rule below).
Killed: a test failed (or timed out) with the mutant in place.  "no tests": no fast test reaches the function,
so it counts as a survivor.

The message rule.  A mutant is left out when every change it makes is to a string literal (mutmut's string
mutations: "XX" around it, lower or upper case) that is only text a person reads:
  - the message of an exception, i.e. the first argument of a call to an exception class
    (raise ValueError("..."), Fail("...", key): the key is NOT a message),
  - a hint, a fix or an example a message quotes: the arguments `hint`, `fix`, `example`, `expected`, `what`,
    `what_real` of the library's own functions (lesson_lib.validate's checkers, whose messages print them), the
    `text` of the model room's refusals (`_cannot_load(path, text)`, `_not_trained(text)`), and the `help` text
    of a command-line option,
  - an entry added to a list of hints (hints.append("...")),
  - prose printed for the learner: a string literal of two or more words passed to print() (the notebooks' stored
    outputs, which nbval compares, pin the printed text; the fast tests check what the text must contain).
Equivalent mutants are left out too, by one rule: a mutant that only renames the index letters of an einsum's
subscripts one to one ("bij,bj->bi" -> "BIJ,BJ->BI") names the same contraction.  Other equivalent mutants are
either marked in the code (`# pragma: no mutate`, with the reason on the line) or left in the count.
Every other change counts: a key, a mode, a name a message must contain (the tests check that a message names the
argument), a string the code compares or parses, a number inside a message's formatting.  Lines marked
`# pragma: no mutate` (each with its reason) make no mutants at all.

Run:  python benchmarks/mutation_score.py                 run mutmut (all cores), then print the table
      python benchmarks/mutation_score.py --no-run        print the table from the last run's results
      python benchmarks/mutation_score.py --survivors chain  also show each counted survivor of modules whose
                                                          name contains "chain" (a diff per mutant)
      python benchmarks/mutation_score.py --rerun chain      after adding tests: test those survivors again
      python benchmarks/mutation_score.py --sample 400       when a full run does not fit: run a uniform random
                                                          sample of 400 not-run mutants per group, then estimate
      python benchmarks/mutation_score.py --sample 400 --groups model   the same for one group (the others with
                                                          mutants not run are then "not estimated")

The estimate (--sample; --no-run prints it again while the sample's results stand).  A full run re-tests every
mutant of a changed function, hours on 2 cores after a change to the training loop.  --sample N first lets mutmut
regenerate the mutants of the current code (re-running the few mutants of lesson_lib.facts), then draws N of each
group's not-run mutants uniformly at random (--seed, default 0: the same not-run set gives the same sample), runs
them, and estimates each group's score over all its mutants: the mutants run, plus the not-run ones counted,
killed and left out in the sample's proportions.  The 95 % interval is Wilson's on the sample's share killed.  A
goal is met only when the interval's lower end meets it.
"""
import argparse
import ast
import builtins
import difflib
import importlib
import inspect
import json
import math
import os
import random
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MUTANTS = ROOT / "mutants"

GROUPS = {  # group -> (goal, module prefixes)
    "physics": (0.90, ("lesson_lib.physics.", "lesson_lib.data.", "lesson_lib.evaluation.", "lesson_lib.control.",
                       "lesson_lib.validate", "lesson_lib.limits", "lesson_lib.facts")),
    "model": (0.90, ("lesson_lib.model.",)),
    "checks": (0.90, ("lesson_course.checks.",)),        # issue 47: the checks' own tests catch a weakened check
    "course": (0.80, ("lesson_course.feedback", "lesson_course.notebook", "lesson_course.reveal",
                      "lesson_course.review", "lesson_course.limits")),
}
MESSAGE_PARAMETERS = {"hint", "fix", "example", "expected", "what", "what_real", "text", "help"}
KILLED = {"killed", "timeout"}
NOT_RUN = {"not checked", "skipped"}
SAMPLE = MUTANTS / "sample.json"        # the last --sample: its seed and the names drawn per group
REGENERATE = "lesson_lib.facts.*"       # a `mutmut run` of these few mutants regenerates all of them first
PROSE = re.compile(r"[A-Za-z]{2,}\s+[A-Za-z]{2,}")          # two words: prose, not a label like "[ ]"
MUTANT = re.compile(r"^(?P<module>[\w.]+)\.(?P<function>x(?:_|ǁ)[^.]*?)__mutmut_(?P<number>\d+)$")


def group_of(module):
    return next((g for g, (_, prefixes) in GROUPS.items() if module.startswith(prefixes)), None)


# ---------------------------------------------------------------------- mutmut's results
def run_mutmut(max_children):
    """`mutmut run`; returns the wall time in seconds."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)], cwd=ROOT,
                   check=True)
    return time.perf_counter() - t0


def rerun(names, max_children):
    """`mutmut run NAME...`: test these mutants again (with the current tests), keep every other result."""
    t0 = time.perf_counter()
    for i in range(0, len(names), 2000):              # 2,000 names of about 70 characters: one command line
        subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children),
                        *names[i:i + 2000]], cwd=ROOT, check=True)
    return time.perf_counter() - t0


def results():
    """{mutant name: status} from `mutmut results --all true`."""
    out = subprocess.run([sys.executable, "-m", "mutmut", "results", "--all", "true"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    found = {}
    for line in out.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and MUTANT.match(name):
            found[name] = status
    return found


# ---------------------------------------------------------------------- the message rule
class Functions:
    """The original and mutated functions of one module, from mutmut's copy (mutants/<path>.py)."""

    def __init__(self, module):
        path = MUTANTS / (module.replace(".", "/") + ".py")
        if not path.exists():
            path = MUTANTS / module.replace(".", "/") / "__init__.py"
        self.source = path.read_text(encoding="utf-8")
        self.defs = {node.name: node for node in ast.walk(ast.parse(self.source))
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        try:
            self.namespace = vars(importlib.import_module(module))
        except Exception:                         # noqa: BLE001 -- a module that fails to import: no names
            self.namespace = {}

    def pair(self, function, number):
        return self.defs.get(f"{function}__mutmut_orig"), self.defs.get(f"{function}__mutmut_{number}")

    def text(self, node):
        return ast.get_source_segment(self.source, node) or ""


def _string_changes(a, b, parents=()):
    """(parents, original, mutated) for every string constant that differs between two ASTs, or None when they
    differ anywhere else."""
    if type(a) is not type(b):
        return None
    if isinstance(a, ast.Constant):
        if a.value == b.value and type(a.value) is type(b.value):
            return []
        return [(parents, a, b)] if isinstance(a.value, str) and isinstance(b.value, str) else None
    changes = []
    for field, va in ast.iter_fields(a):
        if not parents and field == "name":              # x_f__mutmut_orig vs x_f__mutmut_3
            continue
        vb = getattr(b, field, None)
        if isinstance(va, list):
            if not isinstance(vb, list) or len(va) != len(vb):
                return None
            pairs = zip(va, vb, strict=True)
        else:
            pairs = [(va, vb)]
        for x, y in pairs:
            if isinstance(x, ast.AST):
                sub = _string_changes(x, y, parents + (b,))
                if sub is None:
                    return None
                changes += sub
            elif x != y:
                return None
    return changes


def _callee(call, namespace):
    """The object a call's function name refers to in the module, or None."""
    if isinstance(call.func, ast.Name):
        return namespace.get(call.func.id, getattr(builtins, call.func.id, None))
    return None


def _is_exception_class(obj):
    return inspect.isclass(obj) and issubclass(obj, BaseException)


def _in_message_slot(parents, node, namespace):
    """True when `node` (a string constant) sits in a message slot of a call among its parents (see the rule)."""
    chain = parents + (node,)
    if any(isinstance(p, (ast.Subscript, ast.Compare, ast.Dict)) for p in parents):
        return False                              # a key or a compared value, even inside a message
    for i, parent in enumerate(parents):
        if not isinstance(parent, ast.Call):
            continue
        child = chain[i + 1]
        if isinstance(parent.func, ast.Attribute) and parent.func.attr == "append" \
                and "hint" in ast.unparse(parent.func.value).lower() and child in parent.args:
            return True
        if isinstance(parent.func, ast.Name) and parent.func.id == "print":
            if child in parent.args and PROSE.search(node.value):
                return True                       # prose printed for the learner
            continue
        callee = _callee(parent, namespace)
        if _is_exception_class(callee):
            if parent.args and child is parent.args[0]:
                return True
            continue
        if isinstance(child, ast.keyword):
            if child.arg in MESSAGE_PARAMETERS:
                return True
            continue
        if child in parent.args and callable(callee):
            try:
                params = list(inspect.signature(callee).parameters)
            except (TypeError, ValueError):
                continue
            index = parent.args.index(child)
            if index < len(params) and params[index] in MESSAGE_PARAMETERS:
                return True
    return False


def message_only(functions, function, number):
    """True when the mutant only changes the wording of messages (the rule in this module's docstring)."""
    orig, mutant = functions.pair(function, number)
    if orig is None or mutant is None:
        return False
    changes = _string_changes(orig, mutant)
    return bool(changes) and all(_in_message_slot(p, b, functions.namespace) for p, _, b in changes)


def _renames_consistently(before, after):
    """True when `after` is `before` with its letters renamed one to one (e.g. "bij,bj->bi" -> "BIJ,BJ->BI")."""
    if len(before) != len(after) or before == after:
        return False
    mapping = {}
    for a, b in zip(before, after, strict=True):
        if a.isalpha() != b.isalpha() or (not a.isalpha() and a != b):
            return False
        if a.isalpha() and mapping.setdefault(a, b) != b:
            return False
    return len(set(mapping.values())) == len(mapping)


def equivalent(functions, function, number):
    """True when the mutant is equivalent by the rule in this module's docstring: it only renames the index
    letters of einsum subscripts one to one (upper or lower case), which names the same contraction."""
    orig, mutant = functions.pair(function, number)
    if orig is None or mutant is None:
        return False
    changes = _string_changes(orig, mutant)
    if not changes:
        return False
    for parents, before, after in changes:
        call = parents[-1] if parents else None
        if not (isinstance(call, ast.Call) and call.args and call.args[0] is after
                and ast.unparse(call.func).split(".")[-1] == "einsum"
                and _renames_consistently(before.value, after.value)):
            return False
    return True


def diff(functions, function, number):
    orig, mutant = functions.pair(function, number)
    if orig is None or mutant is None:
        return "(source not found)"
    a, b = ast.unparse(orig).splitlines(), ast.unparse(mutant).splitlines()
    return "\n".join(line for line in difflib.unified_diff(a, b, lineterm="", n=1)
                     if not line.startswith(("---", "+++")))


# ---------------------------------------------------------------------- the table
def score(statuses):
    """Per module: Counter of killed, survived (counted, not killed), message (left out), missing (not run); the
    counted survivors per module; the modules' Functions; and each mutant's category (one of those keys)."""
    sys.path.insert(0, str(ROOT))
    per_module, survivors, cache, category = defaultdict(Counter), defaultdict(list), {}, {}
    for name, status in statuses.items():
        m = MUTANT.match(name)
        module, function, number = m["module"], m["function"], m["number"]
        if status in KILLED:
            kind = "killed"
        elif status in NOT_RUN:
            kind = "missing"
        else:
            if module not in cache:
                cache[module] = Functions(module)
            if message_only(cache[module], function, number):
                kind = "message"
            elif equivalent(cache[module], function, number):
                kind = "equivalent"
            else:
                kind = "survived"
                per_module[module]["no tests"] += status == "no tests"
                survivors[module].append((name, status, function, number))
        per_module[module][kind] += 1
        category[name] = kind
    return per_module, survivors, cache, category


# ---------------------------------------------------------------------- a sample of the mutants not run
def draw_sample(statuses, n, seed, groups=tuple(GROUPS)):
    """{group: n of its not-run mutants (all if fewer), drawn uniformly at random} for each of `groups`; the same
    seed and the same not-run set give the same sample."""
    rng, not_run = random.Random(seed), defaultdict(list)
    for name in sorted(statuses):
        if statuses[name] in NOT_RUN:
            not_run[group_of(MUTANT.match(name)["module"])].append(name)
    return {g: sorted(rng.sample(not_run[g], min(n, len(not_run[g])))) for g in sorted(not_run.keys() & set(groups))}


def wilson(k, n, z=1.96):
    """Wilson's 95 % interval of a share k / n."""
    if not n:
        return 0.0, 1.0
    p, d = k / n, 1 + z * z / n
    centre, half = (p + z * z / (2 * n)) / d, z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


def print_estimate(per_module, category, sample):
    """Each group's score over all its mutants, estimated from the sample (see the module's docstring); returns
    whether every group's interval meets its goal."""
    print(f"\nestimate over all mutants, from a uniform sample of the not-run ones (seed {sample['seed']}):")
    print(f"{'group':<10}{'run':>7}{'not run':>9}{'sample':>8}{'counted':>9}{'killed':>8}{'estimate':>10}"
          f"{'95 % interval':>18}")
    met = True
    for group, (goal, _) in GROUPS.items():
        c = sum((per_module[m] for m in per_module if group_of(m) == group), Counter())
        drawn = [category[n] for n in sample["names"].get(group, []) if n in category]
        if any(kind == "missing" for kind in drawn):
            print(f"{group:<10} the sample's mutants are not all run (the code changed since?): run --sample again")
            met = False
            continue
        n_s, k_s = len(drawn), drawn.count("killed")
        c_s = k_s + drawn.count("survived")
        M = c["missing"]
        if M and not n_s:
            print(f"{group:<10} {M} mutants not run and none of them sampled: not estimated (--sample --groups)")
            met = False
            continue
        estimated = M * c_s / n_s if n_s else 0         # the not-run mutants that count, estimated from the sample
        counted = c["killed"] + c["survived"] + estimated

        def share(p, killed=c["killed"], estimated=estimated, counted=counted):    # this group's, bound here
            return (killed + estimated * p) / counted if counted else 1.0
        rate = k_s / c_s if c_s else 1.0
        lo, hi = wilson(k_s, c_s) if M else (rate, rate)
        ok = share(lo) >= goal
        met &= ok
        verdict = "meets" if ok else ("likely, not shown" if share(rate) >= goal else f"BELOW goal {goal:.0%}")
        print(f"{group:<10}{c['killed'] + c['survived'] + c['message'] + c['equivalent']:>7}{M:>9}{n_s:>8}{c_s:>9}"
              f"{k_s:>8}{share(rate):>10.1%}{f'{share(lo):.1%} - {share(hi):.1%}':>18}  {verdict}")
    return met


def _row(label, c, goal=None):
    counted = c["killed"] + c["survived"]
    share = c["killed"] / counted if counted else 1.0
    verdict = "" if goal is None else ("  meets" if share >= goal else f"  BELOW goal {goal:.0%}")
    return (f"{label:<44}{counted + c['message'] + c['equivalent']:>8}{c['message']:>9}{c['equivalent']:>7}"
            f"{counted:>9}{c['killed']:>8}"
            f"{c['survived']:>9}{c['no tests']:>9}{share:>8.1%}{verdict}")


def print_table(per_module):
    print(f"{'module':<44}{'mutants':>8}{'message':>9}{'equiv':>7}{'counted':>9}{'killed':>8}{'survived':>9}"
          f"{'no tests':>9}"
          f"{'killed':>8}")
    totals = {g: Counter() for g in GROUPS}
    for group in GROUPS:
        for module in sorted(m for m in per_module if group_of(m) == group):
            c = per_module[module]
            totals[group].update(c)
            print(_row(module.removeprefix("lesson_lib."), c))
    print()
    met = True
    for group, (goal, _) in GROUPS.items():
        print(_row(f"group {group}", totals[group], goal))
        c = totals[group]
        counted = c["killed"] + c["survived"]
        met &= not counted or c["killed"] / counted >= goal
    missing = sum(c["missing"] for c in per_module.values())
    if missing:
        print(f"\n{missing} mutants were not run (an interrupted run?): run again without --no-run.")
    return met


def slow_tests(limit=1.0):
    """Tests over `limit` s in mutmut's stats run (each mutant that survives runs every test reaching it)."""
    try:
        durations = json.loads((MUTANTS / "mutmut-stats.json").read_text())["duration_by_test"]
    except (OSError, ValueError, KeyError):
        return []
    return sorted(((d, t) for t, d in durations.items() if d > limit), reverse=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-run", action="store_true", help="read the last run's results, do not run mutmut")
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--survivors", metavar="TEXT", default=None,
                        help="show the counted survivors of modules whose name contains TEXT ('' for all)")
    parser.add_argument("--sample", metavar="N", type=int, default=None,
                        help="regenerate the mutants, run N of each group's not-run mutants drawn at random, then "
                             "estimate each group's score over all its mutants (see the docstring)")
    parser.add_argument("--seed", type=int, default=0, help="the sample's random seed (with --sample)")
    parser.add_argument("--groups", default=",".join(GROUPS),
                        help=f"with --sample: the groups to sample, comma-separated (default {','.join(GROUPS)})")
    parser.add_argument("--rerun", metavar="TEXT", default=None,
                        help="test again the counted survivors of modules whose name contains TEXT ('' for all), "
                             "e.g. after adding tests; other results are kept")
    args = parser.parse_args(argv)
    if args.sample is not None and args.sample < 1:
        parser.error(f"--sample needs a number of mutants >= 1 per group, got {args.sample}")
    groups = tuple(g.strip() for g in args.groups.split(",") if g.strip())
    if not groups or set(groups) - set(GROUPS):
        parser.error(f"--groups takes names from {', '.join(GROUPS)}, got {args.groups!r}")
    if args.sample is not None:
        rerun([REGENERATE], args.max_children)                  # the mutants of the current code, and their stats
        sample = {"seed": args.seed, "names": draw_sample(results(), args.sample, args.seed, groups)}
        SAMPLE.write_text(json.dumps(sample, indent=1))
        names = [n for group in sample["names"].values() for n in group]
        seconds = rerun(names, args.max_children)
        print(f"\nmutmut run of a sample of {len(names)} not-run mutants: {seconds / 60:.1f} min with "
              f"{args.max_children} workers")
    elif args.rerun is not None:
        _, survivors, _, _ = score(results())
        names = [n for module, rows in survivors.items() if args.rerun in module for n, *_ in rows]
        seconds = rerun(names, args.max_children)
        print(f"\nmutmut run of {len(names)} survivors: {seconds / 60:.1f} min with {args.max_children} workers")
    elif not args.no_run:
        seconds = run_mutmut(args.max_children)
        print(f"\nmutmut run: {seconds / 60:.1f} min with {args.max_children} workers")
    statuses = results()
    if not statuses:
        print("no mutmut results: run without --no-run first")
        return 2
    per_module, survivors, cache, category = score(statuses)
    print()
    met = print_table(per_module)
    if SAMPLE.exists() and any(c["missing"] for c in per_module.values()):
        met = print_estimate(per_module, category, json.loads(SAMPLE.read_text()))
    slow = slow_tests()
    if slow:
        print("\ntests over 1 s in mutmut's stats run (a surviving mutant runs every test that reaches it):")
        for d, t in slow:
            print(f"  {d:5.1f} s  {t}")
    if args.survivors is not None:
        for module in sorted(survivors):
            if args.survivors in module:
                for name, status, function, number in sorted(survivors[module]):
                    print(f"\n{name}  ({status})\n{diff(cache[module], function, number)}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
