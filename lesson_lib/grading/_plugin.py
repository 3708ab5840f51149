"""pytest plugin used by lesson_lib.grade: record what every nbval cell printed and whether it passed.

Loaded with `-p lesson_lib.grading._plugin`; writes one JSON line per executed notebook cell to the file named by
the environment variable LESSON_GRADE_LOG (does nothing when it is unset).
"""
import json
import os

import pytest


def _text(outputs):
    parts = []
    for out in outputs or []:
        if out.get("output_type") == "stream":
            parts.append(out.get("text", ""))
        elif out.get("output_type") == "error":
            parts.append(f"{out.get('ename', 'Error')}: {out.get('evalue', '')}\n")
        elif "text/plain" in out.get("data", {}):
            parts.append(out["data"]["text/plain"] + "\n")
    return "".join(parts)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    log = os.environ.get("LESSON_GRADE_LOG")
    if log and call.when == "call" and hasattr(item, "cell_num"):
        record = {"cell": item.cell_num, "outcome": report.outcome, "source": item.cell.source,
                  "output": _text(getattr(item, "test_outputs", None))}
        with open(log, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
    return report
