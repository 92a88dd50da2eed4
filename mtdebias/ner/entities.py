"""The one entity record all NER back-ends return, with types mapped to a shared set."""

from __future__ import annotations

from dataclasses import dataclass

TYPES = ("PERSON", "ORG", "GPE", "LOC")

# Model label → shared type. Labels not listed (DATE, MISC, NORP, …) are dropped: SwitchEntity
# only swaps names of people, organisations and places.
_LABEL_MAP = {
    "PERSON": "PERSON", "PER": "PERSON",
    "ORG": "ORG",
    "GPE": "GPE",
    "LOC": "LOC",
}


@dataclass(frozen=True)
class Entity:
    text: str
    start: int  # char offset into the tagged string
    end: int    # exclusive
    type: str   # one of TYPES


def normalise_label(label: str) -> str | None:
    return _LABEL_MAP.get(label.upper())


def types_compatible(a: str, b: str) -> bool:
    """Same type, except that GPE and LOC match each other.

    Only some models separate countries/cities (GPE) from other places (LOC): spaCy English
    and Czech do, the French model and natasha label every place LOC. Pairing a GPE with a LOC
    across languages is therefore the same kind of entity, not a mismatch.
    """
    return a == b or {a, b} == {"GPE", "LOC"}
