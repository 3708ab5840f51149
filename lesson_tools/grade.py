"""Entry point: `python -m lesson_tools.grade ...` grades learners' notebooks (see lesson_tools.grading.command)."""
import sys

from .grading.command import main

if __name__ == "__main__":
    sys.exit(main())
