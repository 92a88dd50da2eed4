"""Translation quality (``quality.v1``): BLEU and chrF with sacrebleu, carrying sacrebleu's own
signature, as a probe like the others (items = sentence pairs, attempts = hypotheses).

The translation-validity gate (:mod:`mtdebias.probes.validity`) checks every hypothesis and the
probe reports ``valid_rate`` and ``invalid.<reason>``. BLEU and chrF still score every
hypothesis — a corpus score is defined over the whole test set, and leaving the failures out
would raise it — but a valid rate at or below the floor makes the result degenerate: a BLEU of
a model that copies its input says how much of the source the reference shares, not how well
the model translates."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence, TypedDict

from sacrebleu.metrics import BLEU, CHRF

from ...errors import InputError
from ...options import Range
from ...signature import hash_lines
from ...translators.base import Translator
from ..base import BOOTSTRAP, HIGHER, Attempts, BaseProbe, Headline, Measure, Metric, Shown
from ..validity import SURFACE_GATE, TooFewTranslations, Validity, check, validity_metrics, validity_specs


def _scorers(tgt_lang: str | None) -> dict[str, Any]:
    return {"bleu": BLEU(tokenize="zh" if tgt_lang == "zh" else "13a"), "chrf": CHRF()}


def corpus_quality(hypotheses: Sequence[str], references: Sequence[str], tgt_lang: str | None = None
                   ) -> dict[str, tuple[float, str]]:
    """{"bleu": (score, sacrebleu signature), "chrf": (...)} for one reference per sentence."""
    out = {}
    for name, scorer in _scorers(tgt_lang).items():
        score = scorer.corpus_score(list(hypotheses), [list(references)])
        out[name] = (score.score, str(scorer.get_signature()))
    return out


def _corpus_score(name: str) -> Callable[[Sequence[tuple[str, str, str | None]]], float]:
    """Score ``name`` of (hypothesis, reference, target language) rows, all at once."""
    def score(rows: Sequence[tuple[str, str, str | None]]) -> float:
        scorer = _scorers(rows[0][2] if len(rows) else None)[name]
        return scorer.corpus_score([h for h, _, _ in rows], [[r for _, r, _ in rows]]).score

    return score


def sacrebleu_signatures(tgt_lang: str | None = None) -> dict[str, str]:
    """sacrebleu's signature of each score for one reference per sentence. sacrebleu writes it
    only after scoring (it needs the number of references), so a one-pair corpus is scored."""
    return {name: signature for name, (_, signature) in corpus_quality(["."], ["."], tgt_lang).items()}


class QualityAttempt(TypedDict):
    """One test sentence: its reference and the system's hypothesis."""

    source: str
    reference: str
    hypothesis: str
    validity: Validity  # the gate's verdict (the hypothesis is scored either way)


# a corpus score has no interval here; two systems are compared by sacrebleu's paired bootstrap
_CORPUS = "none (the paired test is sacrebleu's paired bootstrap)"


class QualityProbe(BaseProbe):
    """BLEU and chrF of a translator on a dev/test set."""

    name = "quality.v1"
    option_ranges = {"max_sentences": Range(1, why="leave it out to use every pair")}
    attempt_type = QualityAttempt
    option_help = {"src": "source side of the test set, one sentence per line",
                   "ref": "reference translations, line by line with src",
                   "lang": "target language (sets sacrebleu's tokenizer: zh for Chinese; and the validity gate's language)",
                   "tgt_lang": "the same as lang (give one of them)",
                   "max_sentences": "keep the first N sentence pairs"}
    stored_layout = 2  # 2: each attempt's validity verdict, valid_rate and invalid.*
    degenerate_when = (TooFewTranslations("BLEU and chrF still score them"),)
    measures = (Measure("bleu", HIGHER, BOOTSTRAP, bounds=(0, 100), label="BLEU", interval=_CORPUS,
                        definition="corpus BLEU against the references (sacrebleu's tokenizer for the language)",
                        source="Papineni et al. 2002; sacrebleu (Post 2018)", value=_corpus_score("bleu"), corpus=True),
                Measure("chrf", HIGHER, BOOTSTRAP, bounds=(0, 100), label="chrF", interval=_CORPUS,
                        definition="corpus character n-gram F-score against the references (sacrebleu)",
                        source="Popović 2015; sacrebleu (Post 2018)", value=_corpus_score("chrf"), corpus=True),
                *validity_specs("quality"))  # computed by the gate's module
    hashed = ("src", "ref", "max_sentences")  # the pairs kept are the data hash
    # lang and tgt_lang are one option under two names: stored signatures show it as "lang"
    shown = {"lang": Shown("lang", lambda p: p.tgt_lang or "-"), "tgt_lang": Shown("lang", lambda p: p.tgt_lang or "-")}
    also_signed = {"gate": SURFACE_GATE}
    # translation quality: the report shows these beside every headline of bias metrics
    quality = (Headline("bleu"), Headline("chrf"))  # labelled by their specs

    def __init__(self, sources: Sequence[str], references: Sequence[str], tgt_lang: str | None = None,
                 beam: int = 5):
        if len(sources) != len(references):
            raise ValueError(f"{len(sources)} sources but {len(references)} references")
        self.sources, self.references, self.tgt_lang, self.beam = list(sources), list(references), tgt_lang, beam

    @classmethod
    def from_options(cls, src: str | Path, ref: str | Path, *, lang: str | None = None, tgt_lang: str | None = None,
                     beam: int = 5, max_sentences: int | None = None) -> "QualityProbe":
        """``src``/``ref``: a sentence-aligned test set; ``max_sentences`` keeps the first N pairs."""
        from ...textio import read_parallel

        if lang and tgt_lang and lang != tgt_lang:
            raise InputError(f"lang = {lang!r} and tgt_lang = {tgt_lang!r} disagree", hint="give one of them")
        corpus = read_parallel(src, ref)
        if not len(corpus):
            raise InputError(f"the quality probe's files hold no sentence pairs ({corpus.skipped_empty} "
                             "empty line(s))", path=src, hint=f"give src and ref files with text (ref: {ref})")
        limit = max_sentences or len(corpus)
        return cls(corpus.sources[:limit], corpus.targets[:limit], tgt_lang or lang, beam=beam)

    def data_hash(self) -> str:
        return hash_lines([*self.sources, "\x00", *self.references])

    def items(self) -> list[tuple[str, str]]:
        return list(zip(self.sources, self.references))

    def decode(self, translator: Translator, items: Sequence[tuple[str, str]]) -> list[str]:
        return translator.translate([source for source, _ in items], beam=self.beam)

    def judge(self, items: Sequence[tuple[str, str]], hypotheses: Sequence[str]) -> Attempts:
        # without a target language only copies, empty lines and runaway repetitions are caught
        lang = self.tgt_lang or ""
        return Attempts(({"source": s, "reference": r, "hypothesis": h, "validity": check(s, h, lang, adequate=False)}
                         for (s, r), h in zip(items, hypotheses)),
                        meta={"sacrebleu": sacrebleu_signatures(self.tgt_lang)})

    def values(self, attempts: Sequence[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
        """Every hypothesis is scored, valid or not (see the module's docstring)."""
        return [(a["hypothesis"], a["reference"], self.tgt_lang) for a in attempts]

    def metrics(self, attempts: Sequence[dict[str, Any]], *, ci: bool = True) -> list[Metric]:
        # the valid rate without an interval: the paired test and the report compare BLEU, not it
        return super().metrics(attempts, ci=ci) + validity_metrics(attempts)

    def paired_test(self, metric: str, a: Sequence[dict[str, Any]], b: Sequence[dict[str, Any]], *,
                    resamples: int = 1000, seed: int = 0) -> dict[str, Any]:
        """sacrebleu's paired bootstrap (corpus scores from sufficient statistics), with the
        centered p-value (:func:`mtdebias.stats.paired.centered_p_value`): sacrebleu's own
        rejected two systems of equal quality too often (tests/test_calibration.py)."""
        from ...stats.paired import paired_bootstrap_quality

        test = paired_bootstrap_quality([x["hypothesis"] for x in a], [x["hypothesis"] for x in b],
                                        [x["reference"] for x in a], metric=metric, tgt_lang=self.tgt_lang,
                                        resamples=resamples)
        return {"test": "paired bootstrap", "baseline_value": test.score_a, "variant_value": test.score_b,
                "p_value": test.p_value, "delta_ci": list(test.ci)}
