"""Grading learners' notebooks against the teachers' checks; the entry point is `python -m lesson_lib.grade`."""
