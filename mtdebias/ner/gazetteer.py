"""A name-gazetteer pass after statistical NER: person names the model missed.

spaCy's small English model finds far fewer female than male names (rarer names, and many
female names are also common words: Grace, Hope, Ruby). This pass marks as PERSON the
capitalised tokens that a name table knows as a *gendered* given name, when no entity of any
label covers them, preferring full names ("Tracie Moore": the given name plus up to two
following capitalised words). A single given name is accepted mid-sentence (English does not
capitalise common words there), but at the start of a sentence only if it is not also a common
English word (WordNet's index, when installed) — "Grace be with you" stays untagged.
All-capital tokens (LORD) are never names here.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Callable, Iterable

# labels a one-token given name may wrongly get; places (GPE/LOC) are included because the
# small model calls many female names places — see the README for the precision check
RELABEL = frozenset({"ORG", "NORP", "GPE", "LOC", "PRODUCT", "WORK_OF_ART", "FAC", "EVENT"})
SENTENCE_OPENERS = frozenset({".", "!", "?", ":", ";", "\"", "“", "‘", "'", "(", "—", "-", "«"})
WORDNET_DIR = Path("/usr/share/wordnet")


@lru_cache(maxsize=1)
def wordnet_words(directory: str = str(WORDNET_DIR)) -> frozenset[str] | None:
    """Words WordNet writes in lower case somewhere (grace, hope, will — common words), from
    its data files, which keep the case (Constance, Sadie appear only capitalised: names or
    places, not common words). None when WordNet is not installed."""
    words = set()
    for pos in ("noun", "verb", "adj", "adv"):
        path = Path(directory) / f"data.{pos}"
        if not path.is_file():
            return None
        with path.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith(" "):
                    continue
                fields = line.split(" ", 4)
                if len(fields) < 5:
                    continue
                count = int(fields[3], 16)
                rest = fields[4].split(" ")
                for k in range(count):
                    word = rest[2 * k]
                    if word.islower():
                        words.add(word)
    return frozenset(words)


class NameGazetteer:
    """Find given-name spans in spaCy docs; ``gender_of`` returns male/female/unknown."""

    def __init__(self, gender_of: Callable[[str], str], common_words: frozenset[str] | None = None):
        self.gender_of = gender_of
        self.common_words = common_words

    def relabel(self, ent) -> bool:
        """Is a one-token non-person entity really a given name? spaCy's small model files
        many female names as ORG/NORP/GPE ("Sadie", "Constance", "Therese")."""
        text = ent.text
        return (len(ent) == 1 and ent.label_ in RELABEL and text.isalpha() and text[:1].isupper()
                and not text.isupper() and self.gender_of(text) in ("male", "female"))

    def spans(self, doc, taken_tokens: Iterable[int]) -> list[tuple[int, int]]:
        """[start, end) character spans of names no entity covers."""
        taken = set(taken_tokens)
        toks = list(doc)
        out, i, n = [], 0, len(toks)
        while i < n:
            t = toks[i]
            text = t.text
            if i in taken or not text[:1].isupper() or not text.isalpha() or \
                    (text.isupper() and len(text) > 1) or \
                    self.gender_of(text) not in ("male", "female"):
                i += 1
                continue
            j = i + 1
            while j < n and j - i < 3 and j not in taken and toks[j].text.isalpha() and \
                    toks[j].text[:1].isupper() and not toks[j].text.isupper():
                j += 1
            if j - i == 1:
                initial = i == 0 or toks[i - 1].text in SENTENCE_OPENERS
                if initial and (self.common_words is None or text.lower() in self.common_words):
                    i += 1
                    continue
            out.append((toks[i].idx, toks[j - 1].idx + len(toks[j - 1].text)))
            i = j
        return out


def english_gazetteer() -> NameGazetteer:
    """US given names (SSA, 3:1 rule) plus faker's English-speaking countries; WGND's global
    fallback is not used here (it knows millions of strings, most of them not names in
    English text)."""
    from ..names.locale import locale_names

    names = locale_names("en")

    def gender(word: str) -> str:
        found = names.gender_of(word)
        return found.gender if found.source != "wgnd" else "unknown"

    return NameGazetteer(gender, wordnet_words())
