"""Sentiment bias (SwitchEntity paper): how ambiguous words around people's names are rendered (probe.py)."""
