"""A model name is classified once (translators/load.py: classify) into one ModelSource that every
later step of ``eval`` reads, and following it to a loaded translator stays within a few files."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

import mtdebias
from mtdebias.cli import main
from mtdebias.errors import ConfigError
from mtdebias.translators import load, source
from mtdebias.translators.base import BaseTranslator, declared
from mtdebias.translators.source import ModelSource

PACKAGE = Path(mtdebias.__file__).resolve().parent
MOST_FILES = 8  # issue 41: the trip entered 16 files before


def _quality_eval(tmp_path: Path, checkpoint: Path) -> list[str]:
    """``mtdebias eval CHECKPOINT --probe quality …`` on a copy of the checkpoint (its results are
    stored beside it) and three sentences."""
    copy = tmp_path / "ckpt"
    shutil.copytree(checkpoint, copy)
    src, ref = tmp_path / "src.en", tmp_path / "ref.de"
    src.write_text("the dog sleeps .\nthe cat eats .\na house .\n", encoding="utf-8")
    ref.write_text("der Hund schläft .\ndie Katze isst .\nein Haus .\n", encoding="utf-8")
    return ["eval", str(copy), "--probe", "quality", "--src", str(src), "--ref", str(ref), "--lang", "de", "--json"]


def test_eval_classifies_a_name_once(tiny_checkpoint, tmp_path, monkeypatch):
    classified, resolved = [], []
    real_classify, real_resolve = load.classify, source.resolve

    def counting_classify(name, **kwargs):
        if not isinstance(name, ModelSource):  # a name already classified is handed back untouched
            classified.append(str(name))
        return real_classify(name, **kwargs)

    def counting_resolve(name, **kwargs):
        resolved.append(str(name))
        return real_resolve(name, **kwargs)

    monkeypatch.setattr(load, "classify", counting_classify)
    monkeypatch.setattr("mtdebias.evaluation.runner.classify", counting_classify)
    monkeypatch.setattr(source, "resolve", counting_resolve)
    monkeypatch.setattr(load, "resolve", counting_resolve)
    monkeypatch.chdir(tmp_path)
    assert main(_quality_eval(tmp_path, tiny_checkpoint)) == 0
    assert classified == [str(tmp_path / "ckpt")] and resolved == classified


def test_following_a_name_from_eval_to_a_loaded_translator_enters_few_files(tiny_checkpoint, tmp_path, monkeypatch):
    """Every mtdebias file a call enters while the name is classified, placed (run store) and
    opened, up to the backend's ``from_spec`` (what happens inside the backend — reading the
    weights — is the backend's, not the name's trip), counted by a trace of the real command."""
    from mtdebias.evaluation import runner
    from mtdebias.commands import eval as eval_command

    trip = {load.classify.__code__, runner.locate.__code__, runner.run_loader.__code__,
            load.open_translator.__code__}
    backend = {cls.from_spec.__code__ for cls in (_class("hf"), _class("ct2"), _class("fairseq"))}
    entered: set[str] = set()

    def on_call(frame, event, arg):
        if event != "call":
            return None
        chain = []  # the frame and its callers, up to the step of the trip it is in and that step's caller
        caller = frame
        while caller is not None:
            if caller.f_code in backend:
                return None  # inside the backend: loading the model
            chain.append(caller)
            if caller.f_code in trip:
                chain.append(caller.f_back)
                entered.update(f.f_code.co_filename for f in chain if f.f_code.co_filename.startswith(str(PACKAGE)))
                return None
            caller = caller.f_back
        return None

    argv = _quality_eval(tmp_path, tiny_checkpoint)
    monkeypatch.chdir(tmp_path)
    sys.settrace(on_call)
    try:
        assert main(argv) == 0
    finally:
        sys.settrace(None)
    files = sorted(str(Path(f).relative_to(PACKAGE)) for f in entered)
    assert eval_command.__file__ in entered and load.__file__ in entered  # the trace saw the trip
    assert len(files) <= MOST_FILES, files


def _class(kind: str) -> type:
    from mtdebias.translators.specs import translator_class

    return translator_class(kind)


def test_the_registry_holds_every_backend_with_from_spec():
    from mtdebias.translators.specs import KINDS, translator_class

    for kind in ("hf", "ct2", "fairseq", "file", "hf-causal", "ct2-causal", "llamacpp", "apertium", "openai"):
        assert kind in KINDS and issubclass(translator_class(kind), BaseTranslator)


def test_a_translator_written_to_the_bare_protocol_reads_with_the_declared_defaults():
    class Bare:
        truncated_inputs = 3

        def translate(self, sources, beam=5):
            return list(sources)

    parts = declared(Bare())
    assert parts.truncated_inputs == 3 and parts.usage is None and parts.respond is None
    assert parts.served_models == frozenset() and list(parts.missing) == [] and parts.translate(["a"]) == ["a"]
    # a plugin's class, as the registry opens it: its own parts kept, the others declared
    from mtdebias.translators.specs import _declaring

    opened = _declaring(Bare)()
    assert isinstance(opened, Bare) and isinstance(opened, BaseTranslator) and declared(opened) is opened
    assert opened.truncated_inputs == 3 and opened.usage is None and opened.respond is None


def test_a_fairseq_model_is_refused_another_backend(tmp_path):
    pt = tmp_path / "save" / "checkpoint_best.pt"
    pt.parent.mkdir()
    pt.write_bytes(b"not really a checkpoint")
    (pt.parent / "dict.en.txt").write_text("a 1\n")
    named = load.classify(pt)
    assert named.kind == "fairseq" and named.backend == "fairseq"
    with pytest.raises(ConfigError, match="fairseq model"):
        named.with_backend("ct2")


def test_a_run_checkpoint_and_a_spec_are_classified_with_their_backend(tmp_path):
    run = tmp_path / "run"
    (run / "checkpoints" / "step-1").mkdir(parents=True)
    (run / "recipe.toml").write_text('[model]\nkind = "causal"\n', encoding="utf-8")
    assert load.classify(run).kind == "run" and load.classify(run).backend == "hf-causal"
    assert load.classify(run / "checkpoints" / "step-1").backend == "hf-causal"
    (run / "recipe.toml").write_text("[model]\n", encoding="utf-8")
    assert load.classify(run).backend == "hf"
    spec = load.classify("apertium:en-es")
    assert (spec.kind, spec.backend, spec.rest, spec.model) == ("spec", "apertium", "en-es", None)


def test_the_epsilon_cut_is_one_function_every_backend_draws_through():
    import ast

    import numpy as np
    import torch

    from mtdebias.translators import epsilon_sampler, llamacpp

    probs = torch.tensor([[0.5, 0.3, 0.15, 0.05], [0.04, 0.04, 0.02, 0.9]], dtype=torch.float64)
    assert epsilon_sampler.epsilon_cut(probs, 0.1).tolist() == [[0.5, 0.3, 0.15, 0.0], [0.0, 0.0, 0.0, 0.9]]
    flat = torch.full((1, 4), 0.25, dtype=torch.float64)  # every token below ε: the first most likely one stays
    assert epsilon_sampler.epsilon_cut(flat, 0.5).tolist() == [[0.25, 0.0, 0.0, 0.0]]
    assert llamacpp.epsilon_cut is epsilon_sampler.epsilon_cut
    fairseq_search = Path(epsilon_sampler.__file__).with_name("fairseq_epsilon.py")  # imports fairseq: read, not run
    imported = {alias.name for node in ast.walk(ast.parse(fairseq_search.read_text(encoding="utf-8")))
                if isinstance(node, ast.ImportFrom) and node.module == "epsilon_sampler" for alias in node.names}
    assert "epsilon_cut" in imported
    # llama.cpp's draws are what they were with its own numpy cut (float64, the maximum kept)
    rng = np.random.default_rng(0)
    for _ in range(20):
        logits = rng.normal(size=50) * 3
        z = logits - logits.max()
        p = np.exp(z) / np.exp(z).sum()
        before = np.where(p >= 0.02, p, 0.0)
        before[int(np.argmax(p))] = p.max()
        after = epsilon_sampler.epsilon_cut(torch.from_numpy(p), 0.02).numpy()
        assert np.array_equal(before, after)


def test_no_module_probes_a_translator_for_its_optional_parts():
    """The optional parts are declared (BaseTranslator) and read through ``declared``: a
    ``getattr(translator, "respond", …)`` elsewhere would be a second, undeclared way to ask."""
    import re

    parts = "|".join(name for name in vars(BaseTranslator) if not name.startswith("_"))
    probing = re.compile(rf"(getattr|hasattr)\([^,()]*translator[^,()]*,\s*[\"']({parts})[\"']")
    package = Path(mtdebias.__file__).parent
    found = [f"{path.relative_to(package)}:{n}" for path in package.rglob("*.py")
             if path.name != "base.py" or path.parent.name != "translators"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if probing.search(line)]
    assert found == []
