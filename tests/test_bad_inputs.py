"""Bad input on the command line: exit code 2, one message that names the file or key and says
what to do, and nothing half-written left behind. One row per case a new user hit (issue 15)."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from mtdebias.cli import main
from toy import toy_corpus

ROOT = Path(__file__).resolve().parents[1]

RECIPE = """
[run]
name = "bad"
dir = "{ws}/runs"
[data]
train_src = "train.en"
train_tgt = "train.de"
src_lang = "en"
tgt_lang = "de"
[tokenizer]
vocab_size = 150
[train]
epochs = 1
max_tokens = 512
validate_bleu = false
"""

SUITE_TYPO = """
[[probe]]
type = "quality"
src = "{ws}/train.en"
ref = "{ws}/train.de"
beem = 3
"""


@pytest.fixture(scope="module")
def ws(tmp_path_factory, tiny_checkpoint) -> Path:
    """A workspace: a corpus, a blank corpus, a recipe, a suite with a typo, an annotation
    directory, a run folder without checkpoints, and a trained checkpoint."""
    ws = tmp_path_factory.mktemp("ws")
    src, tgt = toy_corpus(60, seed=2)
    (ws / "train.en").write_text("\n".join(src) + "\n")
    (ws / "train.de").write_text("\n".join(tgt) + "\n")
    (ws / "blank.en").write_text("\n  \n\n")
    (ws / "blank.de").write_text("\n\n \n")
    (ws / "empty.en").write_text("")
    (ws / "empty.de").write_text("")
    (ws / "recipe.toml").write_text(RECIPE.replace("{ws}", str(ws)))
    (ws / "blank.toml").write_text(RECIPE.replace("{ws}", str(ws)).replace('"train.en"', '"blank.en"')
                                   .replace('"train.de"', '"blank.de"'))
    (ws / "typo_suite.toml").write_text(SUITE_TYPO.replace("{ws}", str(ws)))
    (ws / "wino.txt").write_text("female\t1\tThe developer argued with the designer because she did not like "
                                 "the design.\tdeveloper\n")
    from mtdebias.augment import annotate_corpus

    annotate_corpus(ws / "train.en", ws / "train.de", ws / "ann", "en", "de", two_sided=False)
    run = ws / "runs" / "nockpt"
    run.mkdir(parents=True)
    (run / "recipe.toml").write_text('[data]\nsrc_lang = "en"\ntgt_lang = "de"\n')
    (run / "environment.json").write_text("{}\n")
    (ws / "ckpt").symlink_to(tiny_checkpoint)
    return ws


@dataclass
class Case:
    id: str
    argv: list[str]
    expect: list[str]  # substrings of the message: the file or key named, and the remedy
    stdin: str | None = None
    subprocess: bool = False  # run in a child: on the unfixed code this one crashed the interpreter
    absent: list[str] = field(default_factory=list)  # paths that must not exist afterwards


CASES = [
    # --- values that passed --check and then did something else (#3) ---
    Case("max_steps<0", ["train", "{ws}/recipe.toml", "--check", "--set", "train.max_steps=-1"],
         ["train.max_steps = -1", "must be >= 0"]),
    Case("save_every_steps<0", ["train", "{ws}/recipe.toml", "--check", "--set", "train.save_every_steps=-1"],
         ["train.save_every_steps", ">= 0"]),
    Case("dev_max_sentences=-1", ["train", "{ws}/recipe.toml", "--check", "--set", "data.dev_max_sentences=-1"],
         ["data.dev_max_sentences", ">= 1"]),
    Case("empty run.name", ["train", "{ws}/recipe.toml", "--check", "--set", 'run.name=""'],
         ["run.name = ''", "not a safe folder name", "--set run.name="]),
    Case("run.name ../..", ["train", "{ws}/recipe.toml", "--check", "--set", 'run.name="../.."'],
         ["run.name = '../..'", "not a safe folder name"]),
    Case("tgt_lang=xx", ["train", "{ws}/recipe.toml", "--check", "--set", "data.tgt_lang=xx"],
         ["data.tgt_lang = 'xx'", "ISO 639-1", "use a two-letter"]),
    Case("unknown suite option beem", ["train", "{ws}/recipe.toml", "--check", "--set",
                                       'eval.suite="{ws}/typo_suite.toml"'],
         ["typo_suite.toml", "unknown option 'beem'", "did you mean 'beam'"]),
    Case("switch_entity without source NER", ["train", "{ws}/recipe.toml", "--check", "--set", "data.src_lang=de",
                                              "--set", "data.tgt_lang=en", "--set", 'augment.method="switch_entity.v1"'],
         ["no NER model for data.src_lang = 'de'", "augment.annotated"]),
    Case("lr<=0", ["train", "{ws}/recipe.toml", "--check", "--set", "train.lr=-1"], ["train.lr = -1.0", "> 0"]),
    Case("dropout=5", ["train", "{ws}/recipe.toml", "--check", "--set", "model.dropout=5"],
         ["model.dropout = 5.0", ">= 0 and < 1"]),
    Case("vocab_size<0", ["train", "{ws}/recipe.toml", "--check", "--set", "tokenizer.vocab_size=-5"],
         ["tokenizer.vocab_size = -5"]),
    Case("train.beam=0", ["train", "{ws}/recipe.toml", "--check", "--set", "train.beam=0"],
         ["train.beam = 0", ">= 1"]),
    Case("posthoc debias pairs file missing", ["train", "{ws}/recipe.toml", "--check", "--set", 'debias.method="hard"',
                                               "--set", 'debias.pairs="{ws}/nope.tsv"'],
         ["debias.pairs", "nope.tsv", "not found"]),
    Case("posthoc debias: no shipped pairs for the source language",
         ["train", "{ws}/recipe.toml", "--check", "--set", 'debias.method="hard"', "--set", "data.src_lang=cs",
          "--set", "data.tgt_lang=en"],
         ["debias.pairs = 'cs'", "default is the shipped list of data.src_lang", "pass a language with a shipped list"]),
    Case("annotate --tgt-lang xx", ["annotate", "--src", "{ws}/train.en", "--tgt", "{ws}/train.de", "--src-lang", "en",
                                    "--tgt-lang", "xx", "--out", "{ws}/ann_xx"],
         ["--tgt-lang = 'xx'", "ISO 639-1"], absent=["ann_xx"]),
    Case("augment --types FOO", ["augment", "{ws}/ann", "--epoch", "0", "--types", "FOO", "--out", "{ws}/aug"],
         ["--types 'FOO'", "unknown entity type(s) FOO", "choose among"], absent=["aug.src", "aug.tgt"]),
    Case("eval --option foo=1", ["eval", "--probe", "quality", "--src", "{ws}/train.en", "--ref", "{ws}/train.de",
                                 "--translations", "{ws}/train.de", "--option", "foo=1"],
         ["unknown option 'foo'", "quality takes"]),
    Case("eval on a run with no checkpoints", ["eval", "{ws}/runs/nockpt", "--suite", "{ws}/typo_suite.toml"],
         ["runs/nockpt", "no checkpoints", "train it first"]),
    # --- crashes instead of messages (#5, #8) ---
    Case("train on a blank corpus", ["train", "{ws}/blank.toml"],
         ["blank.en", "no usable sentence pairs", "both sides need text"], absent=["runs/bad"]),
    Case("annotate on a blank corpus", ["annotate", "--src", "{ws}/blank.en", "--tgt", "{ws}/blank.de",
                                        "--src-lang", "en", "--tgt-lang", "de", "--out", "{ws}/ann_blank"],
         ["blank.en", "no usable sentence pairs", "both sides need text"], subprocess=True, absent=["ann_blank"]),
    Case("--translations missing", ["eval", "--probe", "quality", "--src", "{ws}/train.en", "--ref", "{ws}/train.de",
                                    "--translations", "{ws}/missing.txt"],
         ["missing.txt", "translations file not found", "pass a file"]),
    Case("--probe winomt without --lang", ["eval", "--probe", "winomt", "--data", "{ws}/wino.txt",
                                           "--translations", "{ws}/train.de"],
         ["missing required option '--lang'", "winomt needs --lang"]),
    Case("augment --epoch -1", ["augment", "{ws}/ann", "--epoch", "-1", "--out", "{ws}/aug"],
         ["--epoch -1", "epochs count from 0"], absent=["aug.src", "aug.tgt"]),
    Case("ablate --seeds 1,x", ["ablate", "{ws}/recipe.toml", "--seeds", "1,x"],
         ["--seeds '1,x'", "'x' is not a seed", "--seeds 1,2,3"], absent=["runs/bad-base-seed1"]),
    Case("translate on empty stdin", ["translate", "{ws}/ckpt"], ["standard input is empty", "pipe one sentence"],
         stdin=""),
    Case("quality probe on empty files", ["eval", "--probe", "quality", "--src", "{ws}/empty.en", "--ref",
                                          "{ws}/empty.de", "--translations", "{ws}/empty.de"],
         ["empty.en", "no sentence pairs", "give src and ref files with text"]),
    Case("translate --beam 0", ["translate", "{ws}/ckpt", "--beam", "0"], ["--beam 0", "greedy decoding"],
         stdin="The red dog sleeps.\n"),
]


def _snapshot(folder: Path) -> dict[str, str]:
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file() and not path.is_symlink() and "__pycache__" not in path.parts:
            out[str(path.relative_to(folder))] = hashlib.sha1(path.read_bytes()).hexdigest()
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_a_clear_error_and_writes_nothing(case, ws, capsys, monkeypatch):
    argv = [a.replace("{ws}", str(ws)) for a in case.argv]
    before = _snapshot(ws)
    if case.subprocess:
        env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        proc = subprocess.run([sys.executable, "-m", "mtdebias", *argv], capture_output=True, text=True, env=env,
                              input=case.stdin, timeout=300)
        rc, err = proc.returncode, proc.stderr
    else:
        monkeypatch.setattr(sys, "stdin", io.StringIO(case.stdin or ""))
        rc = main(argv)
        err = capsys.readouterr().err
    assert rc == 2, f"exit code {rc}; stderr: {err[-1500:]}"
    message = [line for line in err.splitlines() if "error:" in line]
    assert message, err[-1500:]
    assert "Traceback" not in err
    for expected in case.expect:
        assert expected.replace("{ws}", str(ws)) in err, f"{expected!r} not in: {err[-1500:]}"
    assert _snapshot(ws) == before, "files were written or changed"
    for name in case.absent:
        assert not (ws / name).exists(), f"{name} was left behind"
