"""Evaluation: a suite validated against the registry (:mod:`.suite`) and the runner that decodes
and scores it, skipping what a run store already holds (:mod:`.runner`)."""
