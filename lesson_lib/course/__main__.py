"""python -m lesson_lib.course build|check: see lesson_lib.course.build."""
import sys

from .build import main

sys.exit(main())
