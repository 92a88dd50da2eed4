"""The hf-causal translator on a tiny Llama-style chat model built and fine-tuned here
(tests/llm_fixture.py): prompts and chat template, stopping at the end of the reply, beam and
greedy, forced-decoding scores against a hand computation, ε-sampling against ``generate()``,
options and errors, and every probe run through the suite runner with the signature stored."""

from __future__ import annotations

import csv
import json
import math
import shutil
from collections import Counter

import pytest
import torch

from mtdebias.errors import ConfigError, InputError
from mtdebias.signature import Signature
from mtdebias.translators.hf_causal import HFCausalTranslator
from tests.llm_fixture import CHOICE_TEMPLATE, CHOICES, DE_PAIRS, ES_PAIRS, drop_chat_template


@pytest.fixture(scope="module")
def de(tiny_llm):
    return HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu")


def _forward_calls(model):
    """Count the model's forward passes (one per generated token after the prompt's)."""
    calls = []
    handle = model.register_forward_hook(lambda *args: calls.append(1))
    return calls, handle


# --------------------------------------------------------------------------- prompts

def test_chat_prompt_comes_from_the_tokenizer_template(de):
    assert de.chat and de.tokenizer.convert_ids_to_tokens(de.end_of_turn) == "<|end|>"
    assert de.end_ids == sorted({de.tokenizer.eos_token_id, de.end_of_turn})
    text = de._prompt_text("The red dog sleeps.")
    assert text == ("<s><|user|>\nTranslate the following English sentence into German. Reply with the "
                    "translation only.\n\nThe red dog sleeps.<|end|>\n<|assistant|>\n")


def test_few_shot_examples_and_system_are_earlier_turns_and_change_the_prompt_hash(tiny_llm, de, tmp_path):
    shots = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", system="You translate.",
                               examples=[["The old cow waits.", "Die alte Kuh wartet."]])
    text = shots._prompt_text("The red dog sleeps.")
    assert text.startswith("<s><|system|>\nYou translate.<|end|>\n<|user|>\n")
    assert "The old cow waits.<|end|>\n<|assistant|>\nDie alte Kuh wartet.<|end|>\n<|user|>\n" in text
    model, prompt = de.signature().split(":prompt-")
    assert shots.signature().startswith(model + ":prompt-") and shots.prompt_hash != de.prompt_hash
    assert model.startswith("hf-causal:") and len(prompt) == 12
    # a TSV file of examples is the same prompt as the list
    tsv = tmp_path / "shots.tsv"
    tsv.write_text("The old cow waits.\tDie alte Kuh wartet.\n", encoding="utf-8")
    same = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", system="You translate.", examples=str(tsv))
    assert same.signature() == shots.signature()


def test_a_tokenizer_without_chat_template_gets_the_plain_prompt(tiny_llm, de, tmp_path):
    base = tmp_path / "base"
    shutil.copytree(tiny_llm, base)
    drop_chat_template(base)
    plain = HFCausalTranslator(base, tgt_lang="de", device="cpu")
    assert not plain.chat and plain._prompt_text("The red dog sleeps.") == "English: The red dog sleeps.\nGerman:"
    assert plain.signature().split(":prompt-")[0] == de.signature().split(":prompt-")[0]  # same weights
    assert plain.prompt_hash != de.prompt_hash
    with pytest.raises(ConfigError, match="has no chat template"):
        HFCausalTranslator(base, tgt_lang="de", device="cpu", chat=True)


# --------------------------------------------------------------------------- translate

def test_translates_what_it_was_taught_and_stops_at_the_end_of_turn(tiny_llm, de):
    sources = [s for s, _ in DE_PAIRS]
    calls, handle = _forward_calls(de.model)
    try:
        greedy = de.translate(sources, beam=1)
    finally:
        handle.remove()
    assert greedy == [t for _, t in DE_PAIRS]
    # one batch; it stops when the longest reply has ended (its tokens + <|end|>), not at 256 tokens
    longest = max(len(de.tokenizer(t)["input_ids"]) for _, t in DE_PAIRS)
    assert len(calls) <= longest + 2 and de.max_new_tokens == 256
    assert de.translate(sources[:3], beam=4) == [t for _, t in DE_PAIRS[:3]]
    es = HFCausalTranslator(tiny_llm, tgt_lang="es", device="cpu")
    assert es.translate([s for s, _ in ES_PAIRS], beam=1) == [t for _, t in ES_PAIRS]


def test_the_models_own_generation_settings_are_not_applied(tiny_llm, tmp_path):
    # a generation config that samples, penalises repetition and suppresses the end of turn
    model = tmp_path / "model"
    shutil.copytree(tiny_llm, model)
    plain = HFCausalTranslator(model, tgt_lang="de", device="cpu")
    (model / "generation_config.json").write_text(json.dumps({
        "do_sample": True, "temperature": 5.0, "repetition_penalty": 3.0, "suppress_tokens": [plain.end_of_turn],
        "eos_token_id": plain.tokenizer.eos_token_id}), encoding="utf-8")
    configured = HFCausalTranslator(model, tgt_lang="de", device="cpu", max_new_tokens=12)
    assert configured.translate(["The red dog sleeps.", "I am a teacher."], beam=1) == [
        "Der rote Hund schläft.", "Ich bin Lehrer."]
    assert configured.translate(["The red dog sleeps."], beam=3) == ["Der rote Hund schläft."]
    assert configured.signature() == plain.signature()  # the generation config is not the system


def test_left_padded_batches_translate_like_single_sentences(de):
    sources = ["The doctor asked the nurse for help.", "I am a teacher.", "The big horse eats."]
    together = de.translate(sources, beam=1)
    assert together == [de.translate([s], beam=1)[0] for s in sources]


def test_plain_prompt_translation_ends_at_the_newline(tiny_llm):
    plain = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", chat=False)
    calls, handle = _forward_calls(plain.model)
    try:
        out = plain.translate([s for s, _ in DE_PAIRS[:4]], beam=2)
    finally:
        handle.remove()
    assert out == [t for _, t in DE_PAIRS[:4]]
    assert len(calls) < 20  # stopped at the newline token, not at max_new_tokens
    assert set(plain.newline_ids) >= {plain.tokenizer.convert_tokens_to_ids("Ċ")}


def test_respond_answers_one_user_turn(de):
    question = CHOICE_TEMPLATE.format(sentence=CHOICES[0][0], language="Russian", first=CHOICES[0][1],
                                      second=CHOICES[0][2])
    assert de.respond([question]) == ["(b)"]
    reply = de.respond(["Hello"], max_new_tokens=3)[0]
    assert len(de.tokenizer(reply, add_special_tokens=False)["input_ids"]) <= 3


# --------------------------------------------------------------------------- score

def test_score_is_teacher_forcing_after_the_prompt(de):
    source, good, bad = "The red dog sleeps.", "Der rote Hund schläft.", "Die rote Hündin schläft."
    scored = de.score([source, "I am a teacher.", source], [good, "Ich bin Lehrer.", bad])
    # by hand: one unpadded sequence, log-softmax at the positions before each target token
    prompt = de.tokenizer(de._prompt_text(source), add_special_tokens=False)["input_ids"]
    target = de.tokenizer(good, add_special_tokens=False)["input_ids"] + [de.end_of_turn]
    ids = torch.tensor([prompt + target])
    with torch.no_grad():
        logp = torch.log_softmax(de.model(input_ids=ids).logits[0].float(), dim=-1)
    by_hand = [float(logp[len(prompt) - 1 + k, token]) for k, token in enumerate(target)]
    assert scored[0].tokens == pytest.approx(by_hand, abs=1e-4)
    assert scored[0].pieces[-1] == "<|end|>" and len(scored[0].tokens) == len(target)
    assert scored[0].total == pytest.approx(sum(by_hand), abs=1e-4)
    assert scored[0].total > -0.5 and scored[2].total < -10  # the taught translation, and another
    assert scored[1].total == pytest.approx(de.score(["I am a teacher."], ["Ich bin Lehrer."])[0].total, abs=1e-4)


def test_plain_score_ends_with_the_newline(tiny_llm):
    plain = HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", chat=False)
    scored = plain.score(["The red dog sleeps."], ["Der rote Hund schläft."])[0]
    assert scored.pieces == ("ĠDer", "Ġrote", "ĠHund", "ĠschlÃ¤ft", ".", "Ċ")
    assert scored.total > -0.5


# --------------------------------------------------------------------------- sample

@pytest.fixture(scope="module")
def random_llm(tiny_llm, tmp_path_factory):
    """An untrained one-layer Llama with spread-out logits (initializer 0.3): ε = 0.02 leaves
    several tokens at each step, so sampling has something to show."""
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    out = tmp_path_factory.mktemp("random-llm")
    tokenizer = AutoTokenizer.from_pretrained(tiny_llm)
    tokenizer.save_pretrained(out)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=512,
                         bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id, initializer_range=0.3, tie_word_embeddings=True)
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(out)
    return HFCausalTranslator(out, tgt_lang="de", device="cpu", max_new_tokens=4)


def _piece_table(translator, a, b, min_count=5):
    counts = []
    for samples in (a, b):
        counter = Counter()
        for per_source in samples:
            for text in per_source:
                counter.update(translator.tokenizer.tokenize(text))
        counts.append(counter)
    common = sorted(t for t in set(counts[0]) | set(counts[1]) if counts[0][t] + counts[1][t] >= min_count)
    return [[c[t] for t in common] + [sum(v for t, v in c.items() if t not in common)] for c in counts]


def test_epsilon_sampling_draws_what_generate_draws(random_llm):
    """Piece frequencies of 300 samples per source from the ε-sampler and from generate(top_k=0,
    epsilon_cutoff=ε): homogeneity is not rejected; a hotter sampler is (the test has power)."""
    from scipy.stats import chi2_contingency

    from mtdebias.translators.base import source_seed

    sources = ["The red dog sleeps.", "I am a teacher."]
    new = random_llm.sample(sources, n=300, epsilon=0.02, seed=1)
    old = []
    for source in sources:
        torch.manual_seed(source_seed(2, source))
        ids = torch.tensor(random_llm._encode_prompts([random_llm._prompt_text(source)]))
        out = random_llm.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), do_sample=True, top_k=0,
                                        top_p=1.0, epsilon_cutoff=0.02, temperature=1.0, num_return_sequences=300,
                                        max_new_tokens=4, eos_token_id=random_llm.stop_ids,
                                        pad_token_id=random_llm.tokenizer.pad_token_id)
        old.append([random_llm._reply(row, False) for row in out[:, ids.shape[1]:].tolist()])
    assert min(len(set(s)) for s in new) > 50  # many distinct samples: the comparison means something
    assert chi2_contingency(_piece_table(random_llm, new, old))[1] > 1e-3
    hotter = random_llm.sample(sources, n=300, epsilon=0.02, temperature=2.0, seed=3)
    assert chi2_contingency(_piece_table(random_llm, new, hotter))[1] < 1e-6


def test_samples_of_a_source_do_not_depend_on_its_batch(random_llm):
    a = random_llm.sample(["The red dog sleeps.", "I am a teacher.", "The old cow waits."], n=20, seed=7)
    b = random_llm.sample(["The red dog sleeps."], n=20, seed=7)
    assert a[0] == b[0] and len(set(a[0])) > 5
    assert random_llm.sample(["The red dog sleeps."], n=20, seed=8)[0] != b[0]


def test_the_epsilon_cut_keeps_only_tokens_above_epsilon(random_llm):
    # ε = 0.5: at most one token can reach it, and the top one always survives: sampling is greedy
    greedy = random_llm.translate(["The red dog sleeps."], beam=1)[0]
    assert set(random_llm.sample(["The red dog sleeps."], n=10, epsilon=0.5, temperature=3.0, seed=1)[0]) == {greedy}


def test_trained_samples_end_with_the_reply(de):
    samples = de.sample(["The red dog sleeps.", "I am a teacher."], n=8, seed=1)
    assert samples == [["Der rote Hund schläft."] * 8, ["Ich bin Lehrer."] * 8]


# --------------------------------------------------------------------------- options and errors

def test_from_spec_checks_options(tiny_llm):
    translator = HFCausalTranslator.from_spec(str(tiny_llm), tgt_lang="es", device="cpu", max_new_tokens=32)
    assert translator.translate(["I am a teacher."], beam=1) == ["Soy profesor."]
    with pytest.raises(ConfigError, match=r"unknown option 'exampels' \(did you mean 'examples'\?\)"):
        HFCausalTranslator.from_spec(str(tiny_llm), tgt_lang="de", exampels=[])
    with pytest.raises(ConfigError, match="needs the target language"):
        HFCausalTranslator.from_spec(str(tiny_llm))
    with pytest.raises(ConfigError, match="no model given"):
        HFCausalTranslator.from_spec("", tgt_lang="de")


@pytest.mark.parametrize("options, message", [
    ({"prompt": "Translate: {text}"}, r"prompt: unknown placeholder \{text\}"),
    ({"prompt": "Translate into {tgt_name}."}, r"prompt has no \{source\} placeholder"),
    ({"plain_prompt": "{source} =>  "}, "plain_prompt ends with a space"),
    ({"examples": [["only a source"]]}, r"examples\[0\] = \['only a source'\] is not a \[source, translation\] pair"),
    ({"tgt_lang": "german"}, "tgt_lang = 'german' is not an ISO 639-1 language code"),
    ({"dtype": "float8"}, "dtype = 'float8' is not one of"),
    ({"chat": "sometimes"}, "chat = 'sometimes'"),
])
def test_bad_options_are_config_errors(tiny_llm, options, message):
    with pytest.raises(ConfigError, match=message):
        HFCausalTranslator(tiny_llm, **{"tgt_lang": "de", "device": "cpu", **options})


def test_missing_model_and_encoder_decoder_models_are_refused(tiny_llm, tmp_path):
    from transformers import MarianConfig, MarianMTModel

    with pytest.raises(InputError, match="not in the Hugging Face cache"):
        HFCausalTranslator("some-org/some-llm", tgt_lang="de")
    marian = tmp_path / "marian"
    shutil.copytree(tiny_llm, marian, ignore=shutil.ignore_patterns("*.safetensors", "config.json"))
    MarianMTModel(MarianConfig(vocab_size=32, d_model=8, encoder_layers=1, decoder_layers=1, encoder_ffn_dim=8,
                               decoder_ffn_dim=8, encoder_attention_heads=1, decoder_attention_heads=1,
                               decoder_start_token_id=0, pad_token_id=0)).save_pretrained(marian)
    with pytest.raises(ConfigError, match="is an encoder-decoder model"):
        HFCausalTranslator(marian, tgt_lang="de", device="cpu")


def test_bad_examples_file_names_the_line(tiny_llm, tmp_path):
    shots = tmp_path / "shots.tsv"
    shots.write_text("The dog sleeps.\tDer Hund schläft.\nno tab here\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"shots.tsv:2: expected 'source<TAB>translation'"):
        HFCausalTranslator(tiny_llm, tgt_lang="de", device="cpu", examples=str(shots))


# --------------------------------------------------------------------------- every probe, stored

SUITE = """
[suite]
name = "llm"

[[probe]]
type = "winomt.v1"
lang = "de"
data = "{shipped}/templates/winomt_synth_en.txt"
pro = ""
anti = ""
beam = 1
limit = 12
resamples = 40

[[probe]]
type = "name_gender.v1"
lang = "de"
templates = "{shipped}/templates/name_gender_synth_de.tsv"
names_limit = 3
beam = 1
resamples = 40

[[probe]]
type = "gest.v1"
lang = "ru"
limit = 6
beam = 2
resamples = 40

[[probe]]
type = "gest_pref.v1"
lang = "de"
variants = "{variants}"
resamples = 40

[[probe]]
type = "wsd_bias.v1"
lang = "de"
data = "{wsd}"
beam = 1
resamples = 40

[[probe]]
type = "ambiguity.v1"
lang = "de"
data = "{shipped}/templates/winomt_synth_en.txt"
pro = ""
anti = ""
n = 4
limit = 2
alpha = 1.0
similarity = "cosine-e5-small"

[[probe]]
type = "gest_choice.v1"
lang = "ru"
variants = "{choices}"
resamples = 40
"""


def _probe_data(tmp_path):
    variants = tmp_path / "variants.csv"
    variants.write_text("original,stereotype,male,female\nI am a teacher.,2,Ich bin Lehrer.,Ich bin Lehrerin.\n"
                        "The red dog sleeps.,9,Der rote Hund schläft.,Die rote Hündin schläft.\n", encoding="utf-8")
    rows = []
    for k, (animal, noun, other, article, other_article) in enumerate([("dog", "Hund", "Katze", "Der", "Die"),
                                                                        ("cat", "Katze", "Pferd", "Die", "Das")]):
        rows.append({"id": f"a{k}", "sentence": f"The red {animal} sleeps.",
                     "word": {"lemma": animal, "span": [8, 8 + len(animal)]}, "pos": "NOUN", "sense": "animal",
                     "mu": {"animal": 2, "other": 1}, "delta": 3,
                     "targets": {"de": {"good": [noun], "bad": [{"lemma": other, "senses": ["other"]}],
                                        "good_sentences": [f"{article} rote {noun} schläft."],
                                        "bad_sentences": [f"{other_article} rote {other} schläft."]}}})
    wsd = tmp_path / "wsd.jsonl"
    wsd.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    choices = tmp_path / "choices.csv"
    with open(choices, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["original", "stereotype", "male", "female"])
        for (sentence, male, female), stereotype in zip(CHOICES, (9, 1, 16, 4)):
            writer.writerow([sentence, stereotype, male, female])
    suite = tmp_path / "suite.toml"
    suite.write_text(SUITE, encoding="utf-8")
    return suite, {"variants": str(variants), "wsd": str(wsd), "choices": str(choices)}


def test_every_probe_runs_on_the_llm_and_stores_backend_model_and_prompt(tiny_llm, tmp_path):
    from mtdebias.evaluation.runner import evaluate
    from mtdebias.store.runs import RunStore

    model = tmp_path / "llm"
    shutil.copytree(tiny_llm, model)
    suite, overrides = _probe_data(tmp_path)
    made = []

    def make(path):
        made.append(HFCausalTranslator(path, tgt_lang="de", device="cpu"))
        return made[-1]

    outcome = evaluate([model], suite, overrides, make_translator=make)
    assert outcome.failed == {} and len(outcome.scored) == 7
    store, checkpoints = RunStore.locate(model)
    rows = store.results(checkpoints[0])
    assert {r["label"] for r in rows} == {"winomt", "name_gender", "gest", "gest_pref", "wsd_bias", "ambiguity",
                                          "gest_choice"}
    for row in rows:
        assert Signature.parse(row["signature"]).model == made[0].signature(), row["label"]
    assert made[0].signature().startswith("hf-causal:") and ":prompt-" in made[0].signature()
    values = {(r["label"], r["metric"]): r["value"] for r in rows}
    # the model knows the taught translations: it prefers them in forced decoding
    assert values[("wsd_bias", "forced_bad_preferred")] == 0.0
    assert values[("gest_pref", "masculine_rate")] == 1.0  # "Lehrer" and "Hund" were taught
    # it answers (b) to every choice question: both orders cancel, nothing is undetected
    assert values[("gest_choice", "masculine_rate")] == 0.5 and values[("gest_choice", "option_a_rate")] == 0.0
    assert values[("gest_choice", "undetected_rate_attempts")] == 0.0
    assert math.isfinite(values[("ambiguity", "ge_undetected_share")])


def test_a_suite_whose_probes_name_one_language_needs_no_tgt_lang(tiny_llm, tmp_path, monkeypatch):
    """As ``--probe winomt --lang de`` needs no tgt_lang, a suite whose probes say ``lang = "de"``
    needs none either; probes that name two languages leave the translator's own error."""
    from mtdebias.evaluation.runner import evaluate
    from mtdebias.store.runs import RunStore

    monkeypatch.chdir(tmp_path)
    one = tmp_path / "one.toml"
    one.write_text(SUITE.split("[[probe]]\ntype = \"name_gender.v1\"")[0], encoding="utf-8")
    spec = f"hf-causal:{tiny_llm}"
    outcome = evaluate([spec], one, translator_options={"device": "cpu"})
    assert outcome.failed == {} and len(outcome.scored) == 1
    store, checkpoints = RunStore.for_translator(spec)
    assert {r["label"] for r in store.results(checkpoints[0])} == {"winomt"}
    two = tmp_path / "two.toml"
    two.write_text(one.read_text(encoding="utf-8") + "\n[[probe]]\ntype = \"winomt.v1\"\nlabel = \"es\"\nlang = \"es\"\n"
                   "data = \"{shipped}/templates/winomt_synth_en.txt\"\n", encoding="utf-8")
    failed = evaluate([spec], two, translator_options={"device": "cpu"}).failed
    assert "needs the target language" in str(failed), failed
