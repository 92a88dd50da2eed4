"""Gender ambiguity (Staliūnaitė et al.): entropy of ε-samples on ambiguous and unambiguous sentences (probe.py)."""
