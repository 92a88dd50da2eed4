"""The recipe schema: one frozen dataclass per TOML table.

Field types are enforced by :mod:`.load`; ``Path`` fields are resolved against the recipe's
folder and checked to exist before any work starts (paths the run itself produces are plain
strings).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ..options import Range, check_value


class _RangeChecked:
    """Checks the section's :data:`RANGES` on construction, so a config built in code (not from
    a recipe, whose loader reports the same with the file's name) cannot carry lr = -1 either."""

    section: ClassVar[str] = ""

    def __post_init__(self) -> None:
        for (section, key), bounds in RANGES.items():
            if section == self.section:
                check_value(getattr(self, key, None), Any, bounds, f"{section}.{key}")

from ..probes.registry import ALIGNERS, AUGMENTERS, DEBIAS_METHODS


@dataclass(frozen=True)
class RunConfig(_RangeChecked):
    section: ClassVar[str] = "run"

    name: str
    dir: str = "runs"  # the run directory is <dir>/<name>, relative to the working directory
    seed: int = 1


@dataclass(frozen=True)
class DataConfig(_RangeChecked):
    section: ClassVar[str] = "data"

    train_src: Path
    train_tgt: Path
    src_lang: str
    tgt_lang: str
    dev_src: Path | None = None
    dev_tgt: Path | None = None
    dev_max_sentences: int = 500  # BLEU/chrF at each checkpoint on at most this many dev pairs
    # training pairs with a side longer than this many characters are dropped and counted (a
    # 100k-character line costs minutes in annotation and is no sentence)
    max_line_chars: int = 2000
    # generate the synthetic name-biased corpus into <run dir>/data before training
    synth: bool = False
    synth_size: int = 20000


@dataclass(frozen=True)
class TokenizerConfig(_RangeChecked):
    section: ClassVar[str] = "tokenizer"

    vocab_size: int = 8000
    joint: bool = True


@dataclass(frozen=True)
class ModelConfig(_RangeChecked):
    section: ClassVar[str] = "model"

    preset: str = "tiny"  # tiny | mini | small | base | big
    init: Path | None = None  # a checkpoint folder, hub id or (causal) GGUF file to fine-tune (its tokenizer too)
    max_positions: int = 256
    dropout: float = 0.1
    # seq2seq: an encoder-decoder (Marian from the preset, or model.init); causal: a decoder-only
    # LM from model.init, trained on the prompts the hf-causal translator renders (train/causal.py)
    kind: str = "seq2seq"
    # causal only: the hf-causal translator's prompt options, used in training and evaluation
    # alike (none = the translator's defaults; chat = true, false or "auto")
    prompt: str | None = None
    plain_prompt: str | None = None
    system: str | None = None
    examples: Path | None = None  # a TSV of few-shot source<TAB>translation pairs
    chat: bool | str | None = None


@dataclass(frozen=True)
class TrainConfig(_RangeChecked):
    section: ClassVar[str] = "train"

    epochs: int = 10  # 0: no training, the initial model is the one checkpoint (the untouched row)
    max_steps: int = 0  # 0 = no limit; otherwise stop after this many optimizer steps
    max_tokens: int = 4096  # per batch, padded source + target tokens
    grad_accum: int = 1
    lr: float = 5e-4
    warmup_steps: int = 400
    label_smoothing: float = 0.1
    weight_decay: float = 0.0
    clip_norm: float = 1.0
    mixed_precision: str = "no"  # no | fp16 | bf16 (GPU only)
    save_every_steps: int = 0  # 0 = only at epoch ends
    save_every_epochs: int = 1
    validate_bleu: bool = True
    beam: int = 1  # beam size for validation BLEU/chrF
    max_len: int = 128  # longer training pairs (in pieces) are dropped and counted
    log_every_steps: int = 20
    # LoRA (model.kind = "causal" only; docs/llm-finetuning.md): 0 trains every weight; r > 0 freezes
    # the model and trains rank-r adapters on the linear layers whose names end in lora_modules
    lora_rank: int = 0
    lora_alpha: float = 0.0  # the adapters' scale is lora_alpha / lora_rank; 0 = 2 × lora_rank
    lora_dropout: float = 0.0  # dropout on what each adapter reads
    lora_modules: tuple[str, ...] = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")


@dataclass(frozen=True)
class AugmentConfig(_RangeChecked):
    section: ClassVar[str] = "augment"

    method: str = "none"  # none | switch_entity.v1
    annotated: Path | None = None  # output of `mtdebias annotate`; none = annotate the training data in the run
    p: float = 1.0
    types: tuple[str, ...] = ("PERSON",)
    match_gender: bool = True
    unknown_policy: str = "never"  # never | among_unknown (only between languages that mark no gender)
    name_locale: str = ""  # locale of the name-gender table (fr, de, ru, en…); "" = from the languages
    corpus_gender: bool = True  # the corpus's pronoun counts override the table (augment/corpus_gender.py)
    aligner: str = "fast_align"  # fast_align | eflomal
    two_sided: bool = True  # use target-side NER where the target language has a model
    candidates: Path | None = None  # a user-supplied candidate list merged with the corpus's own
    swap_log: bool = False


@dataclass(frozen=True)
class DebiasConfig:
    method: str = "none"  # none | hard | inlp | leace
    when: str = "posthoc"  # init | every_epoch | posthoc
    words: str = "professions"  # professions | a path to a word list
    multi_token: str = "skip"  # skip | first | all
    equalise: bool = False
    # definitional pairs (female<TAB>male) for the gender direction: "" = the shipped list of
    # data.src_lang, a language with a shipped list (en, de, fr), or a TSV file
    pairs: str = ""
    # the eraser's own settings, [debias.options]: n_iterations/classifier/l2 (inlp),
    # rank_tolerance (leace); checked against the method before any work
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class EvalConfig:
    suite: Path | None = None  # an eval suite TOML; none = dev BLEU/chrF from training only
    inline: bool = True  # score each checkpoint as it is saved; false = a separate `eval --watch` process


@dataclass(frozen=True)
class AblateConfig:
    # each variant is "name" or "name: section.key=value; section.key=value"
    variants: tuple[str, ...] = ()
    seeds: tuple[int, ...] = ()
    baseline: str = ""  # the variant the others are tested against (default: the first)
    metrics: tuple[str, ...] = ()  # headline columns of the report, "probe:metric" patterns


@dataclass(frozen=True)
class Recipe:
    run: RunConfig
    data: DataConfig
    tokenizer: TokenizerConfig = field(default_factory=TokenizerConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    train: TrainConfig = field(default_factory=TrainConfig)
    augment: AugmentConfig = field(default_factory=AugmentConfig)
    debias: DebiasConfig = field(default_factory=DebiasConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    ablate: AblateConfig = field(default_factory=AblateConfig)
    source: str = ""  # the file the recipe came from

    @property
    def run_dir(self) -> Path:
        return Path(self.run.dir) / self.run.name


# Numbers outside these ranges would run and do something else than asked (max_steps = -1 trains
# nothing, dev_max_sentences = -1 drops a sentence, beam = 0 crashes after an epoch).
RANGES: dict[tuple[str, str], Range] = {
    ("run", "seed"): Range(0),
    ("data", "dev_max_sentences"): Range(1),
    ("data", "synth_size"): Range(1),
    ("data", "max_line_chars"): Range(1),
    ("tokenizer", "vocab_size"): Range(16, why="SentencePiece needs room for its special and character pieces"),
    ("model", "max_positions"): Range(1),
    ("model", "dropout"): Range(0, high=1),
    ("train", "epochs"): Range(0, why="0 trains nothing: the initial model is saved as step 0 and scored"),
    ("train", "max_steps"): Range(0, why="0 means no limit"),
    ("train", "max_tokens"): Range(16),
    ("train", "grad_accum"): Range(1),
    ("train", "lr"): Range(0, low_open=True),
    ("train", "warmup_steps"): Range(0),
    ("train", "label_smoothing"): Range(0, high=1),
    ("train", "weight_decay"): Range(0),
    ("train", "clip_norm"): Range(0, why="0 switches clipping off"),
    ("train", "save_every_steps"): Range(0, why="0 saves at epoch ends only"),
    ("train", "save_every_epochs"): Range(1),
    ("train", "beam"): Range(1),
    ("train", "max_len"): Range(1),
    ("train", "log_every_steps"): Range(1),
    ("train", "lora_rank"): Range(0, why="0 fine-tunes every weight"),
    ("train", "lora_alpha"): Range(0, why="0 means 2 × lora_rank"),
    ("train", "lora_dropout"): Range(0, high=1),
    ("augment", "p"): Range(0, high=1, high_open=False, why="a probability"),
}


CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("model", "preset"): ("tiny", "mini", "small", "base", "big"),
    ("model", "kind"): ("seq2seq", "causal"),
    ("train", "mixed_precision"): ("no", "fp16", "bf16"),
    ("augment", "method"): ("none", *AUGMENTERS.names()),
    ("augment", "unknown_policy"): ("among_unknown", "never"),
    ("augment", "aligner"): ALIGNERS.names(),
    ("debias", "method"): ("none", *DEBIAS_METHODS.names()),
    ("debias", "when"): ("init", "every_epoch", "posthoc"),
    ("debias", "multi_token"): ("skip", "first", "all"),
}
