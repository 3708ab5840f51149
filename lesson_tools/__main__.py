"""`python -m lesson_tools VERB ...`, the same as `lesson-tools VERB ...` (lesson_tools.cli)."""
import sys

from .cli import main

sys.exit(main())
