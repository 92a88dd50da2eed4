"""Fine-tuning a decoder-only LM as a translator: each pair becomes the prompt it is asked at evaluation.

A recipe with ``model.kind = "causal"`` fine-tunes the LM that ``model.init`` names (a folder, a
hub id or a GGUF file, opened through its converted float folder). Every training pair is
rendered by the ``hf-causal`` translator itself — :class:`PromptRenderer` is an
:class:`~mtdebias.translators.hf_causal.HFCausalTranslator` that runs on the model being
trained — so the prompt (chat template or plain, with the recipe's ``prompt``, ``plain_prompt``,
``system``, ``examples`` and ``chat``), its tokens and the token that ends the reply are the
translator's own, and a checkpoint scored with ``hf-causal:`` under the same options has the
prompt hash the run logged at its start. The trainer gets the token ids only
(:func:`mtdebias.train.batching.joined_pairs`); the loss covers the reply's tokens and that end
token (:func:`mtdebias.train.batching.collate_joined`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from ..models.model import load_causal_model, load_causal_tokenizer
from ..translators.hf_causal import HFCausalTranslator
from ..translators.source import ModelSource, resolve


def load_causal(init: str | Path) -> tuple[Any, Any]:
    """The model (float32, to train) and tokenizer that ``model.init`` names; a GGUF file is
    converted once to its float folder."""
    folder = resolve(init, what="model.init", fairseq=False).folder()
    return load_causal_model(folder, "float32", "cpu"), load_causal_tokenizer(folder)


class PromptRenderer(HFCausalTranslator):
    """The hf-causal translator on a model in training: it renders and tokenizes the training
    pairs, and translates the dev set for BLEU/chrF, without loading anything itself."""

    def __init__(self, model: Any, tokenizer: Any, **options: Any):
        self._live = (model, tokenizer)
        folder = Path(getattr(model, "name_or_path", "") or ".")
        # the signature of a model in training names no stored system: nothing is hashed for it
        source = ModelSource(str(folder), "folder", folder, named="in-training")
        super().__init__(source, device="cpu", **options)

    def _open_tokenizer(self):
        self.model_dir = self.source.path
        return self._live[1]

    def _open_model(self, dtype: str):
        return self._live[0]

    def on(self, model: Any, device: str) -> "PromptRenderer":
        """Translate with ``model`` (the trainer's, on its device) from now on."""
        self.model, self.device = model, device
        return self

    def prompt_pairs(self, sources: Sequence[str], targets: Sequence[str]) -> tuple[list[list[int]], list[list[int]]]:
        """Prompt and reply token ids of each pair, as the translator scores them (``score``: the
        reply's tokens and the token that ends it, after the prompt)."""
        prompts = self._encode_prompts([self._prompt_text(s) for s in sources])
        return prompts, [self._continuation(t) for t in targets]
