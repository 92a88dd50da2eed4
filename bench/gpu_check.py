"""`make gpu-check`: the first thing to run on a machine with a GPU.

Nothing in this project has run on a GPU yet (the development machines have none). This runs,
in order, each with its time and a pass/fail line, and a summary at the end:

1. multi-GPU training: ``accelerate launch --multi_gpu`` of a tiny recipe on every visible GPU,
   in bf16 (fp16 where bf16 is missing), then a second launch that resumes it for one more epoch;
2. CTranslate2 on CUDA: the trained checkpoint converted and translated with ``device="cuda"``;
3. the ε-sampler on CUDA: 128 samples per source from the same checkpoint;
4. the ambiguity probe's 128-sample evaluation of a base-size hub model
   (``Helsinki-NLP/opus-mt-en-de`` unless ``--model``), its time printed; skipped with the
   fetch command when the model is not in the local Hugging Face cache.

Without CUDA it says so and exits 0: the check skips cleanly on a CPU machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RECIPE = """
[run]
name = "gpu-check"
dir = "{runs}"
seed = 1
[data]
synth = true
synth_size = 4000
train_src = "{runs}/data/train.en"
train_tgt = "{runs}/data/train.de"
dev_src = "{runs}/data/dev.en"
dev_tgt = "{runs}/data/dev.de"
src_lang = "en"
tgt_lang = "de"
[model]
preset = "tiny"
[train]
epochs = {epochs}
max_tokens = 4096
mixed_precision = "{precision}"
validate_bleu = false
"""


def _step(name: str, results: list, fn) -> None:
    start = time.perf_counter()
    try:
        detail = fn() or ""
        results.append((name, "ok", time.perf_counter() - start, detail))
    except Exception as exc:  # a check reports every failure and goes on with the next one
        results.append((name, "FAILED", time.perf_counter() - start, f"{type(exc).__name__}: {exc}"))
    status, seconds, detail = results[-1][1:]
    print(f"[{status}] {name} ({seconds:.1f} s) {detail}", flush=True)


def _launch(recipe: Path, gpus: int) -> str:
    command = [sys.executable, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes", str(gpus),
               "-m", "mtdebias", "train", str(recipe)] if gpus > 1 else \
        [sys.executable, "-m", "mtdebias", "train", str(recipe)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return done.stderr.splitlines()[0] if done.stderr else ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="Helsinki-NLP/opus-mt-en-de", help="base-size model for step 4")
    parser.add_argument("--out", type=Path, default=None, help="keep the check's files here (default: a temp folder)")
    args = parser.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("gpu-check: no CUDA device visible (torch.cuda.is_available() is False): nothing to check here, skipped")
        return 0
    gpus = torch.cuda.device_count()
    precision = "bf16" if torch.cuda.is_bf16_supported() else "fp16"
    print(f"gpu-check: {gpus} GPU(s): {', '.join(torch.cuda.get_device_name(i) for i in range(gpus))}; {precision}")
    work = args.out or Path(tempfile.mkdtemp(prefix="mtdebias-gpu-check-"))
    work.mkdir(parents=True, exist_ok=True)
    results: list = []
    recipe = work / "gpu-check.toml"
    checkpoint: dict[str, Path] = {}

    def train() -> str:
        recipe.write_text(RECIPE.format(runs=work / "runs", epochs=1, precision=precision))
        first = _launch(recipe, gpus)
        recipe.write_text(RECIPE.format(runs=work / "runs", epochs=2, precision=precision))
        _launch(recipe, gpus)  # resumes from the first launch's checkpoint
        checkpoints = sorted((work / "runs" / "gpu-check" / "checkpoints").glob("step-*"))
        checkpoint["last"] = checkpoints[-1]
        state = json.loads((checkpoints[-1] / "trainer_state.json").read_text())
        if len(checkpoints) < 2 or state["epoch"] != 2:
            raise RuntimeError(f"expected a resumed second epoch, found {[c.name for c in checkpoints]}")
        return f"{first!r}; {len(checkpoints)} checkpoints, num_processes={state['num_processes']}"

    def ct2() -> str:
        from mtdebias.translators.ct2 import CT2Translator

        out = CT2Translator(checkpoint["last"], device="cuda").translate(["She works as a developer."], beam=4)
        return repr(out[0])

    def sampler() -> str:
        from mtdebias.translators.hf import HFTranslator

        samples = HFTranslator(checkpoint["last"], device="cuda").sample(["She works as a developer."] * 8, n=128)
        return f"{sum(len(s) for s in samples)} samples, {len(set(samples[0]))} distinct for the first source"

    def ambiguity() -> str:
        from mtdebias.models.hub import fetch_command, model_available

        if not model_available(args.model):
            return f"skipped: {args.model} is not in the Hugging Face cache (`{fetch_command(args.model)}`)"
        from mtdebias.uncertainty.similarity import PAPER_EMBEDDING_MODEL, PAPER_NLI_MODEL

        # the paper's NLI and E5 models where they are cached, else the bundled fallback
        paper = model_available(PAPER_NLI_MODEL) and model_available(PAPER_EMBEDDING_MODEL)
        similarity = "paper" if paper else "cosine-e5-small"
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "mtdebias", "eval", args.model, "--probe", "ambiguity",
                               "--lang", "de", "--data", str(ROOT / "mtdebias/data/templates/winomt_synth_en.txt"),
                               "--option", "n=128", "--option", f"similarity={similarity}", "--json"],
                              cwd=work, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-2000:])
        return f"90 sources × 128 samples, similarity={similarity}, in {time.perf_counter() - start:.0f} s"

    _step("multi-GPU training with resume", results, train)
    if "last" in checkpoint:
        _step("CTranslate2 on CUDA", results, ct2)
        _step("ε-sampler on CUDA", results, sampler)
    _step("ambiguity probe, 128 samples, base-size model", results, ambiguity)
    print("\nsummary:")
    for name, status, seconds, _ in results:
        print(f"  {status:7s} {seconds:8.1f} s  {name}")
    print(f"files: {work}")
    return 0 if all(r[1] == "ok" for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
