"""``wsd_bias.v1``: does the translator pick the right sense of a polysemous word, and do its
errors lean to frequent senses? (DiBiMT, Campolungo et al. 2022, on items users bring.)

Shape (the probe contract, :mod:`.base`): :meth:`WSDBiasProbe.items` → :meth:`WSDBiasProbe.run`
(translate, lemmatise, match; one logged attempt per item) → :meth:`WSDBiasProbe.metrics`
(pure arithmetic on attempts, :mod:`.metrics`, which declares each metric once: its
direction, paired test and how it is computed).

Matching one translation (:func:`classify`):

1. the translation is lemmatised (:mod:`mtdebias.lang.lemmatize`) and every good and bad lemma
   of the item is looked for, multi-word lemmas included;
2. a German particle verb («hob … an» → anheben) overrides the plain verb on the same token
   (heben); a compound head («Haustürschlüssel» → Schlüssel) counts only when no lemma matches
   a whole word;
3. with an aligner (``align = "fast_align"``), ``aligned_only`` keeps only matches that overlap
   the target words aligned to the source word (all matches are kept when the word is
   unaligned);
4. no match → MISS; only good → GOOD; only bad → BAD; both → the match overlapping the aligned
   word decides when exactly one kind does; otherwise the ``both`` rule decides (``miss``,
   ``good``, ``bad`` or ``first``: the match that comes first in the translation). How every
   item was decided is logged (``rule``) and counted in the result's meta.

A BAD item's chosen sense is the most frequent (lowest μ) sense among the senses of the
matched bad lemma(s), as in the paper when a lemma lexicalises several senses.

Forced decoding (when items give ``good_sentences``/``bad_sentences`` and the translator can
``score``): per item, the best-scoring BAD sentence against the best-scoring GOOD one, by mean
log-probability per target piece (length-normalised, as perplexity is) or total;
``forced_bad_preferred`` is the share of items where BAD scores higher.

The translation-validity gate (:mod:`mtdebias.probes.validity`) checks each translation first.
One that is empty, a runaway repetition, a copy of the English or not in the target language
shows no sense of the word: it is not aligned, and it is left out of every metric (forced
decoding included, so that all numbers rest on the same items), not counted as a MISS.
``valid_rate`` and ``invalid.<reason>`` say how many; a valid rate at or below 0.8 is degenerate.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Sequence, TypedDict

from ...errors import InputError
from ...resources import data_dir
from ...lang.lemmatize import LemmaMatch, LemmaToken, Lemmatizer, find_lemma, lemmatizer
from ...signature import hash_file, hash_json
from ...translators.base import Translator, UnsupportedCall
from ...align.target import aligned_spans
from ..base import HIGHER, Attempts, BaseProbe, Metric, MetricSpec, Shown
from ..validity import SURFACE_GATE, TooFewTranslations, Validity, check_all, is_valid, validity_metrics, validity_specs
from .items import WSDItem, item_to_json, load_items
from .metrics import (BAD, DIBIMT, GOOD, MEASURES, MISS, group_accuracies, metrics_by_pos, pos_accuracies,
                      rows_from_attempts, wsd_metrics)

DATA_DIR = data_dir("wsd")
DEFAULT_ITEMS = DATA_DIR / "items.jsonl"
BOTH_RULES = ("miss", "good", "bad", "first")
ALIGN_METHODS = ("none", "fast_align", "eflomal")
FORCED_MODES = ("auto", "on", "off")
FORCED_SCORES = ("mean", "total")
def _overlaps(match: LemmaMatch, span: tuple[int, int] | None) -> bool:
    return span is not None and match.start < span[1] and match.end > span[0]


def classify(item: WSDItem, lang: str, translation: str, tokens: Sequence[LemmaToken], *,
             aligned_span: tuple[int, int] | None = None, aligned_only: bool = False, both: str = "miss",
             compounds: bool = True, word_lemmas: Callable[[str], frozenset[str]] | None = None) -> dict[str, Any]:
    """GOOD / BAD / MISS for one translation, with the evidence (see the module docstring)."""
    side = item.targets[lang]
    good = [m for lemma in side.good for m in find_lemma(tokens, lemma, lang, compounds=compounds,
                                                             word_lemmas=word_lemmas)]
    bad_senses: dict[str, tuple[str, ...]] = {}
    bad = []
    for entry in side.bad:
        hits = find_lemma(tokens, entry.lemma, lang, compounds=compounds, word_lemmas=word_lemmas)
        if hits:
            bad_senses[entry.lemma] = entry.senses
        bad += hits
    # «hob … an.» is anheben, not heben: a particle verb overrides the plain verb on its token
    particle_heads = {m.tokens[0] for m in good + bad if m.how == "particle verb"}
    good = [m for m in good if not (m.how == "exact" and m.tokens[0] in particle_heads)]
    bad = [m for m in bad if not (m.how == "exact" and m.tokens[0] in particle_heads)]
    if any(m.how != "compound head" for m in good + bad):  # a whole word outranks a compound's head
        good = [m for m in good if m.how != "compound head"]
        bad = [m for m in bad if m.how != "compound head"]
    found = [("good", m) for m in good] + [("bad", m) for m in bad]  # logged whatever decides
    restricted = False
    if aligned_only and aligned_span is not None:
        good_al = [m for m in good if _overlaps(m, aligned_span)]
        bad_al = [m for m in bad if _overlaps(m, aligned_span)]
        if good_al or bad_al:
            good, bad, restricted = good_al, bad_al, True
    if not good and not bad:
        status, rule = MISS, "no good or bad lemma found"
    elif good and not bad:
        status, rule = GOOD, "only a good lemma found"
    elif bad and not good:
        status, rule = BAD, "only a bad lemma found"
    else:
        good_al = [m for m in good if _overlaps(m, aligned_span)]
        bad_al = [m for m in bad if _overlaps(m, aligned_span)]
        if good_al and not bad_al:
            status, rule, bad = GOOD, "both found; the aligned word is good", []
        elif bad_al and not good_al:
            status, rule, good = BAD, "both found; the aligned word is bad", []
        elif both == "first":
            first_good = min(m.start for m in good)
            first_bad = min(m.start for m in bad)
            status = GOOD if first_good <= first_bad else BAD
            rule = f"both found; not decided by alignment; rule 'first' → {status}"
        else:
            status = {"miss": MISS, "good": GOOD, "bad": BAD}[both]
            rule = f"both found; not decided by alignment; rule '{both}' → {status}"
    if restricted:
        rule += " (among matches aligned to the source word)"
    matched = good if status == GOOD else bad if status == BAD else []
    senses = sorted({s for m in matched for s in bad_senses.get(m.lemma, ())}) if status == BAD else \
        ([item.sense] if status == GOOD else [])
    chosen_sense, chosen_mu = None, None
    if status == BAD:
        known = [(item.sense_mu(s), s) for s in senses if item.sense_mu(s) is not None]
        if known:
            chosen_mu, chosen_sense = min(known)
        elif senses:
            chosen_sense = senses[0]
    elif status == GOOD:
        chosen_sense, chosen_mu = item.sense, item.correct_mu
    return {
        "id": item.id, "line": item.line, "source": item.sentence, "word": item.word, "lemma": item.lemma,
        "pos": item.pos, "sense": item.sense, "mu": item.correct_mu, "delta": item.delta,
        "translation": translation, "status": status, "correct": status == GOOD if status != MISS else None,
        "rule": rule,
        "matched_lemmas": sorted({m.lemma for m in matched}),
        "matches": [{"lemma": m.lemma, "kind": kind, "span": [m.start, m.end], "text": translation[m.start:m.end],
                     "how": m.how} for kind, m in found],
        "matched_senses": senses, "chosen_sense": chosen_sense, "chosen_mu": chosen_mu,
        "aligned_span": list(aligned_span) if aligned_span else None,
    }


class WSDAttempt(TypedDict):
    """One item: which sense the translation shows (GOOD, BAD or MISS) and the lemmas that say so."""

    id: str
    line: int
    source: str
    word: str
    lemma: str
    pos: str
    sense: str
    mu: int
    delta: int
    translation: str
    status: str  # GOOD | BAD | MISS
    correct: bool | None  # None for MISS
    rule: str
    matched_lemmas: list[str]
    matches: list[dict[str, Any]]
    matched_senses: list[str]
    chosen_sense: str | None
    chosen_mu: int | None
    aligned_span: list[int] | None
    forced: dict[str, Any] | None  # forced-decoding scores of the good and bad sentences
    validity: Validity  # the gate's verdict: an invalid translation is in no metric but its own


class WSDBiasProbe(BaseProbe):
    """``wsd_bias.v1``: accuracy, MISS rate, SFII, SPDI, MFS, MFS+ (and forced decoding)."""
    name = "wsd_bias.v1"
    unsigned = ("resamples",)  # sets the bootstrap interval's precision, not the values
    # the items (with their WordNet frequencies, after the limit) are in the data hash, and so are
    # the extra alignment pairs when given (they change what the aligner links, hence the matches);
    # without them the hash is the items' alone, as in every stored signature so far
    hashed = ("data", "wordnet", "limit", "align_extra_src", "align_extra_tgt")
    shown = {"lemmatizer": Shown("lemmatizer", lambda p: p.lemmatizer.name)}  # "auto" as resolved
    also_signed = {"gate": SURFACE_GATE}

    needs = ("lemmatiser",)  # matches lemmas of the translation
    # 3: each attempt's validity verdict, valid_rate and invalid.*; 2: accuracy by μ and δ are
    # metrics (were meta), the by-POS table
    stored_layout = 3

    attempt_type = WSDAttempt
    degenerate_when = (TooFewTranslations(),)  # after the MISS rate's (declared with it)
    # DiBiMT's measures (wsd/metrics.py), then the metrics metrics() computes another way
    measures = (*MEASURES,
                MetricSpec("accuracy_by_*", HIGHER, bounds=(0, 1), label="WSD accuracy by {0}",
                           source=f"{DIBIMT}, §4.4",
                           definition="accuracy of the items of one μ (sense frequency) or δ (polysemy) group"),
                *validity_specs("WSD"))
    option_help = {
        "lang": "target language code (the items' targets: de, es, it, ru)",
        "data": "JSONL items replacing the shipped mtdebias/data/wsd/items.jsonl",
        "lemmatizer": "lemmatiser of the translations: auto, spacy, pymorphy3 or simplemma",
        "align": "word aligner that locates the source word in the translation: none, fast_align, eflomal",
        "aligned_only": "count only lemma matches on the words aligned to the source word (needs align)",
        "both": "an item where good and bad lemmas both match: miss, good, bad or first (the earlier match)",
        "compounds": "let a German compound's head match («Haustürschlüssel» → Schlüssel)",
        "forced": "score the items' good and bad sentences by forced decoding: auto (when the translator can), on, off",
        "forced_score": "how forced decoding compares sentences: mean (per target piece) or total log-probability",
        "align_extra_src": "extra English sentences the aligner learns from (with align_extra_tgt)",
        "align_extra_tgt": "their translations, line by line",
        "wordnet": "a WordNet dict folder for sense frequencies, or false to use none"}
    own_plots = ("accuracy_by_*",)  # drawn against μ and δ (report/views/wsd.py), not against training step

    def __init__(self, items: Sequence[WSDItem], lang: str, *, beam: int = 5, lemmatizer_name: str = "auto",
                 align: str = "none", aligned_only: bool = False, both: str = "miss", compounds: bool = True,
                 forced: str = "auto", forced_score: str = "mean", align_extra_src: Sequence[str] = (),
                 align_extra_tgt: Sequence[str] = (), resamples: int = 1000, seed: int = 0,
                 data_hash: str | None = None, align_fn: Callable[..., Any] | None = None):
        for value, allowed, what in ((both, BOTH_RULES, "both"), (align, ALIGN_METHODS, "align"),
                                     (forced, FORCED_MODES, "forced"), (forced_score, FORCED_SCORES, "forced_score")):
            if value not in allowed:
                raise InputError(f"{what} = {value!r} is not one of {', '.join(allowed)}")
        if aligned_only and align == "none":
            raise InputError("aligned_only needs an aligner", hint="set align = \"fast_align\" (or \"eflomal\")")
        chosen = [item for item in items if lang in item.targets]
        if not chosen:
            langs = sorted({lang for item in items for lang in item.targets})
            raise InputError(f"no item has target language {lang!r}",
                             hint=f"the items cover {', '.join(langs) or 'no language'}")
        self._items = chosen
        self.skipped_items = len(items) - len(chosen)
        self.lang = lang
        self.beam = beam
        self.lemmatizer: Lemmatizer = lemmatizer(lang, lemmatizer_name)
        self.align = align
        self.aligned_only = aligned_only
        self.both = both
        self.compounds = compounds
        self.forced = forced
        self.forced_score = forced_score
        self.align_extra_src = list(align_extra_src)
        self.align_extra_tgt = list(align_extra_tgt)
        self.resamples = resamples
        self.seed = seed
        self.data_hash = data_hash or hash_json([item_to_json(i) for i in chosen])
        self._align_fn = align_fn

    @classmethod
    def from_options(cls, lang: str, data: str | Path | None = None, *, beam: int = 5, lemmatizer: str = "auto",
                     align: str = "none", aligned_only: bool = False, both: str = "miss", compounds: bool = True,
                     forced: str = "auto", forced_score: str = "mean", align_extra_src: str | Path | None = None,
                     align_extra_tgt: str | Path | None = None, resamples: int = 1000, seed: int = 0,
                     wordnet: str | Path | bool | None = None, limit: int | None = None) -> "WSDBiasProbe":
        """Build from plain options (the CLI's and suites'). ``data`` defaults to the shipped
        ``mtdebias/data/wsd/items.jsonl``; ``wordnet``: a WordNet dict folder, ``false`` to not use one.
        ``limit``: N of the language's items, spread evenly over the file (every k-th), so a small
        run still covers its parts of speech and senses rather than the first few lemmas."""
        path = Path(data) if data else DEFAULT_ITEMS
        wn: Any = None
        if wordnet is False or wordnet == "false":
            wn = False
        elif isinstance(wordnet, str) and wordnet:
            from ...lang.wordnet import load_wordnet

            wn = load_wordnet(wordnet)
        items = load_items(path, wordnet=wn)
        if limit is not None:
            if int(limit) < 1:
                raise InputError(f"limit = {limit}: keep at least one item")
            own = [i for i in items if lang in i.targets]
            step = max(len(own) / int(limit), 1.0)
            items = [own[int(k * step)] for k in range(min(int(limit), len(own)))]
        extra_src, extra_tgt = [], []
        hashed_parts: list[Any] = [hash_file(path), [item_to_json(i) for i in items if lang in i.targets]]
        if align_extra_src or align_extra_tgt:
            from ...textio import read_parallel

            corpus = read_parallel(align_extra_src, align_extra_tgt)
            extra_src, extra_tgt = corpus.sources, corpus.targets
            hashed_parts.append([extra_src, extra_tgt])
        data_hash = hash_json(hashed_parts)
        return cls(items, lang, beam=beam, lemmatizer_name=lemmatizer, align=align, aligned_only=aligned_only,
                   both=both, compounds=compounds, forced=forced, forced_score=forced_score,
                   align_extra_src=extra_src, align_extra_tgt=extra_tgt, resamples=resamples, seed=seed,
                   data_hash=data_hash)

    # ------------------------------------------------------------------ the contract
    def items(self) -> list[WSDItem]:
        return list(self._items)

    def decode(self, translator: Translator, items: Sequence[WSDItem]) -> list[dict[str, Any]]:
        """One translation per item and, when possible, forced-decoding scores of its good and bad
        sentences."""
        items = list(items)
        translations = translator.translate([item.sentence for item in items], beam=self.beam)
        if len(translations) != len(items):
            raise InputError(f"translator returned {len(translations)} translations for {len(items)} sentences")
        return [{"translation": t, "forced": f} for t, f in zip(translations, self._forced(translator, items))]

    def judge(self, items: Sequence[WSDItem], outputs: Sequence[dict[str, Any]]) -> Attempts:
        """Match the good and bad lemmas in each translation: one attempt per item."""
        attempts = self.attempts_from_translations([o["translation"] for o in outputs], items)
        for attempt, output in zip(attempts, outputs):
            attempt["forced"] = output["forced"]
        return Attempts(attempts, meta=self._meta(attempts))

    def attempts_from_translations(self, translations: Sequence[str],
                                   items: Sequence[WSDItem] | None = None) -> list[dict[str, Any]]:
        items = list(items) if items is not None else self.items()
        # without the adequacy test: a wrong sense is what this probe measures, and it changes what
        # the reply says (one of the two wrong-sense German replies of tests/test_wsd_bias.py's
        # translation file falls below the German floor), so the test would leave out the very
        # errors counted; and its floor was
        # set on WinoMT's sentences, not these (a correct "Der Elefant hob den Baumstamm mit
        # seinem Rüssel." falls below it too)
        verdicts = check_all([item.sentence for item in items], list(translations), self.lang, adequate=False)
        valid = [k for k, verdict in enumerate(verdicts) if verdict["valid"]]
        spans: list[tuple[int, int] | None] = [None] * len(items)
        if self.align != "none" and valid:
            # only valid pairs: the aligner learns from them, and English copies would mislead it
            found = aligned_spans([items[k].sentence for k in valid], [items[k].span for k in valid],
                                  [translations[k] for k in valid], "en", self.lang, method=self.align,
                                  extra_sources=self.align_extra_src, extra_targets=self.align_extra_tgt,
                                  align=self._align_fn)
            for k, span in zip(valid, found):
                spans[k] = span
        out = []
        for item, translation, span, verdict in zip(items, translations, spans, verdicts):
            tokens = self.lemmatizer.tokens(translation)
            attempt = classify(item, self.lang, translation, tokens, aligned_span=span,
                               aligned_only=self.aligned_only, both=self.both, compounds=self.compounds,
                               word_lemmas=self.lemmatizer.word_lemmas)
            attempt["forced"] = None
            attempt["validity"] = verdict
            out.append(attempt)
        return out

    def _forced(self, translator: Translator, items: Sequence[WSDItem]) -> list[dict[str, Any] | None]:
        jobs = [(k, kind, sentence) for k, item in enumerate(items)
                for kind in ("good", "bad")
                for sentence in getattr(item.targets[self.lang], f"{kind}_sentences")]
        results: list[dict[str, Any] | None] = [None] * len(items)
        if self.forced == "off" or not jobs:
            if self.forced == "on" and not jobs:
                raise InputError("forced = \"on\" but no item gives good_sentences/bad_sentences for "
                                 f"{self.lang!r}")
            return results
        try:
            scored = translator.score([items[k].sentence for k, _, _ in jobs], [s for _, _, s in jobs])
        except UnsupportedCall:
            if self.forced == "on":
                raise
            return results
        for (k, kind, sentence), score in zip(jobs, scored):
            value = score.mean if self.forced_score == "mean" else score.total
            entry = results[k] or {"good": [], "bad": []}
            entry[kind].append({"sentence": sentence, "score": value, "total": score.total})
            results[k] = entry
        for entry in results:
            if entry is not None:
                best_good = max(s["score"] for s in entry["good"])
                best_bad = max(s["score"] for s in entry["bad"])
                entry["bad_preferred"] = best_bad > best_good
        return results

    def metrics(self, attempts: Sequence[dict[str, Any]], *, ci: bool = True) -> list[Metric]:
        """The DiBiMT metrics, then the accuracy within each μ group (``accuracy_by_mu.<μ>``) and δ
        group (``accuracy_by_delta.<δ>``): the numbers behind SFII and SPDI; the accuracy within each
        part of speech (``accuracy_by_pos.<POS>``, the report's figure); then the gate's
        ``valid_rate`` and ``invalid.<reason>``. Only valid translations count in the others."""
        valid = [a for a in attempts if is_valid(a)]
        rows = rows_from_attempts(valid)
        resamples = self.resamples if ci else 0
        metrics = wsd_metrics(rows, resamples=resamples, seed=self.seed)
        groups = {by: group_accuracies(rows, by, resamples=resamples, seed=self.seed) for by in ("mu", "delta")}
        groups["pos"] = pos_accuracies(valid, resamples=resamples, seed=self.seed)
        for by, found in groups.items():
            metrics += [Metric(f"accuracy_by_{by}.{g['group']}", g["accuracy"], tuple(g["ci"]) if g["ci"] else None,
                               g["n"]) for g in found]
        return metrics + validity_metrics(attempts, resamples=resamples, seed=self.seed)

    def tables(self, attempts: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """``by_pos``: DiBiMT's metrics within each part of speech (valid translations only)."""
        return {"by_pos": metrics_by_pos([a for a in attempts if is_valid(a)])}

    def item_key(self, attempt: dict[str, Any]) -> str:
        return attempt["id"]




    def _meta(self, attempts: list[dict[str, Any]]) -> dict[str, Any]:
        rules: dict[str, int] = {}
        for attempt in attempts:
            rules[attempt["rule"]] = rules.get(attempt["rule"], 0) + 1
        return {"lang": self.lang, "items": len(attempts), "items_other_langs": self.skipped_items,
                "lemmatizer": self.lemmatizer.name, "both_rule": self.both, "rules": rules,
                "both_found": sum(n for r, n in rules.items() if r.startswith("both found")),
                "without_mu": sum(1 for a in attempts if a["mu"] is None),
                "without_delta": sum(1 for a in attempts if a["delta"] is None),
                "forced_items": sum(1 for a in attempts if a.get("forced"))}
