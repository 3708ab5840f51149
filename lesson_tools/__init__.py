"""lesson_tools: the teachers' and graders' tools of "Learn the structure, not the map", beside lesson_lib.

It imports lesson_lib and is never imported by it; learners never need it (the learners' edition leaves it out).

- cli              `lesson-tools VERB` (installed by the package; also `python -m lesson_tools VERB`): one command
- settings         a course's settings in one file (lesson_tools.toml or pyproject.toml's [tool.lesson_tools])
- notebook_format  the teachers' source format: solution blocks, stubs, check cells, the learner version
- build            `lesson-tools build|check`: learner notebooks and stubs from the teachers'
                   sources, facts and catalog written into prose, the course checked for consistency
- catalog          the course's notebooks, their titles and times; markers: facts and catalog in prose
- release          `lesson-tools release OUT_DIR [--branch learners]`: the learners' edition
- links            `lesson-tools links`: Binder badge and links (to the learners' edition by default)
- grading/         `lesson-tools grade`: grading a class's notebooks; the nbval plugin
- glyphs           `python -m lesson_tools.glyphs`: the letters' glyph table lesson_lib reads
- requirements.in  the teachers' and graders' pins (compiled into the lock ../requirements.txt by ../.ci/lock)
"""
import sys

# nbformat validates notebooks with jsonschema, which imports rfc3987_syntax when it is installed (JupyterLab's
# jupyter-events asks for it) and builds its IRI grammar at import: 1.5-2.5 s at the start of every grader, worker and
# build (python-jsonschema/jsonschema#1428).  A notebook's schema checks no IRI, so the tools go without it: jsonschema
# then leaves the "iri" format unchecked, as it does wherever rfc3987_syntax is not installed.  This holds in every
# process that imports lesson_tools (the grader, its workers, the builds, and pytest through the course's plugin).
sys.modules.setdefault("rfc3987_syntax", None)
