"""Entry point: `python -m lesson_lib.grade ...` grades learners' notebooks (see lesson_lib.grading.grade)."""
import sys

from .grading.grade import main

if __name__ == "__main__":
    sys.exit(main())
