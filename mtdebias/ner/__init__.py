"""Named-entity recognition with one Entity record and one type set across languages."""

from .entities import TYPES, Entity, normalise_label, types_compatible
from .taggers import NER_LANGS, SPACY_MODELS, NatashaTagger, SpacyTagger, Tagger, load_tagger

__all__ = ["NER_LANGS", "SPACY_MODELS", "TYPES", "Entity", "NatashaTagger", "SpacyTagger",
           "Tagger", "load_tagger", "normalise_label", "types_compatible"]
