"""What the learner looks at: the Bench widget (bench), the writing desk of notebook 07 and its figures (writing),
the notebooks' figures (plots), the course's colours (palette), the ARIA carrier that makes the widgets accessible
(aria), and fast redraws of a figure into an image widget (blit)."""
