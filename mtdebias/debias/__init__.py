"""Encoder embedding debiasing for NMT checkpoints: hard-debias, INLP and LEACE.

See :mod:`mtdebias.debias.apply` for the procedure and :func:`debias_checkpoint` for the
entry point; :class:`EncoderDebiaser` is the training-recipe stage.
"""

from .apply import METHODS, WHEN, DebiasReport, EncoderDebiaser, debias_checkpoint, debias_model, make_eraser
from .base import Eraser, restore_norms
from .direction import GenderDirection, gender_direction
from .hard import HardDebiasEraser, equalise, neutralise
from .inlp import INLPEraser
from .leace import LeaceEraser
from .untie import encoder_shares_weights, untie_encoder_embeddings
from .words import load_definitional_pairs, load_word_list, select_word_tokens

__all__ = ["METHODS", "WHEN", "DebiasReport", "EncoderDebiaser", "Eraser", "GenderDirection",
           "HardDebiasEraser", "INLPEraser", "LeaceEraser", "debias_checkpoint", "debias_model",
           "encoder_shares_weights", "equalise", "gender_direction", "load_definitional_pairs",
           "load_word_list", "make_eraser", "neutralise", "restore_norms", "select_word_tokens",
           "untie_encoder_embeddings"]
