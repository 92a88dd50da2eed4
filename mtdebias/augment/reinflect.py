"""Case-preserving name replacement for languages whose names decline (ru, uk; cs partly).

In "Я видел Ивана Петрова" the target name is genitive/accusative; dropping in the candidate
"Анна Смирнова" unchanged would make the sentence ungrammatical. So at annotation time each
Russian/Ukrainian target name is analysed (its case, and its nominative form, which is what the
candidate list stores), and at switch time the chosen candidate is inflected into the case of
the name it replaces. Whatever pymorphy3 cannot analyse as a name is not switched and counted.

Czech has no pymorphy3 dictionary: there a name is only switched when its target form equals
the (English, uninflected) source form, which means it is the base form, and only with
candidates that also occur in their base form.
"""

from __future__ import annotations


from ..align.tokenize import tokenize
from ..lang.slavic_pymorphy import analyzer
from ..lang.languages import LANGUAGES, language

PYMORPHY_LANGS = tuple(code for code, entry in LANGUAGES.items() if entry.reinflection == "morph")
_NAME_TAGS = ("Name", "Surn", "Patr")
_GENDER_TAG = {"male": "masc", "female": "femn"}


def policy_for(lang: str) -> str:
    """'morph' (reinflect), 'identity' (base forms only) or 'plain' (names do not decline)."""
    return language(lang).reinflection


def _match_case(template: str, word: str) -> str:
    """Give ``word`` the capitalisation pattern of ``template`` (pymorphy3 lower-cases)."""
    if "-" in template and template.count("-") == word.count("-"):
        return "-".join(_match_case(t, w) for t, w in zip(template.split("-"), word.split("-")))
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _name_parses(lang: str, word: str, gender: str | None):
    parses = [p for p in analyzer(lang).parse(word) if any(t in p.tag for t in _NAME_TAGS)]
    if gender in _GENDER_TAG:
        parses = [p for p in parses if _GENDER_TAG[gender] in p.tag] or parses
    # one person is named in the singular; plural readings (Марии = "the Marias") only add
    # spurious cases
    return [p for p in parses if "plur" not in p.tag] or parses


class Reinflector:
    """Analyse and inflect person names of one language with pymorphy3 (ru, uk)."""

    def __init__(self, lang: str):
        if lang not in PYMORPHY_LANGS:
            raise ValueError(f"no pymorphy3 dictionary for '{lang}'")
        self.lang = lang
        self._cache: dict[tuple[str, str, str | None], str | None] = {}

    def analyse(self, text: str, gender: str | None = None) -> tuple[str, str] | None:
        """(nominative form, cases) of a name such as "Ивана Петрова", or None if not a name.

        Every word must have a name/surname/patronymic reading, and the readings must share a
        case. ``cases`` lists every shared case, best-scored first, joined by "|" ("gent|accs"):
        the form alone often cannot tell them apart (Марии: gent, datv or loct), and a
        replacement is only safe when it has the same form in all of them (see switch.py).
        """
        words = [t for t in tokenize(text, self.lang) if t.text[:1].isalpha()]
        if not words:
            return None
        scores: dict[str, float] | None = None
        per_word = []
        for token in words:
            parses = _name_parses(self.lang, token.text, gender)
            if not parses:
                return None
            word_scores: dict[str, float] = {}
            for p in parses:
                if p.tag.case:
                    word_scores[p.tag.case] = word_scores.get(p.tag.case, 0.0) + p.score
            scores = word_scores if scores is None else {
                c: scores[c] + s for c, s in word_scores.items() if c in scores}
            per_word.append(parses)
        if not scores:
            return None
        ranked = sorted(scores, key=lambda c: (-scores[c], c))
        case = ranked[0]
        pieces, last = [], 0
        for token, parses in zip(words, per_word):
            parse = next(p for p in parses if p.tag.case == case)
            nominative = parse.inflect({"nomn"})
            if nominative is None:
                return None
            pieces.append(text[last:token.start] + _match_case(token.text, nominative.word))
            last = token.end
        return "".join(pieces) + text[last:], "|".join(ranked)

    def inflect(self, nominative: str, case: str, gender: str | None = None) -> str | None:
        """``nominative`` put into ``case`` ("gent", "accs", …), or None when a word will not go."""
        key = (nominative, case, gender)
        if key in self._cache:
            return self._cache[key]
        result: str | None
        if case == "nomn":
            result = nominative
        else:
            pieces, last, result = [], 0, None
            for token in tokenize(nominative, self.lang):
                if not token.text[:1].isalpha():
                    continue
                parses = [p for p in _name_parses(self.lang, token.text, gender)
                          if p.tag.case == "nomn"]
                form = parses[0].inflect({case}) if parses else None
                if form is None:
                    break
                pieces.append(nominative[last:token.start] + _match_case(token.text, form.word))
                last = token.end
            else:
                result = "".join(pieces) + nominative[last:]
        self._cache[key] = result
        return result
