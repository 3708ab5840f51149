"""Late work: a share of the points off, as Canvas's and Moodle's late policies read (lesson_tools/grading/late.py),
applied where the points are counted, shown in the gradebook and on the learner's page."""
import datetime

import pytest

from lesson_tools.grading import gradebook as gb
from lesson_tools.grading import late

DAY, HOUR = 86400.0, 3600.0
DUE = 1_796_000_000.0


@pytest.mark.parametrize("text, kept, why", [
    ("10%/day", 0.7, "3 days late: 30% off"),                  # 2 days and 1 minute: three begun
    ("5%/hour", 0.0, "49 hours late: 100% off"),
    ("5%/hour, floor 40%", 0.4, "49 hours late: 60% off"),
    ("20%", 0.8, "late: 20% off"),
])
def test_a_policy_counts_each_begun_day_or_hour(text, kept, why):
    assert late.parse(text).factor(False, DUE + 2 * DAY + 60, DUE) == pytest.approx((kept, why))


def test_on_time_work_keeps_everything_and_a_platforms_late_mark_counts_without_a_date():
    policy = late.parse("10%/day")
    assert policy.factor(False, DUE - 1, DUE) == (1.0, "")
    assert policy.factor(True, None, None) == (0.9, "late (no due date known: counted as 1 day): 10% off")
    assert policy.factor(True, DUE - 5, DUE) == (0.9, "1 day late: 10% off")          # the platform says late


@pytest.mark.parametrize("text", ["10", "10%/week", "-5%", "150%", "10%/day, floor 100%", "ten percent"])
def test_a_policy_that_cannot_be_read_says_what_is_expected(text):
    with pytest.raises(late.PolicyError, match="expected"):
        late.parse(text)


def test_due_dates_from_toml_or_iso_text():
    zone = datetime.timezone(datetime.timedelta(hours=1))
    moment = datetime.datetime(2026, 12, 1, 23, 59, tzinfo=zone)
    assert late.due_time(moment, "x") == late.due_time("2026-12-01T23:59:00+01:00", "x") == moment.timestamp()
    with pytest.raises(late.PolicyError, match=r"--due: 'Friday' is not a date; write it as 2026-12-01T23:59:00"):
        late.due_time("Friday", "--due")


def test_points_are_counted_after_the_penalty():
    """A complete late submission and a half on-time one: 10 % a day off three days keeps 0.7 of 1 + 1, more than
    the on-time 1; 40 % a day takes it all, and the on-time one counts."""
    who = {"student": "ann", "student_id": "1", "platform": "folder", "late": ""}
    rows = [gb.row(who, "04_feedback", sub, check, verdict, "")
            for sub, verdicts in (("early.ipynb", ("PASS", "FAIL")), ("late.ipynb", ("PASS", "PASS")))
            for check, verdict in zip(("a", "b"), verdicts, strict=True)]
    order = {"early.ipynb": 1, "late.ipynb": 2}
    for text, counted, total in (("10%/day", "late.ipynb", 1.4), ("40%/day", "early.ipynb", 1.0)):
        penalty = {"late.ipynb": late.parse(text).factor(False, DUE + 2.5 * DAY, DUE), "early.ipynb": (1.0, "")}
        scored = gb.score(rows, {"a": 1, "b": 1}, "best", order, penalty)
        person = gb.totals(scored)["name:1"]
        assert person["notebooks"]["04_feedback"]["counted"] == counted and person["points"] == pytest.approx(total)
        assert {r["late"] for r in scored if r["submission"] == "late.ipynb"} == {penalty["late.ipynb"][1]}


def test_the_learners_page_says_how_late_and_how_much(tmp_path):
    from lesson_tools.grading import feedback
    from lesson_tools.grading.intake import File, Person
    from lesson_tools.grading.submissions import Submission
    who = {"student": "ann", "student_id": "ann", "platform": "folder", "late": ""}
    rows = gb.score([gb.row(who, "04_feedback", "c/ann/04.ipynb", "a", "PASS", "PASS: ok")], {"a": 2}, "best",
                    None, {"c/ann/04.ipynb": (0.8, "2 days late: 20% off")})
    sub = Submission(File("c/ann/04.ipynb", ("ann", "04.ipynb"), 1, 0.0, None), Person("ann", "ann", "folder"),
                     "04_feedback")
    page = feedback.page(sub, rows, {})
    assert "handed in 2 days late: 20% off" in page and "1.6 of 2 points" in page
