"""The course's machinery: exercise checks (checks), the PASS report (feedback), predict-first reveals (reveal),
notebook helpers (notebook), and the build that makes learner notebooks from teachers' sources (build;
`python -m lesson_lib.course`)."""
