"""Entropy-based ambiguity metrics on ε-samples (Staliūnaitė, Cheng & Vlachos).

* :mod:`.contrast` — contrast sets {he, she, they} from WinoMT rows;
* :mod:`.cues` — bias cues of each item (stereotype, subject, recency, implicit causality, names, ...);
* :mod:`.similarity` / :mod:`.entropy` — SE, S3E and GE through one per-element surprisal;
* :mod:`.metrics` — ΔI, ΔLogProb, norm-H, ΔH, rank correlations;
* :mod:`.anova` — single-effect ANOVA of each cue on norm-H.
"""
