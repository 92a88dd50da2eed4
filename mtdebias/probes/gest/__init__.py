"""GEST (GenderBench): first-person gender per stereotype, by translation and forced decoding (probe.py) and by an LLM's choice (choice.py)."""
