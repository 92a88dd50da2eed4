"""How a corpus's own evidence about a name combines with the name table's answer.

A name table says what a name usually is in a country; a corpus may use the same name for
someone else. WGND's global labels call Hebrew names ending in -a/-ah/-i female (Gera, Bani,
Seraiah, Hanan…), yet the King James Version calls all of them "he" or "the son of". Annotation
(:mod:`mtdebias.augment.corpus_gender`) counts, for each given name, ``male`` / ``female``
sentences of evidence; this rule turns the counts and the table's answer into the gender
SwitchEntity may use:

1. **The corpus settles it**: ``m + f >= 3`` and ``m >= 3·f`` → male (symmetrically female) —
   the 3:1 rule the SwitchEntity paper uses for name counts — provided the table agrees or at
   least one of those sentences is a kinship apposition ("Seraiah the son of Azariah"). Only
   then may the corpus override the table or gender a name the table does not know: pronouns
   alone also "gender" places and words that NER took for persons ("he smote Moab", "Selah").
2. **The corpus contests the table**: the table gives a gender but the corpus has more evidence
   for the other one (Korah: 5 male, 2 female sentences; the table: female) → unknown.
3. **A global guess without support**: the gender comes only from the WGND global fallback
   (the name is in no table of the locale) and the corpus has no sentence agreeing with it →
   unknown. A world-wide majority says little about a name foreign to the locale.
4. Otherwise the table's answer stands (unknown stays unknown).

``unknown`` is never switched. Names only; the counts come from elsewhere.
"""

from __future__ import annotations

MIN_SENTENCES = 3
RATIO = 3.0


def corpus_gender(male: int, female: int, table_gender: str, table_source: str,
                  kin_male: int = 0, kin_female: int = 0) -> tuple[str, str]:
    """(gender, why): why is "corpus", "contested", "unsupported" or "table" (rules above).
    ``male``/``female`` count all evidence sentences, ``kin_*`` those with a kinship apposition."""
    if male + female >= MIN_SENTENCES:
        if male >= RATIO * female and (table_gender == "male" or kin_male > 0):
            return "male", "corpus"
        if female >= RATIO * male and (table_gender == "female" or kin_female > 0):
            return "female", "corpus"
    if table_gender in ("male", "female"):
        same, other = (male, female) if table_gender == "male" else (female, male)
        if other > same:
            return "unknown", "contested"
        if table_source == "wgnd" and same == 0:
            return "unknown", "unsupported"
    return table_gender, "table"


__all__ = ["MIN_SENTENCES", "RATIO", "corpus_gender"]
