"""Judging a learned model: metrics and the lesson's PASS check (metrics), inertia audits (audit), and
generalisation beyond the training data (generalization)."""
