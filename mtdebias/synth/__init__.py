"""Synthetic biased en→de/fr/es corpus for controlled name-gender bias experiments."""

from .frames import FRAMES, LANGS  # noqa: F401
from .generate import (SPLITS, NameSpec, SynthCorpus, SynthPair, generate,  # noqa: F401
                       name_table, zipf_probabilities)
from .export import profession_table, write_profession_tables  # noqa: F401
from .vocab import PROFESSIONS, PersonNoun  # noqa: F401

__all__ = ["generate", "SynthCorpus", "SynthPair", "NameSpec", "name_table", "zipf_probabilities",
           "FRAMES", "LANGS", "SPLITS", "PROFESSIONS", "PersonNoun", "profession_table",
           "write_profession_tables"]
