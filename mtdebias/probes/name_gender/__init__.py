"""Name-gender bias (SwitchEntity paper): accuracy of the gender of people named by first or full name (probe.py)."""
