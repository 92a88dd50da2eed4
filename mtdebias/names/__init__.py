"""Person names: SSA name→gender lexicon and the probe name lists (contract §3)."""

from .lexicon import (DEFAULT_LEXICON, NameEntry, NameGenderLexicon,  # noqa: F401
                      classify_counts)
from .lists import NAME_LIST_KINDS, load_name_list  # noqa: F401
from .locale import LocaleNames, gender_of  # noqa: F401

__all__ = ["NameGenderLexicon", "NameEntry", "classify_counts", "load_name_list",
           "NAME_LIST_KINDS", "DEFAULT_LEXICON", "LocaleNames", "gender_of"]
