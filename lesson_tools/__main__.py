"""python -m lesson_tools build|check (see lesson_tools.build) | links (see lesson_tools.links)."""
import sys

if sys.argv[1:2] == ["links"]:
    from .links import main
    sys.exit(main(sys.argv[2:]))

from .build import main

sys.exit(main())
