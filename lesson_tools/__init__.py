"""lesson_tools: the teachers' and graders' tools of "Learn the structure, not the map", beside lesson_lib.

It imports lesson_lib and is never imported by it; learners never need it (the learners' edition leaves it out).

- notebook_format  the teachers' source format: solution blocks, stubs, check cells, the learner version
- build            `python -m lesson_tools build|check`: learner notebooks and stubs from the teachers'
                   sources, facts and catalog written into prose, the course checked for consistency
- catalog          the course's notebooks, their titles and times; markers: facts and catalog in prose
- release          `python -m lesson_tools release OUT_DIR [--branch learners]`: the learners' edition
- links            `python -m lesson_tools links`: Binder badge and links (to the learners' edition by default)
- grading/         `python -m lesson_tools.grade`: grading a class's notebooks; the nbval plugin
"""
