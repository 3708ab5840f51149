"""Grading learners' notebooks: a gradebook from a folder of submissions (`lesson-tools grade`).

One module per step, in the order a submission meets them:

- intake       what a platform downloads (files, folders, zips read in place) and whose each file is
- submissions  read notebooks, match each to its course notebook
- course_notebooks  the course's notebooks: their check cells, and the cells the course itself wrote
- plan         the cells to run: the learner's, with each check cell replaced by a capture of its answer
- scan         a static look at the cells the learner wrote, for reaching into the checks (-> TAMPERED)
- kernel       run the cells in a fresh kernel under limits (rlimits: the OS resource limits wrapper), in the
               sandbox (bubblewrap: an empty room with only what a kernel needs) and its caps (caps: a control
               group for memory, processes, CPU time); meter: its CPU time, and its waiting told apart from a
               busy machine's
- verified     the course's files and their hashes; the importer that only loads verified lesson_lib files
- withheld     the kernel's copy of lesson_lib without the notebook's answers (each check's computed_by, the checks)
- clean        the judge: the course's checks, away from the kernel, on the answers' results as plain data
- judge        the grader's side of it: start it, tell it when a check cell runs, read its verdict
- job          one submission, start to end: the task a local worker or a Dask worker runs
- gradebook    the rows, points per row and the counted submission, the CSV/JSON file, the summary per person
- points       what a PASS of each check earns: as declared, or from a teacher's TOML file
- export       the files Canvas and Moodle import, and one row per person
- roster       the class list a platform exports (Canvas's gradebook, Moodle's worksheet), several merged
- overrides    the teacher's decisions beside the class: points set by hand, extensions, excused notebooks
- late         late work: how late, and what a late policy takes off
- feedback     one HTML page per submission, and the Canvas and Moodle bulk-upload zips
- results      each submission's result kept as soon as it is known, by what was handed in; the salt, kept
- identical    the same work by several people
- report       the class at a glance: what to go over again, points, late work, who to follow up
- grader       a class, start to end: collect, tasks on local workers or a Dask cluster, results kept, scored
- command      the command line (`lesson-tools grade`): settings, preview, outputs
- _plugin      pytest plugin: under nbval, check cells pass only when they print PASS now
"""
