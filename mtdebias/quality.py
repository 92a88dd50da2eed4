"""Translation quality (BLEU, chrF) with sacrebleu, carrying sacrebleu's own signature."""

from __future__ import annotations

from typing import Sequence

from sacrebleu.metrics import BLEU, CHRF

from .probes.base import Metric, ProbeResult
from .signature import Signature, hash_lines
from .translators.base import Translator


def corpus_quality(hypotheses: Sequence[str], references: Sequence[str], tgt_lang: str | None = None
                   ) -> dict[str, tuple[float, str]]:
    """{"bleu": (score, sacrebleu signature), "chrf": (...)} for one reference per sentence."""
    tokenize = "zh" if tgt_lang == "zh" else "13a"
    bleu, chrf = BLEU(tokenize=tokenize), CHRF()
    b = bleu.corpus_score(list(hypotheses), [list(references)])
    c = chrf.corpus_score(list(hypotheses), [list(references)])
    return {"bleu": (b.score, str(bleu.get_signature())), "chrf": (c.score, str(chrf.get_signature()))}


class QualityProbe:
    """BLEU and chrF of a translator on a dev/test set."""

    name = "quality.v1"

    def __init__(self, sources: Sequence[str], references: Sequence[str], tgt_lang: str | None = None,
                 beam: int = 5):
        if len(sources) != len(references):
            raise ValueError(f"{len(sources)} sources but {len(references)} references")
        self.sources, self.references, self.tgt_lang, self.beam = list(sources), list(references), tgt_lang, beam

    def data_hash(self) -> str:
        return hash_lines([*self.sources, "\x00", *self.references])

    def signature(self, translator: Translator) -> str:
        return str(Signature(self.name, self.data_hash(), translator.signature(),
                             {"beam": self.beam, "lang": self.tgt_lang or "-"}))

    def run(self, translator: Translator) -> ProbeResult:
        hypotheses = translator.translate(self.sources, beam=self.beam)
        scores = corpus_quality(hypotheses, self.references, self.tgt_lang)
        metrics = [Metric("bleu", scores["bleu"][0], n=len(hypotheses)),
                   Metric("chrf", scores["chrf"][0], n=len(hypotheses))]
        attempts = [{"source": s, "reference": r, "hypothesis": h}
                    for s, r, h in zip(self.sources, self.references, hypotheses)]
        return ProbeResult(self.name, metrics, self.signature(translator), attempts,
                           meta={"sacrebleu": {k: v[1] for k, v in scores.items()}})
