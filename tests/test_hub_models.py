"""Models named by hub id, served offline from a locally built hub cache in the real layouts
(Opus-MT, M2M100, NLLB): translate, sample, score, CTranslate2, hard-debias, a suite, and
fine-tuning with ``model.init``; results name the snapshot commit."""

from __future__ import annotations

import json

import pytest

from hub_cache import BUILDERS, add_to_hub_cache
from mtdebias.cli import main
from mtdebias.models.hub import local_model_dir, resolve_model

OPUS, M2M, NLLB = "Helsinki-NLP/opus-mt-en-de", "facebook/m2m100_418M", "facebook/nllb-200-distilled-600M"
LANGS = {OPUS: [], M2M: ["--src-lang", "en", "--tgt-lang", "de"], NLLB: ["--src-lang", "en", "--tgt-lang", "de"]}


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """{repo: commit}, with HF_HUB_CACHE pointing at the built cache for the module's tests."""
    root = tmp_path_factory.mktemp("hub")
    commits = {repo: add_to_hub_cache(root / "cache", repo, build(root / "models" / repo.replace("/", "--")))
               for repo, build in BUILDERS.items()}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_CACHE", str(root / "cache"))
        patch.setenv("HF_HUB_OFFLINE", "1")
        yield commits


@pytest.mark.parametrize("repo", [OPUS, M2M, NLLB])
def test_translate_sample_score_by_hub_id_offline(hub, repo, capsys, monkeypatch):
    from mtdebias.translators.hf import HFTranslator

    resolved = resolve_model(repo)
    assert resolved.commit == hub[repo] and resolved.path.parent.parent.name == f"models--{repo.replace('/', '--')}"
    assert resolve_model(f"{repo}@{hub[repo]}").path == resolved.path  # pinned by commit
    monkeypatch.setattr("sys.stdin", __import__("io").StringIO("The teacher met the woman.\nThe old dog eats.\n"))
    assert main(["translate", repo, "--beam", "2", *LANGS[repo]]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 2
    languages = {"src_lang": "en", "tgt_lang": "de"} if repo != OPUS else {}
    translator = HFTranslator(local_model_dir(repo), device="cpu", max_new_tokens=8, **languages)
    assert translator.signature() == f"hub:{repo}@{hub[repo][:12]}"
    samples = translator.sample(["The old dog eats."], n=3, seed=1)
    assert len(samples[0]) == 3
    scored = translator.score(["The old dog eats."], ["Der alte Hund frisst."])
    assert scored[0].total < 0 and len(scored[0].tokens) >= 2
    if repo != OPUS:  # the target-language token is forced first: NLLB's deu_Latn from "de"
        expected = "deu_Latn" if repo == NLLB else "__de__"
        assert translator._gen_kwargs["forced_bos_token_id"] == translator.tokenizer.convert_tokens_to_ids(expected)


@pytest.mark.parametrize("repo", [OPUS, M2M, NLLB])
def test_ct2_conversion_by_hub_id_stays_out_of_the_cache(hub, repo, tmp_path):
    pytest.importorskip("ctranslate2")
    from mtdebias.models.hub import cache_dir
    from mtdebias.translators.ct2 import CT2Translator

    languages = {"src_lang": "en", "tgt_lang": "de"} if repo != OPUS else {}
    translator = CT2Translator(local_model_dir(repo), max_new_tokens=8, **languages)
    assert len(translator.translate(["The old dog eats."], beam=2)) == 1
    assert cache_dir() not in translator.model_dir.parents
    assert translator.signature().endswith(f"hub:{repo}@{hub[repo][:12]}")


@pytest.mark.parametrize("repo", [OPUS, M2M, NLLB])
def test_hard_debias_by_hub_id(hub, repo, tmp_path):
    out = tmp_path / "debiased"
    assert main(["debias", repo, "--out", str(out), "--method", "hard"]) == 0
    report = json.loads((out / "debias_report.json").read_text())
    assert report["tokens_changed"] and report["decoder_unchanged"]
    assert report["max_abs_relative_projection_after"] < 1e-6
    assert f"model:hub:{repo}@{hub[repo][:12]}" in report["signature"]
    assert (out / "config.json").is_file()


def test_suite_on_a_hub_model_stores_results_under_runs_with_the_commit(hub, tmp_path, monkeypatch):
    from mtdebias.store.runs import RunStore

    monkeypatch.chdir(tmp_path)
    (tmp_path / "dev.en").write_text("The old dog eats.\nThe teacher met the woman.\n")
    (tmp_path / "dev.de").write_text("Der alte Hund frisst.\nDer Lehrer traf die Frau.\n")
    (tmp_path / "suite.toml").write_text('[[probe]]\ntype = "quality"\nlang = "{tgt_lang}"\nsrc = "dev.en"\n'
                                         'ref = "dev.de"\nbeam = 1\n')
    assert main(["eval", OPUS, "--suite", "suite.toml", "--set", "tgt_lang=de"]) == 0
    store = RunStore(tmp_path / "runs" / "hub" / "Helsinki-NLP--opus-mt-en-de")
    rows = store.results(hub[OPUS])
    assert {r["metric"] for r in rows} == {"bleu", "chrf", "valid_rate", "invalid.empty", "invalid.repetition", "invalid.copy", "invalid.not_target",
            "invalid.not_translation"}
    assert all(f"model:hub:{OPUS}@{hub[OPUS][:12]}" in r["signature"] for r in rows)
    assert all(f"checkpoint:hub:{OPUS}@{hub[OPUS][:12]}" in r["request"] for r in rows)
    assert main(["eval", OPUS, "--suite", "suite.toml", "--set", "tgt_lang=de"]) == 0  # all stored: skipped
    from mtdebias.report import build_report

    summary = build_report([store.dir], tmp_path / "report.html")  # the report names the hub commit
    assert f"hub:{OPUS}@{hub[OPUS][:12]}" in summary.html.read_text(encoding="utf-8")


def test_missing_hub_id_offline_exits_2_with_the_command(hub, capsys):
    assert main(["eval", "someorg/not-cached", "--suite", "eval/quick.toml"]) == 2
    err = capsys.readouterr().err
    assert "not in the Hugging Face cache" in err and "hf download someorg/not-cached" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("repo", [OPUS, M2M, NLLB])
def test_fine_tuning_from_a_hub_id(hub, repo, tmp_path):
    """``model.init = "org/name"`` loads the cached snapshot; one tiny epoch writes a checkpoint."""
    from mtdebias.experiments.pipeline import run_recipe
    from mtdebias.recipe import load_recipe
    from toy import toy_corpus

    src, tgt = toy_corpus(40, seed=5)
    for name, lines in (("train.en", src), ("train.de", tgt), ("dev.en", src[:8]), ("dev.de", tgt[:8])):
        (tmp_path / name).write_text("\n".join(lines) + "\n")
    (tmp_path / "r.toml").write_text(f"""
[run]
name = "ft"
dir = "{tmp_path / 'runs'}"
seed = 1
[data]
train_src = "train.en"
train_tgt = "train.de"
dev_src = "dev.en"
dev_tgt = "dev.de"
src_lang = "en"
tgt_lang = "de"
[model]
init = "{repo}"
[train]
epochs = 1
max_tokens = 512
warmup_steps = 2
lr = 1e-3
validate_bleu = false
""")
    recipe = load_recipe(tmp_path / "r.toml")
    assert recipe.model.init == resolve_model(repo).path
    store = run_recipe(recipe)
    assert store.checkpoints() and store.is_finished()
    if repo != OPUS:  # labels start with the target-language token, as the model generates them
        from transformers import AutoTokenizer

        from mtdebias.experiments.pipeline import build_model_and_tokenizer

        _, tokenizer = build_model_and_tokenizer(recipe, src, tgt, store)
        labels = tokenizer(text_target=["Der alte Hund frisst."])["input_ids"][0]
        assert tokenizer.convert_ids_to_tokens(labels[0]) == ("deu_Latn" if repo == NLLB else "__de__")


def test_decoder_only_llm_by_hub_id(hub, tiny_llm, tmp_path):
    """hf-causal resolves a hub id from the same cache and names the commit and prompt."""
    import os

    from mtdebias.translators.hf_causal import HFCausalTranslator

    commit = add_to_hub_cache(os.environ["HF_HUB_CACHE"], "someorg/tiny-chat", tiny_llm)
    translator = HFCausalTranslator.from_spec("someorg/tiny-chat", src_lang="en", tgt_lang="de")
    assert translator.signature().startswith(f"hf-causal:hub:someorg/tiny-chat@{commit[:12]}:prompt-")
    assert len(translator.translate(["The old dog eats."], beam=1)) == 1


def test_gpu_check_skips_cleanly_without_cuda_and_its_recipe_validates(tmp_path):
    """`make gpu-check` cannot run here (no GPU): it must say so and exit 0; the recipe it
    would train is checked like any other."""
    import subprocess
    import sys
    from pathlib import Path

    import torch

    root = Path(__file__).resolve().parents[1]
    sys.path.insert(0, str(root / "bench"))
    import gpu_check

    from mtdebias.experiments.pipeline import check_recipe
    from mtdebias.recipe import load_recipe

    recipe = tmp_path / "r.toml"
    recipe.write_text(gpu_check.RECIPE.format(runs=tmp_path / "runs", epochs=1, precision="bf16"))
    check_recipe(load_recipe(recipe))
    if torch.cuda.is_available():
        pytest.skip("a GPU is present: run `make gpu-check` itself")
    done = subprocess.run([sys.executable, str(root / "bench" / "gpu_check.py")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "no CUDA device visible" in done.stdout and "skipped" in done.stdout
