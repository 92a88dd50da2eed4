"""The CTranslate2 backend on a really trained tiny checkpoint: same beam outputs (BLEU), same
forced-decoding scores (per token, float32), conversion cached by checkpoint hash."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("ctranslate2")

from sacrebleu.metrics import BLEU  # noqa: E402

from mtdebias.errors import ConfigError  # noqa: E402
from toy import toy_corpus  # noqa: E402
from mtdebias.translators.ct2 import CT2Translator, converted_dir  # noqa: E402
from mtdebias.translators.hf import HFTranslator  # noqa: E402
from mtdebias.translators.load import check_backend  # noqa: E402


@pytest.fixture(scope="module")
def pair(tiny_checkpoint):
    return CT2Translator(tiny_checkpoint, compute_type="float32"), HFTranslator(tiny_checkpoint)


def test_beam_outputs_match_hf_within_half_a_bleu_point(pair):
    ct2, hf = pair
    sources, references = toy_corpus(120, seed=9)
    ct2_out, hf_out = ct2.translate(sources, beam=4), hf.translate(sources, beam=4)
    bleu = BLEU()
    gap = abs(bleu.corpus_score(ct2_out, [references]).score - bleu.corpus_score(hf_out, [references]).score)
    assert gap < 0.5
    assert sum(a == b for a, b in zip(ct2_out, hf_out)) >= 0.95 * len(sources)


def test_scores_match_hf_per_token(pair):
    ct2, hf = pair
    sources, targets = toy_corpus(40, seed=2)
    targets = targets[:20] + targets[20:][::-1]  # half of them wrong translations
    for a, b in zip(ct2.score(sources, targets), hf.score(sources, targets)):
        assert a.pieces == b.pieces  # end-of-sentence included on both sides
        assert max(abs(x - y) for x, y in zip(a.tokens, b.tokens)) < 1e-3


def test_conversion_is_cached_beside_the_checkpoint(pair, tiny_checkpoint):
    ct2, _ = pair
    assert ct2.model_dir == converted_dir(tiny_checkpoint, ct2.checkpoint_hash)
    stamp = (ct2.model_dir / "model.bin").stat().st_mtime_ns
    again = CT2Translator(tiny_checkpoint, compute_type="int8")
    assert (again.model_dir / "model.bin").stat().st_mtime_ns == stamp  # not converted twice
    assert again.signature() == f"ct2-int8+hf-sample:{ct2.checkpoint_hash}"
    assert again.translate(["The red dog sleeps."], beam=2)[0]  # int8 quantised at load time


def test_sampling_is_the_hf_epsilon_sampler(pair):
    ct2, hf = pair
    assert ct2.sample(["The red dog sleeps."], n=8, seed=3) == hf.sample(["The red dog sleeps."], n=8, seed=3)


def test_bad_backend_settings_are_refused():
    with pytest.raises(ConfigError, match="did you mean 'ct2'"):
        check_backend("ct3")
    with pytest.raises(ConfigError, match="ct2 backend only"):
        check_backend("hf", "int8")
    with pytest.raises(ConfigError, match="compute_type"):
        check_backend("ct2", "int4")


def test_translate_cli_with_ct2(tiny_checkpoint):
    result = subprocess.run([sys.executable, "-m", "mtdebias", "translate", str(tiny_checkpoint), "--beam", "2",
                             "--backend", "ct2"], input="The red dog sleeps.\n", capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == HFTranslator(tiny_checkpoint).translate(["The red dog sleeps."], beam=2)[0]


def test_a_suite_scores_checkpoints_with_ct2(tmp_path, tiny_checkpoint):
    import shutil

    from mtdebias.evaluation.runner import evaluate
    from mtdebias.store.runs import RunStore

    run = tmp_path / "run"
    shutil.copytree(tiny_checkpoint, run / "checkpoints" / "step-0000100")
    sources, targets = toy_corpus(20, seed=4)
    (tmp_path / "test.en").write_text("\n".join(sources) + "\n")
    (tmp_path / "test.de").write_text("\n".join(targets) + "\n")
    suite = tmp_path / "suite.toml"
    suite.write_text('[suite]\nname = "t"\nbackend = "ct2"\ncompute_type = "float32"\n\n[[probe]]\n'
                     f'type = "quality"\nsrc = "{tmp_path}/test.en"\nref = "{tmp_path}/test.de"\nbeam = 2\n')
    outcome = evaluate([run], suite)
    assert len(outcome.scored) == 1 and not outcome.failed
    rows = RunStore(run).results(run / "checkpoints" / "step-0000100")
    assert {r["metric"] for r in rows} == {"bleu", "chrf", "valid_rate", "invalid.empty", "invalid.repetition", "invalid.copy", "invalid.not_target",
            "invalid.not_translation"}
    assert all("ct2-float32+hf-sample:" in r["signature"] for r in rows)
    hf_outcome = evaluate([run], suite, backend="hf")  # the CLI's --backend overrides the suite
    assert len(hf_outcome.scored) == 1  # another system, so not a stored result


def test_a_suite_with_an_unknown_backend_is_refused_naming_the_file(tmp_path):
    from mtdebias.evaluation.suite import load_suite

    suite = tmp_path / "suite.toml"
    suite.write_text('[suite]\nbackend = "ctranslate"\n\n[[probe]]\ntype = "quality"\nsrc = "a"\nref = "b"\n')
    with pytest.raises(ConfigError, match=r"suite\.toml: \[suite\] backend = 'ctranslate'"):
        load_suite(suite)
