"""What a learner's notebook calls: exercise checks (checks, a package: one module per notebook), the PASS report
(feedback), predict-first reveals (reveal) and notebook helpers (notebook).  The build, the catalog of notebooks
and the facts in prose are the teachers' tools (lesson_tools)."""
