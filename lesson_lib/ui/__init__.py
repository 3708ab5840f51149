"""What the learner looks at: the Bench widget (bench) and the notebooks' figures (plots)."""
