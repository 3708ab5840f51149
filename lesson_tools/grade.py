"""Entry point: `python -m lesson_tools.grade ...` grades learners' notebooks (see lesson_tools.grading.grade)."""
import sys

from .grading.grade import main

if __name__ == "__main__":
    sys.exit(main())
