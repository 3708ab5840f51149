"""The grader's intake limits, one home each (the kernel's are lesson_tools.grading.rlimits.Limits; the wire's, which
runs alone in the kernel, stay in wire.py): what a download or a learner's zip may hold before it is read.  Beyond
any of them, what was handed in is NOT GRADED with the limit named; nothing beyond them is decompressed or parsed.

A learner's own zip (one they handed in, inside a platform's download or in their folder) is read whole, once,
before anything of it is parsed: its entries are counted, the bytes it expands to are counted while they are read
(the sizes its directory claims are never trusted), and so is the CPU time reading it takes.
"""

MAX_BYTES = 16 * 1024 * 1024          # one file: about 20 times the largest notebook of the course, outputs and all
MAX_MEMBERS = 10_000                  # entries of one zip (a download's, or a learner's)
MAX_ZIP_BYTES = 64 * 1024 * 1024      # a learner's zip itself (its compressed bytes)
MAX_UNZIPPED_BYTES = 64 * 1024 * 1024  # what a learner's zip expands to, all its entries together, counted as read
MAX_UNZIP_SECONDS = 10.0              # CPU seconds reading one learner's zip may take (a few times a whole class's)
