"""SwitchEntity data augmentation: annotate a corpus once, switch entities every epoch."""

from .annotate import (REJECT_REASONS, PairAnnotator, annotate_corpus, annotate_lists,
                       candidate_key,
                       load_user_candidates, merge_annotations)
from .reinflect import Reinflector, policy_for
from .switch import SwitchEntity, uniform_draws

__all__ = ["REJECT_REASONS", "PairAnnotator", "Reinflector", "SwitchEntity", "annotate_corpus",
           "annotate_lists",
           "candidate_key", "load_user_candidates", "merge_annotations", "policy_for",
           "uniform_draws"]
