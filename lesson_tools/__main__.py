"""python -m lesson_tools build|check (lesson_tools.build) | links (lesson_tools.links) | release (lesson_tools.release)."""
import sys

if sys.argv[1:2] == ["links"]:
    from .links import main
    sys.exit(main(sys.argv[2:]))
if sys.argv[1:2] == ["release"]:
    from .release import main
    sys.exit(main(sys.argv[2:]))

from .build import main

sys.exit(main())
