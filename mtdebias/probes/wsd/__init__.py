"""Word-sense bias (DiBiMT): the probe (probe.py), its items (items.py), metrics (metrics.py) and the item checker of `mtdebias data` (check.py)."""
