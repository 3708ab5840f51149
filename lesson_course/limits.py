"""The course machinery's limits, one home each (the library's are lesson_lib.limits): requests beyond them would hang
a press or a word, or grow a learner's history without bound; each raises lesson_lib.validate.LimitExceeded with
the number asked for and the limit."""

# ---------------------------------------------------------------------- the Bench and the writing desk
MAX_STEPS_PER_PRESS = 100_000          # about a minute of training: beyond that a press looks hung
MAX_GRID_POINTS = 201                  # 201 x 201 = 40,401 configurations per update
MAX_WORD = 12               # characters the desk writes (a 12-letter word takes about 50 s of writing)
MAX_SECONDS = 60.0          # s of writing the desk simulates for one word (about 6,000 controller ticks)

# ---------------------------------------------------------------------- the learner's reviews (kept in the browser)
MAX_REVIEW_EVENTS = 5_000       # events one review history keeps, the newest (a year of daily reviews of every card)
MAX_ANSWER_CHARS = 1_000        # characters of a learner's typed answer kept with a rating
