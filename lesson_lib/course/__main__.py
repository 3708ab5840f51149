"""python -m lesson_lib.course build|check (see lesson_lib.course.build) | links (see lesson_lib.course.links)."""
import sys

if sys.argv[1:2] == ["links"]:
    from .links import main
    sys.exit(main(sys.argv[2:]))

from .build import main

sys.exit(main())
