"""Encoder debiasing: hand-checked geometry, erasure of a planted signal, and real checkpoints."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
import torch

from mtdebias.debias.apply import EncoderDebiaser, debias_checkpoint, debias_model
from mtdebias.debias.base import restore_norms
from mtdebias.debias.direction import gender_direction
from mtdebias.debias.hard import HardDebiasEraser, equalise, neutralise
from mtdebias.debias.inlp import INLPEraser
from mtdebias.debias.leace import LeaceEraser
from mtdebias.debias.words import load_definitional_pairs, load_word_list, select_word_tokens
from mtdebias.debias.linear import fit_linear
from mtdebias.debias.untie import encoder_embedding, encoder_shares_weights
from mtdebias.errors import ConfigError, InputError

SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"

# -- a corpus where professions and definitional words occur often enough to be single tokens --
PROFESSIONS = [("nurse", "Krankenpfleger"), ("doctor", "Arzt"), ("engineer", "Ingenieur"), ("teacher", "Lehrer"),
               ("mechanic", "Mechaniker"), ("baker", "Bäcker"), ("lawyer", "Anwalt"), ("cleaner", "Reiniger"),
               ("farmer", "Bauer"), ("driver", "Fahrer")]
GENDERED = [("she", "sie", "he", "er"), ("woman", "Frau", "man", "Mann"), ("mother", "Mutter", "father", "Vater"),
            ("girl", "Mädchen", "boy", "Junge"), ("sister", "Schwester", "brother", "Bruder"),
            ("daughter", "Tochter", "son", "Sohn"), ("wife", "Ehefrau", "husband", "Ehemann"),
            ("queen", "Königin", "king", "König")]
WORDS = [p for p, _ in PROFESSIONS] + ["construction worker"]


def gender_corpus(n: int = 500, seed: int = 0) -> tuple[list[str], list[str]]:
    rng = random.Random(seed)
    sources, targets = [], []
    for _ in range(n):
        prof, prof_de = rng.choice(PROFESSIONS)
        female, female_de, male, male_de = rng.choice(GENDERED)
        word, word_de = (female, female_de) if rng.random() < 0.5 else (male, male_de)
        if rng.random() < 0.5:
            sources.append(f"The {prof} met the {word}.")
            targets.append(f"Der {prof_de} traf {word_de}.")
        else:
            sources.append(f"The {word} is a {prof}.")
            targets.append(f"{word_de} ist {prof_de}.")
    return sources, targets


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory) -> Path:
    from toy import train_tiny_checkpoint

    torch.set_num_threads(1)
    return train_tiny_checkpoint(tmp_path_factory.mktemp("gender"), pairs=gender_corpus(), steps=60,
                                 vocab_size=150)


def _load(directory):
    from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

    return AutoModelForSeq2SeqLM.from_pretrained(directory).eval(), AutoTokenizer.from_pretrained(directory)


# -- word lists --------------------------------------------------------------------------------

@pytest.mark.shared
def test_profession_list_covers_every_winomt_profession():
    path = SHARED_DATA / "winomt" / "en.txt"
    if not path.is_file():
        pytest.skip("../shared/data/winomt is absent")
    winomt = {line.split("\t")[3].strip() for line in path.read_text(encoding="utf-8").splitlines() if line}
    shipped = set(load_word_list("professions"))
    assert len(winomt) > 100
    assert winomt <= shipped
    assert len(shipped) > len(winomt)  # and more besides


def test_definitional_pairs_ship_for_three_languages_and_bad_lines_name_the_line(tmp_path):
    for lang in ("en", "de", "fr"):
        assert len(load_definitional_pairs(lang)) >= 20
    assert ("she", "he") in load_definitional_pairs("en")
    bad = tmp_path / "pairs.tsv"
    bad.write_text("# comment\nshe\the\nwoman man\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_definitional_pairs(bad)
    assert err.value.line == 3 and "tab" in str(err.value)
    with pytest.raises(InputError, match="not found"):
        load_word_list(tmp_path / "missing.txt")


# -- geometry by hand --------------------------------------------------------------------------

def test_gender_direction_by_hand():
    # pairs f=(1,1) m=(1,-3) and f=(3,1) m=(2,1): half differences (0,2) and (0.5,0).
    # PCA of ±(0,2), ±(0.5,0): variances 2·4=8 along y, 2·0.25=0.5 along x → 8/8.5 = 0.941.
    # Oriented so that female − male projects positively: mean (f−m)·y = (4 + 0)/2 > 0 → +y.
    d = gender_direction(np.array([[1.0, 1.0], [3.0, 1.0]]), np.array([[1.0, -3.0], [2.0, 1.0]]))
    assert np.allclose(d.vector, [0.0, 1.0])
    assert d.variance_explained == pytest.approx(8 / 8.5)
    assert d.n_pairs == 2


def test_neutralise_and_keep_norm_by_hand():
    g = np.array([1.0, 0.0, 0.0])
    w = np.array([[3.0, 4.0, 0.0]])
    assert np.allclose(neutralise(w, g), [[0.0, 4.0, 0.0]])
    # keep_norm rescales (0,4,0) back to |w| = 5
    assert np.allclose(restore_norms(neutralise(w, g), w), [[0.0, 5.0, 0.0]])
    # the eraser finds g from pairs that differ only along x (f−m = (2,0,0) and (4,0,0))
    eraser = HardDebiasEraser().fit(np.array([[2.0, 1.0, 0.0], [3.0, 0.0, 1.0]]),
                                    np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 1.0]]))
    assert np.allclose(eraser.transform(w), [[0.0, 4.0, 0.0]])
    assert eraser.diagnostics()["variance_explained"] == pytest.approx(1.0)


def test_equalise_by_hand():
    g = np.array([1.0, 0.0, 0.0])
    a, b = np.array([[2.0, 1.0, 0.0]]), np.array([[-1.0, 3.0, 0.0]])
    # mean (0.5, 2, 0) → neutral part ν = (0, 2, 0). Gap along g = 3, so without keep_norm s = 1.5.
    fa, fb = equalise(a, b, g, keep_norm=False)
    assert np.allclose(fa, [[1.5, 2.0, 0.0]]) and np.allclose(fb, [[-1.5, 2.0, 0.0]])
    # keep_norm: r = (√5 + √10)/2 = 2.69917; s = √(r² − 4) = √3.28553 = 1.81260
    ka, kb = equalise(a, b, g, keep_norm=True)
    assert np.allclose(ka, [[1.81260, 2.0, 0.0]], atol=1e-5) and np.allclose(kb, [[-1.81260, 2.0, 0.0]], atol=1e-5)
    assert np.linalg.norm(ka) == pytest.approx((5 ** 0.5 + 10 ** 0.5) / 2)


# -- erasers on a planted linear signal --------------------------------------------------------

def _planted(n: int, d: int, rng: np.random.Generator, direction: np.ndarray):
    labels = rng.integers(0, 2, n)
    x = rng.normal(size=(n, d)) + np.outer(2.0 * labels - 1.0, 1.5 * direction) + 3.0  # offset: not centred
    return x, labels


@pytest.mark.parametrize("eraser", [LeaceEraser(), INLPEraser(n_iterations=8)], ids=["leace", "inlp"])
def test_erasers_leave_no_linear_signal_on_held_out_words(eraser):
    rng = np.random.default_rng(0)
    d = 24
    g = rng.normal(size=d)
    g /= np.linalg.norm(g)
    x_train, y_train = _planted(1500, d, rng, g)
    x_test, y_test = _planted(1500, d, rng, g)
    before = fit_linear(x_train, y_train).accuracy(x_test, y_test)
    eraser.fit(x_train[y_train == 1], x_train[y_train == 0])
    after = fit_linear(eraser.transform(x_train), y_train).accuracy(eraser.transform(x_test), y_test)
    assert before > 0.9
    assert abs(after - 0.5) < 0.05


def test_leace_zeroes_the_cross_covariance_and_svm_classifier_learns():
    rng = np.random.default_rng(1)
    g = np.eye(6)[0]
    x, y = _planted(400, 6, rng, g)
    svm = fit_linear(x, y, kind="svm")
    assert svm.accuracy(x, y) > 0.9
    erased = LeaceEraser().fit(x[y == 1], x[y == 0]).transform(x)
    cross = (erased - erased.mean(0)).T @ (y - y.mean()) / len(y)
    assert np.abs(cross).max() < 1e-10


# -- real checkpoints ---------------------------------------------------------------------------

def test_token_selection_single_first_and_all(checkpoint):
    _, tokenizer = _load(checkpoint)
    protect = set(tokenizer.convert_tokens_to_ids(["\u2581she"]))
    skip = {w.word: w for w in select_word_tokens(tokenizer, WORDS, "skip", protect)}
    assert skip["nurse"].status == "single" and skip["nurse"].ids == tokenizer.convert_tokens_to_ids(["\u2581nurse"])
    multi = skip["construction worker"]
    assert multi.status == "skipped-multi" and multi.ids == [] and len(multi.pieces) > 1
    first = {w.word: w for w in select_word_tokens(tokenizer, WORDS, "first")}["construction worker"]
    assert first.status == "multi-first" and len(first.ids) == 1
    every = {w.word: w for w in select_word_tokens(tokenizer, WORDS, "all")}["construction worker"]
    assert every.status == "multi-all" and len(every.ids) > 1
    # the lone word-boundary piece "▁" is never a row to change
    assert tokenizer.convert_tokens_to_ids(["\u2581"])[0] not in every.ids


def test_hard_debias_checkpoint_neutralises_only_professions(checkpoint, tmp_path):
    from mtdebias.translators.hf import HFTranslator

    out = tmp_path / "hard"
    report = debias_checkpoint(checkpoint, out, "hard", words=WORDS)
    original, tokenizer = _load(checkpoint)
    debiased, _ = _load(out)
    assert report.untied and report.decoder_unchanged
    assert encoder_shares_weights(original) and not encoder_shares_weights(debiased)

    # the saved file agrees with the report and every neutralised row is orthogonal to g
    assert len(report.pairs_used) == len(GENDERED)  # every corpus pair is one token ("he" as "▁" + "he")
    g = gender_direction(*_pair_rows(debiased, tokenizer, report.pairs_used)).vector
    table = encoder_embedding(debiased).weight.detach().double().numpy()
    changed = [t["id"] for t in report.tokens_changed]
    assert len(changed) == len(PROFESSIONS)  # ten one-token professions, the two-word term skipped
    rows = table[changed]
    assert np.all(np.abs(rows @ g) < 1e-6 * np.linalg.norm(rows, axis=1))
    # before, they were not (a trained table has some gender component everywhere)
    assert max(abs(t["relative_projection_before"]) for t in report.tokens_changed) > 1e-3
    # norms kept (float32 storage)
    old = encoder_embedding(original).weight.detach().double().numpy()
    assert np.allclose(np.linalg.norm(rows, axis=1), np.linalg.norm(old[changed], axis=1), rtol=1e-6)

    # every other encoder row and all decoder-side weights are bit-identical
    untouched = np.setdiff1d(np.arange(len(table)), changed)
    assert np.array_equal(encoder_embedding(debiased).weight.detach().numpy()[untouched],
                          encoder_embedding(original).weight.detach().numpy()[untouched])
    assert torch.equal(debiased.get_decoder().embed_tokens.weight, original.get_decoder().embed_tokens.weight)
    assert torch.equal(debiased.get_output_embeddings().weight, original.get_output_embeddings().weight)
    before_sd, after_sd = original.state_dict(), debiased.state_dict()
    for name, tensor in before_sd.items():
        if "embed_tokens" not in name and "shared" not in name:
            assert torch.equal(tensor, after_sd[name]), name

    # it loads and translates; a sentence without changed tokens translates exactly as before
    neutral = ["The woman met the man.", "The girl is a boy."]
    assert HFTranslator(out).translate(neutral, beam=2) == HFTranslator(checkpoint).translate(neutral, beam=2)
    assert all(HFTranslator(out).translate(["The nurse met the king."], beam=2))

    assert (out / "trainer_state.json").read_bytes() == (checkpoint / "trainer_state.json").read_bytes()
    saved = json.loads((out / "debias_report.json").read_text())
    assert saved["counts"]["rows_neutralised"] == len(PROFESSIONS)
    assert saved["signature"].startswith("debias.hard|") and "model:" in saved["signature"]
    assert 0 < saved["direction"]["variance_explained"] <= 1


def test_equalised_pairs_are_symmetric_about_the_neutral_subspace(checkpoint):
    model, tokenizer = _load(checkpoint)
    pairs = [(f, m) for f, _, m, _ in GENDERED]
    g = gender_direction(*_pair_rows(model, tokenizer, pairs)).vector  # the direction equalised along
    report = debias_model(model, tokenizer, "hard", WORDS, equalise=True, pairs=pairs)
    table = encoder_embedding(model).weight.detach().double().numpy()
    for entry in report.equalised:
        a, b = table[entry["ids"][0]], table[entry["ids"][1]]
        mid = (a + b) / 2
        assert abs(mid @ g) < 1e-5 * np.linalg.norm(mid)  # the pair's mean lies in the neutral subspace
        diff = a - b
        assert np.linalg.norm(diff - (diff @ g) * g) < 1e-5 * np.linalg.norm(diff)  # they differ only along g
        assert np.linalg.norm(a) == pytest.approx(np.linalg.norm(b), rel=1e-5)
        old_f, old_m = entry["projection_before"]
        assert np.sign(a @ g - b @ g) == np.sign(old_f - old_m)  # each word stays on its own side
    assert len(report.equalised) == len(GENDERED)
    # with every pair equalised, the pairs now differ only along g: their direction is g itself
    assert abs(gender_direction(*_pair_rows(model, tokenizer, pairs)).vector @ g) == pytest.approx(1.0, abs=1e-6)


def _pair_rows(model, tokenizer, pairs):
    table = encoder_embedding(model).weight.detach().double().numpy()
    f_ids = [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(f))[-1] for f, _ in pairs]
    m_ids = [tokenizer.convert_tokens_to_ids(tokenizer.tokenize(m))[-1] for _, m in pairs]
    return table[f_ids], table[m_ids]


@pytest.mark.parametrize("method", ["inlp", "leace"])
def test_classifier_based_methods_change_only_selected_encoder_rows(checkpoint, method):
    model, tokenizer = _load(checkpoint)
    before = encoder_embedding(model).weight.detach().clone()
    decoder = model.get_decoder().embed_tokens.weight.detach().clone()
    report = debias_model(model, tokenizer, method, WORDS, multi_token="first")
    after = encoder_embedding(model).weight.detach()
    changed = sorted(t["id"] for t in report.tokens_changed if t["changed"])
    differs = sorted(torch.nonzero((after != before).any(dim=1)).flatten().tolist())
    assert differs == changed and len(changed) == len(PROFESSIONS) + 1  # + the first piece of the two-word term
    assert torch.equal(model.get_decoder().embed_tokens.weight, decoder)
    assert report.eraser["method"] == method
    assert {w["status"] for w in report.words} == {"single", "multi-first"}


def test_every_epoch_keeps_the_projection_at_zero_while_training(checkpoint, tmp_path):
    from mtdebias.models.tokenizer import PAD_ID

    model, tokenizer = _load(checkpoint)
    model.train()
    debiaser = EncoderDebiaser("hard", WORDS, when="every_epoch")
    assert debiaser.applies_at("init") and debiaser.applies_at("save") and not debiaser.applies_at("end")
    assert debiaser.prepare(model) is True and debiaser.prepare(model) is False
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)  # built after untying
    sources, targets = gender_corpus(48, seed=3)
    batch = tokenizer(sources, text_target=targets, return_tensors="pt", padding=True)
    batch["labels"][batch["labels"] == PAD_ID] = -100
    debiaser.apply(model, tokenizer)
    for _ in range(3):
        for _ in range(4):
            loss = model(**batch).loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        report = debiaser.apply(model, tokenizer)
        # training moved the neutralised rows off the neutral subspace again; apply put them back
        assert max(abs(t["relative_projection_before"]) for t in report.tokens_changed) > 1e-4
        assert report.max_abs_relative_projection_after < 1e-6
        assert not report.untied and report.decoder_unchanged
    assert len(debiaser.reports) == 4
    written = debiaser.write_last_report(tmp_path)
    assert json.loads(written.read_text())["tokens_changed"] == debiaser.reports[-1].to_dict()["tokens_changed"]


def test_tiny_m2m100_checkpoint(checkpoint, tmp_path):
    from transformers import AutoTokenizer, M2M100Config, M2M100ForConditionalGeneration

    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    config = M2M100Config(vocab_size=len(tokenizer), d_model=32, encoder_layers=1, decoder_layers=1,
                          encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=64,
                          decoder_ffn_dim=64, max_position_embeddings=64, pad_token_id=tokenizer.pad_token_id,
                          eos_token_id=tokenizer.eos_token_id, decoder_start_token_id=tokenizer.eos_token_id,
                          bos_token_id=tokenizer.eos_token_id)
    torch.manual_seed(0)
    source = tmp_path / "m2m"
    M2M100ForConditionalGeneration(config).save_pretrained(source)
    tokenizer.save_pretrained(source)
    report = debias_checkpoint(source, tmp_path / "m2m-debiased", "hard", words=WORDS)
    original, _ = _load(source)
    debiased, _ = _load(tmp_path / "m2m-debiased")
    assert report.untied and report.decoder_unchanged
    assert torch.equal(debiased.get_decoder().embed_tokens.weight, original.get_decoder().embed_tokens.weight)
    assert torch.equal(debiased.get_output_embeddings().weight, original.get_output_embeddings().weight)
    assert torch.equal(debiased.get_input_embeddings().weight, encoder_embedding(debiased).weight)
    ids = [t["id"] for t in report.tokens_changed]
    assert not torch.equal(encoder_embedding(debiased).weight[ids], encoder_embedding(original).weight[ids])
    inputs = tokenizer(["The nurse met the king."], return_tensors="pt")
    assert debiased.generate(**inputs, max_new_tokens=4).shape[0] == 1


def test_command_with_dev_set_and_clear_errors(checkpoint, tmp_path, capsys):
    from mtdebias.cli import main

    src, ref = gender_corpus(12, seed=9)
    (tmp_path / "dev.en").write_text("\n".join(src) + "\n", encoding="utf-8")
    (tmp_path / "dev.de").write_text("\n".join(ref) + "\n", encoding="utf-8")
    out = tmp_path / "cli"
    code = main(["debias", str(checkpoint), "--out", str(out), "--method", "hard", "--equalise",
                 "--dev-src", str(tmp_path / "dev.en"), "--dev-ref", str(tmp_path / "dev.de"), "--beam", "1"])
    assert code == 0
    report = json.loads((out / "debias_report.json").read_text())
    assert set(report["dev"]["before"]) == {"bleu", "chrf"}
    assert report["dev"]["delta"]["bleu"] == pytest.approx(report["dev"]["after"]["bleu"] - report["dev"]["before"]["bleu"])
    assert "BLEU" in capsys.readouterr().out
    # an existing output directory is refused, a missing word file named
    assert main(["debias", str(checkpoint), "--out", str(out)]) == 2
    assert main(["debias", str(checkpoint), "--out", str(tmp_path / "x"), "--words", str(tmp_path / "none.txt")]) == 2
    assert "none.txt" in capsys.readouterr().err
    with pytest.raises(InputError, match="equalise"):
        debias_checkpoint(checkpoint, tmp_path / "y", "leace", words=WORDS, equalise=True)


def test_a_value_an_eraser_refuses_fails_before_any_model_loads(tmp_path, capsys):
    """Option values are checked by building the eraser before the checkpoint is read: a bad
    INLP classifier (a plain ValueError inside the eraser) is a clean error naming where it was
    set, even with a checkpoint path that does not exist."""
    from mtdebias.cli import main
    from mtdebias.debias.apply import check_eraser_options

    with pytest.raises(InputError, match="debias.options: the inlp.v1 eraser refuses .*unknown classifier 'forest'"):
        check_eraser_options("inlp", {"classifier": "forest"}, where="debias.options")
    check_eraser_options("inlp", {"classifier": "svm", "n_iterations": 3})  # good values pass
    assert main(["debias", str(tmp_path / "no-such-checkpoint"), "--out", str(tmp_path / "x"), "--method", "inlp",
                 "--option", "classifier=forest"]) == 2
    err = capsys.readouterr().err
    assert "--option: the inlp.v1 eraser refuses" in err and "Traceback" not in err and "no-such" not in err


def test_eraser_settings_from_a_recipe_and_the_command_line(checkpoint, tmp_path, capsys):
    """INLP's iterations and LEACE's tolerance can be set ([debias.options], --option) and reach
    the eraser (they are in the report's signature); a misspelt one is refused before any work."""
    import json as _json

    from mtdebias.cli import main
    from mtdebias.experiments.pipeline import check_recipe
    from mtdebias.recipe import parse_recipe

    out = tmp_path / "inlp"
    assert main(["debias", str(checkpoint), "--out", str(out), "--method", "inlp", "--option", "n_iterations=2"]) == 0
    report = _json.loads((out / "debias_report.json").read_text())
    assert "eraser.n_iterations=2" in report["signature"]
    assert main(["debias", str(checkpoint), "--out", str(tmp_path / "x"), "--method", "inlp",
                 "--option", "n_iteration=2"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'n_iterations'" in err and not (tmp_path / "x").exists()
    base = {"run": {"name": "r"}, "data": {"synth": True, "train_src": str(tmp_path / "t.en"),
                                           "train_tgt": str(tmp_path / "t.de"), "src_lang": "en", "tgt_lang": "de"}}
    recipe = parse_recipe({**base, "debias": {"method": "leace", "options": {"rank_tolerance": 1e-8}}}, base=tmp_path)
    assert recipe.debias.options == {"rank_tolerance": 1e-8}
    check_recipe(recipe)
    bad = parse_recipe({**base, "debias": {"method": "leace", "options": {"tolerance": 1e-8}}}, base=tmp_path)
    with pytest.raises(ConfigError, match="debias.options 'tolerance'.*did you mean 'rank_tolerance'"):
        check_recipe(bad)
    with pytest.raises(InputError, match="equalise is part of hard-debiasing"):
        debias_checkpoint(checkpoint, tmp_path / "eq", "leace", words=WORDS, equalise=True)
