"""The course's machinery: exercise checks (checks, a package: one module per notebook), the PASS report
(feedback), predict-first reveals (reveal), notebook helpers (notebook), the list of notebooks (catalog), the
facts and catalog written into prose (markers), and the build that makes learner notebooks from teachers'
sources and checks the course (build; `python -m lesson_tools build|check`)."""
