"""Word alignment with character offsets (contract §2): tokenise, align, map spans across."""

from .aligners import (METHODS, Alignment, FastAlignModel, align_pairs, aligner_line,
                       write_fast_align_corpus)
from .symmetrize import grow_diag_final_and
from .tokenize import Token, tokenize

__all__ = ["METHODS", "Alignment", "FastAlignModel", "aligner_line", "write_fast_align_corpus", "Token", "align_pairs", "grow_diag_final_and", "tokenize"]
