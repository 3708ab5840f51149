"""What a learner's notebook calls: exercise checks (checks, a package: one module per notebook), the PASS report
(feedback), predict-first reveals (reveal) and notebook helpers (notebook).  The build, the catalog of notebooks
and the facts in prose are the teachers' tools (lesson_tools)."""
from .notebook import setup as _setup

_setup()          # in an IPython kernel: a cell run before the one it needs says which cell to run (notebook.py)
