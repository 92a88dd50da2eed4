"""The fairseq backend on a tiny fairseq model trained for real from SwitchEntity shards.

The module fixture annotates a small en→de corpus with names, writes per-epoch fairseq shards
with ``mtdebias augment --format fairseq``, trains a 1-layer transformer with fairseq-train
on them (300 updates, ~10 s) and loads it through :class:`FairseqTranslator`. Skipped whole
when fairseq is not installed (``make install-fairseq``).
"""

from __future__ import annotations

import itertools
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("fairseq", reason="fairseq not installed (make install-fairseq)")

import torch  # noqa: E402

from mtdebias.align.seed_corpus import seed_pairs  # noqa: E402
from mtdebias.augment import SwitchEntity, annotate_corpus  # noqa: E402
from mtdebias.augment.fairseq_shards import write_fairseq_shards  # noqa: E402
from mtdebias.cli import main as cli_main  # noqa: E402
from mtdebias.errors import InputError  # noqa: E402
from mtdebias.models.subword import SentencePieceCodec  # noqa: E402
from toy import COLOURS, VERBS, toy_corpus  # noqa: E402

pytestmark = pytest.mark.fairseq

GENDERS = {"peter": "male", "thomas": "male", "david": "male", "paul": "male",
           "anna": "female", "maria": "female", "laura": "female", "julia": "female"}


def gender_of(name):
    return GENDERS.get(name.split()[0].lower(), "unknown")


def name_corpus() -> tuple[list[str], list[str]]:
    """Sentences with first names ("Anna sleeps." / "Anna schläft.") and the toy animals."""
    sources, targets = toy_corpus(300)
    for name, (verb, verb_de) in itertools.product(sorted(GENDERS), VERBS):
        sources.append(f"{name.capitalize()} {verb}.")
        targets.append(f"{name.capitalize()} {verb_de}.")
    for name, (colour, farbe) in itertools.product(sorted(GENDERS), COLOURS[:4]):
        sources.append(f"{name.capitalize()} sees the {colour} dog.")
        targets.append(f"{name.capitalize()} sieht den {farbe}n Hund.")
    return sources, targets


def _spm(folder: Path, lines: list[str]) -> Path:
    import sentencepiece as spm

    (folder / "spm.txt").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    spm.SentencePieceTrainer.train(input=str(folder / "spm.txt"), model_prefix=str(folder / "spm"),
                                   vocab_size=120, model_type="unigram", character_coverage=1.0,
                                   hard_vocab_limit=False, minloglevel=2, num_threads=1, seed_sentencepiece_size=10000)
    return folder / "spm.model"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("fairseq")
    sources, targets = name_corpus()
    (root / "train.en").write_text("".join(s + "\n" for s in sources), encoding="utf-8")
    (root / "train.de").write_text("".join(t + "\n" for t in targets), encoding="utf-8")
    (root / "valid.en").write_text("".join(s + "\n" for s in sources[:40]), encoding="utf-8")
    (root / "valid.de").write_text("".join(t + "\n" for t in targets[:40]), encoding="utf-8")
    extra = seed_pairs("de", 300)
    annotate_corpus(root / "train.en", root / "train.de", root / "annotated", "en", "de", gender_of=gender_of,
                    extra_sources=extra[0], extra_targets=extra[1])
    spm_model = _spm(root, sources + targets)
    return {"root": root, "annotated": root / "annotated", "spm": spm_model}


def _augment(corpus, out: Path, epochs: str = "1-3", seed: int = 0, capsys=None) -> str:
    code = cli_main(["augment", str(corpus["annotated"]), "--format", "fairseq", "--epochs", epochs,
                     "--seed", str(seed), "--out", str(out), "--spm", str(corpus["spm"]),
                     "--valid-src", str(corpus["root"] / "valid.en"), "--valid-tgt", str(corpus["root"] / "valid.de")])
    assert code == 0
    return capsys.readouterr().out.strip().splitlines()[-1] if capsys else ""


@pytest.fixture(scope="module")
def shards(corpus, tmp_path_factory):
    out = tmp_path_factory.mktemp("shards") / "bin"
    switch = SwitchEntity(corpus["annotated"], seed=0)
    plan = write_fairseq_shards(switch, corpus["annotated"], [1, 2, 3], out, SentencePieceCodec(corpus["spm"]),
                                src_lang="en", tgt_lang="de",
                                valid=((corpus["root"] / "valid.en").read_text().splitlines(),
                                       (corpus["root"] / "valid.de").read_text().splitlines()))
    return plan


@pytest.fixture(scope="module")
def trained(shards, corpus):
    """fairseq-train, 300 updates of a 1-layer transformer cycling through the epoch shards."""
    save = shards.out.parent / "checkpoints"
    command = [sys.executable, "-m", "fairseq_cli.train", shards.data_argument(), "--arch", "transformer",
               "--encoder-layers", "1", "--decoder-layers", "1", "--encoder-embed-dim", "32",
               "--decoder-embed-dim", "32", "--encoder-ffn-embed-dim", "64", "--decoder-ffn-embed-dim", "64",
               "--encoder-attention-heads", "2", "--decoder-attention-heads", "2", "--share-all-embeddings",
               "--dropout", "0.0", "--optimizer", "adam", "--lr", "3e-3", "--lr-scheduler", "inverse_sqrt",
               "--warmup-updates", "30", "--max-tokens", "1024", "--max-update", "300", "--cpu",
               "--no-progress-bar", "--save-dir", str(save), "--seed", "1", "--criterion", "cross_entropy",
               "--num-workers", "0", "--save-interval-updates", "100", "--no-epoch-checkpoints",
               "--no-last-checkpoints"]
    result = subprocess.run(command, capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert result.returncode == 0, result.stderr[-3000:]
    spec = f'checkpoints = "{save}"\ndata = "{shards.shard(1)}"\nsentencepiece = "{corpus["spm"]}"\n'
    (save / "fairseq.toml").write_text(spec, encoding="utf-8")
    return save


@pytest.fixture(scope="module")
def translator(trained):
    from mtdebias.translators.load import load_translator

    return load_translator(trained)


def test_bad_augment_input_is_refused_early(corpus, tmp_path, capsys):
    assert cli_main(["augment", str(corpus["annotated"]), "--format", "fairseq", "--epochs", "1-2",
                     "--out", str(tmp_path / "x")]) != 0
    assert "--spm MODEL or --bpe-codes CODES" in capsys.readouterr().err
    assert cli_main(["augment", str(corpus["annotated"]), "--format", "fairseq", "--epochs", "1-2",
                     "--out", str(tmp_path / "x"), "--spm", str(tmp_path / "none.model")]) != 0
    assert "none.model: SentencePiece model not found" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_shards_differ_by_epoch_and_repeat_for_the_same_seed(corpus, shards, tmp_path, capsys):
    argument = _augment(corpus, tmp_path / "again", capsys=capsys)
    assert argument == ":".join(str(tmp_path / "again" / f"epoch{e}") for e in (1, 2, 3))
    again = tmp_path / "again"
    for epoch in (1, 2, 3):  # the same seed: byte-identical binarised data and dictionaries
        for name in ("train.en-de.en.bin", "train.en-de.de.bin", "train.en-de.de.idx", "dict.en.txt", "dict.de.txt"):
            assert (shards.shard(epoch) / name).read_bytes() == (again / f"epoch{epoch}" / name).read_bytes(), name
    # different epochs: different switched names, so different binarised targets
    first = (shards.shard(1) / "train.en-de.de.bin").read_bytes()
    assert first != (shards.shard(2) / "train.en-de.de.bin").read_bytes()
    assert (shards.shard(2) / "train.en-de.de.bin").read_bytes() != (shards.shard(3) / "train.en-de.de.bin").read_bytes()
    # another seed: another epoch 1
    _augment(corpus, tmp_path / "seed7", epochs="1", seed=7, capsys=capsys)
    assert first != (tmp_path / "seed7" / "epoch1" / "train.en-de.de.bin").read_bytes()
    # the shared dictionary is the SentencePiece vocabulary: one file, the same in every shard
    dictionary = (shards.out / "dict.txt").read_text(encoding="utf-8")
    assert all((shards.shard(e) / f"dict.{lang}.txt").read_text(encoding="utf-8") == dictionary
               for e in (1, 2, 3) for lang in ("en", "de"))
    # a rerun keeps up-to-date shards instead of rewriting them
    stamp = (again / "epoch2" / "shard.json").stat().st_mtime_ns
    _augment(corpus, tmp_path / "again", epochs="2", capsys=capsys)
    assert (again / "epoch2" / "shard.json").stat().st_mtime_ns == stamp


def test_shard_text_is_the_switched_corpus(corpus, shards):
    """Decode epoch 2's binarised targets and compare with SwitchEntity's epoch-2 corpus."""
    from fairseq.data import Dictionary, data_utils

    dictionary = Dictionary.load(str(shards.shard(2) / "dict.de.txt"))
    dataset = data_utils.load_indexed_dataset(str(shards.shard(2) / "train.en-de.de"), dictionary)
    codec = SentencePieceCodec(corpus["spm"])
    _, targets = SwitchEntity(corpus["annotated"], seed=0).pairs(2)
    decoded = [codec.decode([dictionary[i] for i in dataset[k][:-1].tolist()]) for k in range(len(dataset))]
    assert decoded == targets
    assert any(t != o for t, o in zip(targets, (corpus["root"] / "train.de").read_text().splitlines()))


def test_translate_beam_on_the_trained_model(translator):
    out = translator.translate(["The red dog sleeps.", "The white cow sings."], beam=4)
    assert out == ["Der rote Hund schläft.", "Die weiße Kuh singt."]
    assert translator.signature().startswith("fairseq:")


def test_score_matches_fairseqs_own_scorer(translator):
    """Our teacher-forced log-probs equal fairseq's SequenceScorer (what fairseq-generate
    --score-reference uses) on a batch collated by fairseq's own LanguagePairDataset."""
    from fairseq.data import LanguagePairDataset
    from fairseq.sequence_scorer import SequenceScorer

    sources = ["The red dog sleeps.", "Anna sees the blue dog.", "The big fish waits."]
    targets = ["Der rote Hund schläft.", "Anna sieht den blauen Hund.", "Die alte Maus läuft."]
    ours = translator.score(sources, targets)
    src = [translator._source_ids(s) for s in sources]
    tgt = [translator._target_ids(t) for t in targets]
    dataset = LanguagePairDataset(src, [len(s) for s in src], translator.src_dict, tgt, [len(t) for t in tgt],
                                  translator.tgt_dict)
    batch = dataset.collater([dataset[i] for i in range(len(src))])
    hypos = SequenceScorer(translator.tgt_dict).generate([translator.model], batch)
    for row, index in enumerate(batch["id"].tolist()):
        theirs = hypos[row][0]["positional_scores"].tolist()
        mine = ours[index]
        assert len(mine.tokens) == len(theirs) == len(tgt[index])  # EOS included
        assert mine.pieces[-1] == "</s>"
        assert mine.tokens == pytest.approx(theirs, abs=1e-4)
        assert mine.total == pytest.approx(sum(theirs), abs=1e-3)
    # a wrong target is less likely than the right one
    assert ours[0].total > translator.score(sources[:1], ["Die weiße Kuh singt."])[0].total


def _stepwise_probs(translator, source: str, ids: torch.Tensor, temperature: float) -> list[torch.Tensor]:
    """Full next-token distributions along ``ids`` (teacher forcing), with the generator's step
    rules: pad never, EOS not at step 0 (min_len 1)."""
    d = translator.tgt_dict
    tokens, lengths = translator._source_batch([translator._source_ids(source)])
    previous = torch.cat([torch.tensor([d.eos()]), ids[:-1]]).unsqueeze(0)
    with torch.inference_mode():
        logits = translator.model(tokens, lengths, previous)[0][0].float() / temperature
    probs = torch.softmax(logits, dim=-1)
    probs[:, d.pad()] = 0.0
    probs[0, d.eos()] = 0.0
    return list(probs)


@pytest.mark.parametrize("temperature", [1.0, 2.0])
def test_epsilon_samples_never_contain_a_token_below_epsilon(translator, temperature):
    source, epsilon = "Anna sees the red dog.", 0.05
    samples = translator.sample_ids([source], n=64, epsilon=epsilon, temperature=temperature, seed=3)[0]
    assert len(samples) == 64
    checked = 0
    for ids in samples:
        if len(ids) > translator.max_len_b:  # EOS forced at the length limit: not a draw
            continue
        for step, p in enumerate(_stepwise_probs(translator, source, ids, temperature)):
            chosen = float(p[ids[step]])
            # kept: p ≥ ε, or the step's most probable token (kept so a flat step has a candidate)
            assert chosen >= epsilon - 1e-5 or chosen >= float(p.max()) - 1e-6, (step, chosen)
            checked += 1
    assert checked > 64
    if temperature == 2.0:
        # the control: without the ε cut, samples at T=2 do contain tokens below ε
        plain = translator.sample_ids([source], n=64, epsilon=0.0, temperature=temperature, seed=3)[0]
        below = sum(float(p[ids[step]]) < epsilon
                    for ids in plain for step, p in enumerate(_stepwise_probs(translator, source, ids, temperature)))
        assert below > 0
        assert len({tuple(s.tolist()) for s in samples}) > 1  # really sampling, not one path


def test_sampling_is_reproducible_and_independent_of_the_batch(translator):
    sources = ["The red dog sleeps.", "Maria waits."]
    first = translator.sample(sources, n=16, epsilon=0.02, temperature=1.5, seed=5)
    assert first == translator.sample(sources, n=16, epsilon=0.02, temperature=1.5, seed=5)
    assert first[1] == translator.sample(sources[1:], n=16, epsilon=0.02, temperature=1.5, seed=5)[0]
    assert first != translator.sample(sources, n=16, epsilon=0.02, temperature=1.5, seed=6)
    state = torch.random.get_rng_state()
    translator.sample(sources[:1], n=4, seed=1)
    assert torch.equal(state, torch.random.get_rng_state())  # the global RNG is left alone


def test_loaders_find_the_parts(trained, shards, corpus, tmp_path):
    from mtdebias.translators.source import find_spec, list_checkpoints
    from mtdebias.translators.fairseq import FairseqTranslator

    checkpoints = list_checkpoints(trained)
    assert [p.name.split("_")[-1] for p in checkpoints] == ["100.pt", "200.pt", "300.pt"]
    spec = find_spec(trained / "fairseq.toml")
    assert spec.checkpoints == checkpoints and spec.sentencepiece == corpus["spm"]
    # a bare .pt beside its fairseq.toml gets the same parts
    assert find_spec(checkpoints[-1]).data == shards.shard(1)
    bad = tmp_path / "bad.toml"
    bad.write_text(f'checkpoints = "{trained}"\nsentencepeice = "x"\n', encoding="utf-8")
    with pytest.raises(InputError, match="unknown key"):
        find_spec(bad)
    with pytest.raises(InputError, match="no subword model"):
        FairseqTranslator(checkpoints[-1], data=shards.shard(1))
    with pytest.raises(InputError, match="SentencePiece model not found"):
        FairseqTranslator(checkpoints[-1], data=shards.shard(1), sentencepiece=tmp_path / "none.model")


def test_eval_cli_scores_every_checkpoint_into_a_store(trained, tmp_path):
    """`mtdebias eval SAVE_DIR --suite`: a probe per fairseq checkpoint, stored with signatures."""
    from mtdebias.store.runs import RunStore

    src = tmp_path / "src.txt"
    ref = tmp_path / "ref.txt"
    src.write_text("The red dog sleeps.\nThe white cow sings.\nMaria waits.\n", encoding="utf-8")
    ref.write_text("Der rote Hund schläft.\nDie weiße Kuh singt.\nMaria wartet.\n", encoding="utf-8")
    suite = tmp_path / "suite.toml"
    suite.write_text(f'[suite]\nname = "fs"\n\n[[probe]]\ntype = "quality"\nlabel = "quality"\nsrc = "{src}"\nref = "{ref}"\n',
                     encoding="utf-8")
    assert cli_main(["eval", str(trained), "--suite", str(suite)]) == 0
    store = RunStore(trained.parent / f"{trained.name}.mtdebias")
    names = sorted(p.name for p in (store.dir / "eval").iterdir())
    # the numbered checkpoints (checkpoint_best.pt copies one of them)
    assert names == sorted(p.name for p in trained.glob("checkpoint_*_*.pt")) and len(names) == 3
    rows = store.results(trained / names[-1])
    bleu = [r for r in rows if r["metric"].lower().startswith("bleu")]
    assert bleu and bleu[0]["value"] > 50 and "fairseq:" in bleu[0]["signature"]
    # stored results are skipped on a rerun
    assert cli_main(["eval", str(trained), "--suite", str(suite)]) == 0


def test_weights_only_loading_refuses_foreign_objects(trained, tmp_path):
    """A checkpoint carrying an object outside fairseq's config classes is refused by name."""
    from mtdebias.errors import CheckpointError
    from mtdebias.models.fairseq_env import trusted_fairseq_globals

    path = sorted(trained.glob("checkpoint_*_300.pt"))[0]
    with trusted_fairseq_globals(path):
        state = torch.load(path, map_location="cpu")
    # older fairseq pickled its configuration as OmegaConf objects: those load too
    from omegaconf import OmegaConf

    from mtdebias.translators.fairseq import FairseqTranslator

    old_style = dict(state, cfg=OmegaConf.create(state["cfg"], flags={"allow_objects": True}))
    torch.save(old_style, tmp_path / "old.pt")
    assert "omegaconf.dictconfig.DictConfig" in torch.serialization.get_unsafe_globals_in_checkpoint(
        str(tmp_path / "old.pt"))
    from mtdebias.translators.source import find_spec

    spec = find_spec(trained)
    old = FairseqTranslator(tmp_path / "old.pt", data=spec.data, sentencepiece=spec.sentencepiece)
    assert old.translate(["The red dog sleeps."]) == ["Der rote Hund schläft."]

    state["extra"] = math.prod  # a callable: what a malicious pickle would smuggle in
    bad = tmp_path / "checkpoint1.pt"
    torch.save(state, bad)
    with pytest.raises(CheckpointError, match="math.prod"):
        with trusted_fairseq_globals(bad):
            pass


def test_moses_bpe_codec_and_shards(corpus, tmp_path):
    """subword-nmt codes learnt on Moses-tokenised text: pieces carry @@, decoding restores the
    sentence, and shards binarised with them decode back to the switched corpus."""
    import io

    pytest.importorskip("sacremoses")
    learn_bpe = pytest.importorskip("subword_nmt.learn_bpe")
    from fairseq.data import Dictionary, data_utils

    from mtdebias.models.subword import MosesBpeCodec

    sources, targets = name_corpus()
    from sacremoses import MosesTokenizer

    tokenised = [" ".join(MosesTokenizer(lang=lang).tokenize(line, escape=True))
                 for lines, lang in ((sources, "en"), (targets, "de")) for line in lines]
    codes = io.StringIO()
    learn_bpe.learn_bpe(io.StringIO("\n".join(tokenised) + "\n"), codes, 60)
    (tmp_path / "bpecodes").write_text(codes.getvalue(), encoding="utf-8")
    codec = MosesBpeCodec(tmp_path / "bpecodes")
    pieces = codec.encode("Anna's red dog sleeps.", "en")
    assert any(p.endswith("@@") for p in pieces)
    assert "&apos;s" in " ".join(pieces).replace("@@ ", "").split()  # tokenizer.perl's escaping
    assert codec.decode(pieces, "en") == "Anna's red dog sleeps."
    assert codec.decode(codec.encode("Die weiße Kuh singt.", "de"), "de") == "Die weiße Kuh singt."

    switch = SwitchEntity(corpus["annotated"], seed=0)
    plan = write_fairseq_shards(switch, corpus["annotated"], [2], tmp_path / "bin", codec, src_lang="en",
                                tgt_lang="de")
    dictionary = Dictionary.load(str(plan.shard(2) / "dict.de.txt"))
    dataset = data_utils.load_indexed_dataset(str(plan.shard(2) / "train.en-de.de"), dictionary)
    _, switched = switch.pairs(2)
    decoded = [codec.decode([dictionary[i] for i in dataset[k][:-1].tolist()], "de") for k in range(len(dataset))]
    assert decoded == switched  # no <unk>: candidate names are in the shared dictionary


def test_translate_cli_takes_a_fairseq_model(trained, monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("The red dog sleeps.\nThe white cow sings.\n"))
    assert cli_main(["translate", str(trained), "--beam", "3"]) == 0
    assert capsys.readouterr().out.splitlines() == ["Der rote Hund schläft.", "Die weiße Kuh singt."]
    monkeypatch.setattr(sys, "stdin", io.StringIO("The red dog sleeps.\n"))
    assert cli_main(["translate", str(trained), "--tgt-lang", "de"]) != 0  # an M2M100-only option
    assert "fairseq.toml" in capsys.readouterr().err


@pytest.mark.slow
def test_shell_example_runs_end_to_end_on_a_slice(tmp_path):
    """recipes/fairseq_iwslt_en_fr.sh on 600 synthetic en→fr pairs, 2 epochs of a tiny model,
    a quality-only suite: annotate → shards → fairseq-train → eval → report."""
    from mtdebias.synth import generate

    data = tmp_path / "data"
    generate("fr", size=600, seed=3, dev_size=20, test_size=20).write(data)
    suite = tmp_path / "suite.toml"
    suite.write_text('[suite]\nname = "q"\n\n[[probe]]\ntype = "quality"\nlang = "{tgt_lang}"\n'
                     'src = "{data_dir}/test.{src_lang}"\nref = "{data_dir}/test.{tgt_lang}"\nbeam = 2\n',
                     encoding="utf-8")
    env = {**os.environ, "DATA": str(data), "WORK": str(tmp_path / "work"), "EPOCHS": "2", "VOCAB": "300",
           "SUITE": str(suite), "PYTHON": sys.executable, "OMP_NUM_THREADS": "1",
           "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '')}",
           "FAIRSEQ_ARCH": "--arch transformer --encoder-layers 1 --decoder-layers 1 --encoder-embed-dim 32 "
                           "--decoder-embed-dim 32 --encoder-ffn-embed-dim 64 --decoder-ffn-embed-dim 64 "
                           "--encoder-attention-heads 2 --decoder-attention-heads 2 --share-all-embeddings",
           "FAIRSEQ_TRAIN": "--optimizer adam --lr 3e-3 --max-tokens 2048 --cpu --num-workers 0"}
    script = Path(__file__).resolve().parents[1] / "recipes" / "fairseq_iwslt_en_fr.sh"
    result = subprocess.run(["bash", str(script)], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    work = tmp_path / "work"
    assert sorted(p.name for p in (work / "eval-run" / "eval").iterdir()) == ["checkpoint1.pt", "checkpoint2.pt"]
    assert (work / "report.html").is_file()
    assert "2 scored, 0 already stored, 0 failed" in result.stdout
