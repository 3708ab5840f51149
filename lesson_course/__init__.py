"""The course's machinery, what a learner's notebook calls on top of the science (lesson_lib): exercise checks
(checks, a package: one module per notebook), the PASS report (feedback), predict-first reveals (reveal), review
cards (review), notebook helpers (notebook), and what the learner looks at (ui: the Bench, the writing desk,
figures).  Its limits live in limits.py.  The build, the catalog of notebooks and the facts in prose are the
teachers' tools (lesson_tools)."""
from .notebook import setup as _setup

_setup()          # in an IPython kernel: a cell run before the one it needs says which cell to run (notebook.py)
