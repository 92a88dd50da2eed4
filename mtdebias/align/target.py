"""What a translation made of one source span: align, find the target words, detect their gender.

Every probe that reads a word in the translation (WinoMT's profession, the ambiguity probe's
focus noun, the word-sense probe's polysemous word) does the same two steps, written once here:

1. :func:`aligned_spans` — word-align sources and translations (one aligner run over all
   pairs, optionally with an extra parallel corpus to learn from) and map each source span to
   the character span of the target words aligned to it; ``None`` when the translation is
   empty or nothing is aligned to the span;
2. :func:`target_genders` — then detect the grammatical gender of those words in context
   (:func:`mtdebias.lang.detect_gender`); an unaligned span is ``undetected``, an outcome with
   its own rate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

Span = tuple[int, int]
UNDETECTED = "undetected"
UNALIGNED = "source word not aligned to any target word"


@dataclass(frozen=True)
class TargetGender:
    span: Span | None  # target characters aligned to the source span (None: unaligned or empty)
    gender: str  # "female" | "male" | "neutral" | … | "undetected"
    evidence: tuple[str, ...]  # why the detector decided so
    judged_span: Span | None  # the words the detector read (it may widen to a noun phrase)

    def words(self, translation: str) -> str | None:
        return translation[self.span[0]:self.span[1]] if self.span else None


def aligned_spans(sources: Sequence[str], source_spans: Sequence[Span], translations: Sequence[str],
                  src_lang: str, tgt_lang: str, *, method: str = "fast_align", extra_sources: Sequence[str] = (),
                  extra_targets: Sequence[str] = (), align: Callable[..., Any] | None = None) -> list[Span | None]:
    """The target span aligned to each source span (``align``: an aligner with
    :func:`mtdebias.align.align_pairs`'s signature, for tests)."""
    if align is None:
        from . import align_pairs as align
    alignments = align(list(sources), list(translations), src_lang, tgt_lang, method=method,
                       extra_sources=list(extra_sources), extra_targets=list(extra_targets))
    return [alignment.tgt_span_of(*span) if text.strip() else None
            for alignment, span, text in zip(alignments, source_spans, translations)]


def target_genders(sources: Sequence[str], source_spans: Sequence[Span], translations: Sequence[str],
                   tgt_lang: str, *, src_lang: str = "en", method: str = "fast_align",
                   extra_sources: Sequence[str] = (), extra_targets: Sequence[str] = (),
                   detect: Callable[..., Any] | None = None, align: Callable[..., Any] | None = None,
                   unaligned: str = UNALIGNED) -> list[TargetGender]:
    """Align, then detect: the gender of the target words aligned to each source span."""
    if detect is None:
        from ..lang import detect_gender as detect  # late: the detectors load spaCy / pymorphy
    spans = aligned_spans(sources, source_spans, translations, src_lang, tgt_lang, method=method,
                          extra_sources=extra_sources, extra_targets=extra_targets, align=align)
    out = []
    for span, text in zip(spans, translations):
        if span is None:
            out.append(TargetGender(None, UNDETECTED, (unaligned,), None))
            continue
        detection = detect(tgt_lang, text, span)
        out.append(TargetGender(span, detection.gender, tuple(detection.evidence), detection.span))
    return out


__all__ = ["TargetGender", "aligned_spans", "target_genders", "UNDETECTED"]
