"""Translation quality: BLEU and chrF on a test set, shown beside every bias headline (probe.py)."""
