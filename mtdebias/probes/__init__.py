"""Bias probes. Each probe module defines one versioned probe; see :mod:`.base`."""
