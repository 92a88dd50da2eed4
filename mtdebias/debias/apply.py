"""Debias the encoder input embeddings of a model or a checkpoint, with diagnostics.

The procedure follows Iluz et al. (2024), who hard-debiased Opus-MT encoders (Bolukbasi et al.
2016) and found it most effective on one-token profession words:

1. untie the encoder's table from the decoder and output projection (:mod:`.untie`), so only
   the encoder input changes;
2. find the gender direction from the definitional pairs whose two words are single tokens;
3. fit an eraser (``hard``, ``inlp`` or ``leace``) on those pairs' embeddings;
4. rewrite only the rows of the selected gender-neutral words (by default one-token
   professions), keeping each row's norm unless asked otherwise; with ``equalise`` (hard only)
   also make each definitional pair symmetric about the neutral subspace.

Every other row, and all decoder-side weights, stay bit-identical; the report says which
tokens changed and by how much along the gender direction.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import torch

from ..store.atomic import clean_stale_temporaries, replace_folder, restore_replaced, temporary_dir, write_json
from ..models.hub import snapshot_id
from ..errors import InputError, shown
from ..store.locking import output_lock
from ..options import check_options, declared_ranges, signature_types
from .methods import DEBIAS_METHODS
from ..signature import Signature, hash_checkpoint, hash_json
from ..store.runs import RunStore
from .base import Eraser, restore_norms
from .direction import GenderDirection, gender_direction
from .hard import equalise as equalise_pairs
from .untie import (decoder_side_weights, encoder_shares_weights, encoder_tables, is_decoder_only,
                    untie_encoder_embeddings)
from .words import (MULTI_TOKEN_MODES, WordTokens, load_definitional_pairs, load_word_list,
                    select_word_tokens, single_token_id)

METHODS = DEBIAS_METHODS.names()  # hard.v1, inlp.v1, leace.v1 and their unversioned aliases
WHEN = ("init", "every_epoch", "posthoc")
REPORT_NAME = "debias_report.json"


def check_eraser_options(method: str, options: dict[str, Any], where: str = "debias option") -> None:
    """Refuse an option the method's eraser does not take (``n_iteration = 5`` would otherwise be
    a crash after the model loaded, or silently ignored), with a did-you-mean, and a value the
    eraser refuses (``strength = 2``)."""
    if method not in DEBIAS_METHODS:
        raise InputError(f"unknown debiasing method {method!r}", hint=f"choose one of {', '.join(METHODS)}")
    eraser = DEBIAS_METHODS.load(method)
    canonical = DEBIAS_METHODS.canonical(method)
    parameters = signature_types(eraser)
    accepted = [name for name, p in parameters.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    for key in options:
        if key not in accepted:
            close = difflib.get_close_matches(key, accepted, n=1)
            raise InputError(f"{where} {shown(key)}: the {canonical} eraser has no such setting",
                             hint=f"did you mean '{close[0]}'?" if close else
                             (f"it takes {', '.join(accepted)}" if accepted else "it takes no settings"))
    check_options(options, parameters, declared_ranges(eraser), where=f"the {canonical} eraser",
                  name_of=lambda key: f"{where} {key}")
    # an eraser checks its values when it is built, and building one only stores settings: build
    # one now, so a bad value fails before the model loads and not after (as a traceback when the
    # eraser raises a plain ValueError)
    try:
        eraser(**options)
    except InputError as exc:
        raise InputError(f"{where}: {exc.message}", hint=exc.hint) from None
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: the {canonical} eraser refuses {shown(options)}: {exc}") from None


def make_eraser(method: str, **options: Any) -> Eraser:
    check_eraser_options(method, options)
    return DEBIAS_METHODS.load(method)(**options)


@dataclass
class DebiasReport:
    method: str
    settings: dict[str, Any]
    direction: dict[str, Any]  # variance_explained, spectrum, n_pairs of the gender direction
    pairs_used: list[list[str]]
    pairs_skipped: list[dict[str, Any]]
    words: list[dict[str, Any]]  # one WordTokens record per requested word
    tokens_changed: list[dict[str, Any]]  # id, token, projection before/after, norms
    equalised: list[dict[str, Any]]
    untied: bool  # True when this call untied the encoder table
    eraser: dict[str, Any]
    decoder_unchanged: bool
    max_abs_relative_projection_after: float  # max |w·g| / |w| over the neutralised rows
    counts: dict[str, int] = field(default_factory=dict)
    dev: dict[str, Any] | None = None
    signature: str = ""
    output_model: str | None = None
    # every file debias_checkpoint wrote into its output (this report included): what marks the
    # folder as its own, so that --overwrite replaces it and nothing else (None: written in training)
    files: list[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _resolve_words(words: str | Path | Sequence[str]) -> list[str]:
    if isinstance(words, (str, Path)):
        return load_word_list(words)
    return list(dict.fromkeys(str(w).strip() for w in words if str(w).strip()))


def _resolve_pairs(pairs: str | Path | Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    if isinstance(pairs, (str, Path)):
        return load_definitional_pairs(pairs)
    return [(str(f), str(m)) for f, m in pairs]


def _pair_ids(tokenizer: Any, pairs: list[tuple[str, str]],
              prefix: str = "") -> tuple[list[tuple[str, str, int, int]], list[dict]]:
    used, skipped = [], []
    for female, male in pairs:
        f_id, m_id = single_token_id(tokenizer, female, prefix), single_token_id(tokenizer, male, prefix)
        if f_id is None or m_id is None:
            reason = "not one token: " + ", ".join(w for w, i in ((female, f_id), (male, m_id)) if i is None)
            skipped.append({"pair": [female, male], "reason": reason})
        elif f_id == m_id:
            skipped.append({"pair": [female, male], "reason": "both words are the same token"})
        else:
            used.append((female, male, f_id, m_id))
    return used, skipped


def _token_records(tokenizer: Any, ids: list[int], before: np.ndarray, after: np.ndarray,
                   direction: GenderDirection, words_of: dict[int, list[str]]) -> list[dict[str, Any]]:
    tokens = tokenizer.convert_ids_to_tokens(ids)
    p_before, p_after = direction.project(before), direction.project(after)
    n_before, n_after = np.linalg.norm(before, axis=1), np.linalg.norm(after, axis=1)
    records = []
    for k, token_id in enumerate(ids):
        records.append({
            "id": int(token_id), "token": tokens[k], "words": words_of.get(token_id, []),
            "projection_before": float(p_before[k]), "projection_after": float(p_after[k]),
            "relative_projection_before": float(p_before[k] / max(n_before[k], 1e-300)),
            "relative_projection_after": float(p_after[k] / max(n_after[k], 1e-300)),
            "norm_before": float(n_before[k]), "norm_after": float(n_after[k])})
    return records


def debias_model(model: Any, tokenizer: Any, method: str = "hard",
                 words: str | Path | Sequence[str] = "professions", *, multi_token: str = "skip",
                 equalise: bool = False, keep_norm: bool = True,
                 pairs: str | Path | Sequence[tuple[str, str]] = "en",
                 eraser_options: dict[str, Any] | None = None) -> DebiasReport:
    """Debias ``model``'s encoder input embeddings (a decoder-only LM: its input embeddings, with
    words looked up as they follow a space) in place and describe what changed."""
    if method not in METHODS:
        raise InputError(f"unknown debiasing method {method!r}", hint=f"choose one of {', '.join(METHODS)}")
    if multi_token not in MULTI_TOKEN_MODES:
        raise InputError(f"unknown multi-token mode {multi_token!r}",
                         hint=f"choose one of {', '.join(MULTI_TOKEN_MODES)}")
    if equalise and not getattr(DEBIAS_METHODS.load(method), "supports_equalise", False):
        raise InputError(f"equalise is part of hard-debiasing; it is not defined for {method!r}",
                         hint="drop --equalise or use --method hard")
    word_list = _resolve_words(words)
    pair_list = _resolve_pairs(pairs)

    decoder_before = decoder_side_weights(model)
    untied = untie_encoder_embeddings(model)
    tables = encoder_tables(model)
    table = tables[0]
    snapshot = table.detach().to("cpu", torch.float64).numpy().copy()

    # a decoder-only LM reads a word inside a sentence as the token after a space (words.py)
    prefix = " " if is_decoder_only(model) else ""
    used, skipped = _pair_ids(tokenizer, pair_list, prefix)
    if len(used) < 2:
        raise InputError(f"only {len(used)} definitional pair(s) have both words as single tokens in this "
                         f"vocabulary (skipped: {', '.join('/'.join(s['pair']) for s in skipped[:8])}…)",
                         hint="pass definitional pairs made of words the tokenizer keeps whole")
    f_ids = [u[2] for u in used]
    m_ids = [u[3] for u in used]
    direction = gender_direction(snapshot[f_ids], snapshot[m_ids])
    eraser = make_eraser(method, **(eraser_options or {})).fit(snapshot[f_ids], snapshot[m_ids])

    gendered_ids = set(f_ids) | set(m_ids)
    selection: list[WordTokens] = select_word_tokens(tokenizer, word_list, multi_token, protect=gendered_ids,
                                                     prefix=prefix)
    words_of: dict[int, list[str]] = {}
    for entry in selection:
        for token_id in entry.ids:
            words_of.setdefault(token_id, []).append(entry.word)
    ids = list(words_of)

    updates: dict[int, np.ndarray] = {}
    if ids:
        old = snapshot[ids]
        new = eraser.transform(old)
        if keep_norm:
            new = restore_norms(new, old)
        updates.update(zip(ids, new))

    equalised = []
    if equalise:
        seen: set[int] = set()
        for female, male, f_id, m_id in used:
            # a word in two pairs (her/his, her/him) is equalised with its first partner only
            if f_id in seen or m_id in seen:
                equalised.append({"pair": [female, male], "skipped": "a word was already equalised"})
                continue
            seen.update((f_id, m_id))
            f_new, m_new = equalise_pairs(snapshot[[f_id]], snapshot[[m_id]], direction.vector, keep_norm)
            updates[f_id], updates[m_id] = f_new[0], m_new[0]
            equalised.append({"pair": [female, male], "ids": [f_id, m_id],
                              "projection_before": [float(direction.project(snapshot[[i]])[0]) for i in (f_id, m_id)],
                              "projection_after": [float(direction.project(r)[0]) for r in (f_new, m_new)]})

    changed_ids = list(updates)
    if changed_ids:
        index = torch.tensor(changed_ids, dtype=torch.long)
        values = np.stack([updates[i] for i in changed_ids])
        with torch.no_grad():
            for target in tables:
                target[index.to(target.device)] = torch.as_tensor(values).to(target.device, target.dtype)

    stored = table.detach().to("cpu", torch.float64).numpy()
    records = _token_records(tokenizer, ids, snapshot[ids], stored[ids], direction, words_of) if ids else []
    really_changed = {int(i) for i in changed_ids if not np.array_equal(stored[i], snapshot[i])}
    for record in records:
        record["changed"] = record["id"] in really_changed
    decoder_after = decoder_side_weights(model)
    decoder_unchanged = (not encoder_shares_weights(model) and decoder_before.keys() == decoder_after.keys()
                         and all(torch.equal(decoder_before[k], decoder_after[k]) for k in decoder_before))
    statuses = [w.status for w in selection]
    settings = {"multi_token": multi_token, "equalise": equalise, "keep_norm": keep_norm,
                **({"table": "decoder-only-input", "words": "after-space"} if prefix else {}),
                **{f"eraser.{k}": v for k, v in sorted((eraser_options or {}).items())}}
    return DebiasReport(
        method=method, settings=settings,
        direction={"variance_explained": direction.variance_explained, "spectrum": list(direction.spectrum),
                   "n_pairs": direction.n_pairs},
        pairs_used=[[f, m] for f, m, _, _ in used], pairs_skipped=skipped,
        words=[w.to_dict() for w in selection], tokens_changed=records, equalised=equalised,
        untied=untied, eraser=eraser.diagnostics(), decoder_unchanged=decoder_unchanged,
        max_abs_relative_projection_after=max((abs(r["relative_projection_after"]) for r in records), default=0.0),
        counts={"words": len(selection), "single_token_words": statuses.count("single"),
                "multi_token_words": sum(s.startswith(("multi", "skipped-multi")) for s in statuses),
                "unknown_words": statuses.count("unknown"), "rows_neutralised": len(ids),
                "rows_changed": len(really_changed), "pairs_used": len(used)},
        signature=str(Signature(method=f"debias.{method}",
                                data=hash_json({"words": word_list, "pairs": pair_list}), model="-",
                                settings=settings)))


def _dev_scores(checkpoint: Path, sources: list[str], references: list[str], beam: int) -> dict[str, Any]:
    import sacrebleu

    from ..translators.hf import HFTranslator

    hypotheses = HFTranslator(checkpoint).translate(sources, beam=beam)
    return {"bleu": sacrebleu.corpus_bleu(hypotheses, [references]).score,
            "chrf": sacrebleu.corpus_chrf(hypotheses, [references]).score}


def debias_checkpoint(checkpoint_dir: str | Path, out_dir: str | Path, method: str = "hard",
                      words: str | Path | Sequence[str] = "professions", multi_token: str = "skip",
                      equalise: bool = False, keep_norm: bool = True, *,
                      pairs: str | Path | Sequence[tuple[str, str]] = "en",
                      eraser_options: dict[str, Any] | None = None,
                      dev_src: str | Path | None = None, dev_ref: str | Path | None = None,
                      beam: int = 5, overwrite: bool = False) -> DebiasReport:
    """Write a debiased copy of a checkpoint (model, tokenizer, ``debias_report.json``) to ``out_dir``.

    ``out_dir`` is checked by :func:`check_debias_out` before any work. The copy is assembled in a
    temporary sibling directory and renamed into place (:func:`~mtdebias.store.atomic.replace_folder`),
    so ``out_dir`` holds the previous copy or the new one, each complete. With ``dev_src`` and
    ``dev_ref``, BLEU and chrF of both checkpoints on that dev set are added to the report.
    """
    from transformers import AutoTokenizer

    from ..textio import read_parallel

    checkpoint_dir = Path(checkpoint_dir)
    out_dir = Path(os.path.abspath(out_dir))  # "x/.." names a folder; its renames need a real name
    words, pairs = _resolve_words(words), _resolve_pairs(pairs)  # bad lists fail before any work
    check_debias_out(out_dir, checkpoint_dir, overwrite)
    if (dev_src is None) != (dev_ref is None):
        raise InputError("a dev set needs both a source and a reference file", path=dev_src or dev_ref,
                         hint="pass --dev-src and --dev-ref together")
    dev = read_parallel(dev_src, dev_ref) if dev_src is not None else None
    model = _load_any(checkpoint_dir)
    if dev is not None and is_decoder_only(model):
        raise InputError("dev BLEU/chrF of a decoder-only LM depend on the prompt it is asked with", path=dev_src,
                         hint="drop the dev set and score both checkpoints with `mtdebias eval` (hf-causal)")
    try:
        tokenizer = AutoTokenizer.from_pretrained(checkpoint_dir)
    except Exception as exc:  # transformers raises many types for missing tokenizer files
        raise InputError(f"tokenizer could not be loaded ({type(exc).__name__})", path=checkpoint_dir,
                         hint="the checkpoint directory must hold its tokenizer files") from exc
    report = debias_model(model, tokenizer, method, words, multi_token=multi_token, equalise=equalise,
                          keep_norm=keep_norm, pairs=pairs, eraser_options=eraser_options)
    base = Signature.parse(report.signature)
    identity = snapshot_id(checkpoint_dir) or hash_checkpoint(checkpoint_dir)  # a hub model by its commit
    report.signature = str(Signature(base.method, base.data, identity, base.settings))

    clean_stale_temporaries(out_dir.parent, recursive=False)  # left by a debias killed mid-write
    tmp = temporary_dir(out_dir)
    try:
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        # the training position (step, epoch) describes the debiased copy too; optimizer and RNG
        # state do not travel: the copy is an evaluation artefact, not a point to resume from
        if (checkpoint_dir / "trainer_state.json").is_file():
            shutil.copy2(checkpoint_dir / "trainer_state.json", tmp / "trainer_state.json")
        report.output_model = hash_checkpoint(tmp)
        if dev is not None:
            report.dev = {"sentences": len(dev), "beam": beam,
                          "before": _dev_scores(checkpoint_dir, dev.sources, dev.targets, beam),
                          "after": _dev_scores(tmp, dev.sources, dev.targets, beam)}
            report.dev["delta"] = {k: report.dev["after"][k] - report.dev["before"][k] for k in ("bleu", "chrf")}
        report.files = sorted({entry.name for entry in tmp.iterdir()} | {REPORT_NAME})
        write_json(tmp / REPORT_NAME, report.to_dict())
        with output_lock(out_dir.parent):  # checked again: the folder may have changed while debias ran
            restore_replaced(out_dir)
            _check_out(out_dir, checkpoint_dir, overwrite)
            replace_folder(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return report


def check_debias_out(out_dir: str | Path, checkpoint_dir: str | Path | None, overwrite: bool) -> None:
    """Raise :class:`InputError`, before any work, when ``out_dir`` is not a place a debiased copy
    may go (:func:`_check_out`), after putting back a copy that a debias killed mid-replace left
    aside (:func:`~mtdebias.store.atomic.restore_replaced`): else that copy would be missed, and lost."""
    out_dir = Path(os.path.abspath(out_dir))
    if not out_dir.parent.is_dir():
        _check_out(out_dir, checkpoint_dir, overwrite)  # a new path: nothing to put back
        return
    with output_lock(out_dir.parent):
        restore_replaced(out_dir)
        _check_out(out_dir, checkpoint_dir, overwrite)


def _check_out(out_dir: str | Path, checkpoint_dir: str | Path | None, overwrite: bool, flag: str = "--out") -> None:
    """Raise :class:`InputError` when ``out_dir`` is not a place a debiased copy may go.

    It may go to a new path or an empty folder, and, with ``overwrite``, replace a copy that
    debias wrote earlier: a folder whose ``debias_report.json`` lists every file in it. Nothing
    else is ever replaced, with ``overwrite`` or not: a run, a folder of runs, a part of a run
    other than a new checkpoint beside its others, the source checkpoint or a folder holding it
    (the copy would replace the weights it is made from), a file, a link, or a folder of the
    user's (replacing a folder deletes everything in it, and a debiased copy can always be
    written elsewhere). ``checkpoint_dir`` None: the source is not local yet (a hub id)."""
    out = Path(os.path.abspath(out_dir))
    exists = os.path.lexists(out)
    hint = f"choose another {flag}: a new folder for the debiased copy"
    if checkpoint_dir is not None and exists:
        source, real = Path(checkpoint_dir).resolve(), out.resolve()
        if source == real or source.is_relative_to(real):
            what = "is the source checkpoint" if source == real else f"holds the source checkpoint {checkpoint_dir}"
            raise InputError(f"{flag} {what}; the copy would replace the weights it is made from (refused, even "
                             "with --overwrite)", path=out_dir, hint=hint)
    if out.is_symlink():
        raise InputError(f"{flag} is a link; debias writes to a real folder and never replaces a link or "
                         "what it leads to", path=out_dir, hint=f"{hint}, or give the folder the link leads to")
    if exists and not out.is_dir():
        raise InputError(f"{flag} is a file, not a folder; refused, even with --overwrite", path=out_dir, hint=hint)
    is_run = RunStore.is_run_folder(out)
    runs = 0 if is_run else RunStore.runs_in(out)
    if is_run or runs:
        what = "a run folder" if is_run else f"a folder holding {runs} run(s)"
        raise InputError(f"{flag} is {what}; debias never replaces it, even with --overwrite", path=out_dir,
                         hint=f"{hint}, e.g. RUN/checkpoints/NAME-debiased")
    if RunStore.is_run_file(out) and not RunStore.is_derived_checkpoint_slot(out):
        raise InputError(f"{flag} lies inside a run's own files, where only the run's writers write; refused",
                         path=out_dir, hint=f"{hint}, e.g. RUN/checkpoints/NAME-debiased")
    entries = sorted(out.iterdir()) if exists else []
    if not entries:
        return  # a new path or an empty folder: nothing of anyone's is replaced
    if not overwrite:
        raise InputError(f"{flag}: the folder exists and is not empty", path=out_dir,
                         hint="choose a new folder, or pass --overwrite to replace a copy debias wrote there")
    listed = _files_written(out)
    if listed is None:
        raise InputError(f"{flag}: not a copy debias wrote (no {REPORT_NAME} listing its files); --overwrite "
                         "replaces only those, as replacing the folder would delete everything in it", path=out_dir,
                         hint=f"{hint}, or delete the folder yourself if it is a copy by an older mtdebias")
    foreign = [entry.name for entry in entries
               if entry.name not in listed or entry.is_symlink() or not entry.is_file()]
    if foreign:
        raise InputError(f"{flag}: the folder holds {foreign[0]!r}, which debias did not write; replacing the "
                         "folder would delete it (refused, even with --overwrite)", path=out_dir,
                         hint=f"move {foreign[0]!r} out of the folder, or choose another {flag}")


def _files_written(folder: Path) -> set[str] | None:
    """The files debias_checkpoint says it wrote to ``folder`` (its report's ``files``), or None
    when the folder has no such report (a training checkpoint's report has no list either)."""
    try:
        files = json.loads((folder / REPORT_NAME).read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, AttributeError):
        return None
    if not isinstance(files, list) or not all(isinstance(name, str) for name in files):
        return None
    return set(files)


def _load_any(checkpoint_dir: Path):
    """An encoder-decoder checkpoint, or a decoder-only LM (float32) where its config says so."""
    from ..models.model import load_causal_model, load_model
    from ..translators.source import is_causal_checkpoint

    if is_causal_checkpoint(checkpoint_dir):
        return load_causal_model(checkpoint_dir, "float32", "cpu")  # the tokenizer is loaded by the caller
    return load_model(checkpoint_dir)


class EncoderDebiaser:
    """Debiasing as a training-recipe stage.

    ``when`` says at which trainer events :meth:`applies_at` is true:

    * ``init``: once, after the model is built (event ``"init"``);
    * ``every_epoch``: at ``"init"`` and before every checkpoint is saved (event ``"save"``, the
      trainer's ``before_save`` hook), so every saved checkpoint is debiased and training resumes
      from the debiased table;
    * ``posthoc``: on the final model only (event ``"end"``).

    Call :meth:`prepare` before building the optimizer: untying creates a new encoder table,
    which an optimizer built earlier would not update.
    """

    EVENTS = {"init": {"init"}, "every_epoch": {"init", "save"}, "posthoc": {"end"}}

    def __init__(self, method: str = "hard", words: str | Path | Sequence[str] = "professions",
                 when: str = "posthoc", *, multi_token: str = "skip", equalise: bool = False,
                 keep_norm: bool = True, pairs: str | Path | Sequence[tuple[str, str]] = "en",
                 eraser_options: dict[str, Any] | None = None):
        if when not in WHEN:
            raise InputError(f"unknown debiasing stage {when!r}", hint=f"choose one of {', '.join(WHEN)}")
        if method not in METHODS:
            raise InputError(f"unknown debiasing method {method!r}", hint=f"choose one of {', '.join(METHODS)}")
        self.method, self.when, self.multi_token = method, when, multi_token
        self.equalise, self.keep_norm = equalise, keep_norm
        # resolve the lists now, so a bad file fails at recipe load, not after hours of training
        self.words = _resolve_words(words)
        self.pairs = _resolve_pairs(pairs)
        self.eraser_options = dict(eraser_options or {})
        self.reports: list[DebiasReport] = []

    def applies_at(self, event: str) -> bool:
        return event in self.EVENTS[self.when]

    def prepare(self, model: Any) -> bool:
        """Untie the encoder table (idempotent); True when it was tied."""
        return untie_encoder_embeddings(model)

    def apply(self, model: Any, tokenizer: Any) -> DebiasReport:
        report = debias_model(model, tokenizer, self.method, self.words, multi_token=self.multi_token,
                              equalise=self.equalise, keep_norm=self.keep_norm, pairs=self.pairs,
                              eraser_options=self.eraser_options)
        self.reports.append(report)
        return report

    def write_last_report(self, directory: str | Path) -> Path | None:
        """Write the latest report as ``debias_report.json`` into ``directory`` (a checkpoint)."""
        if not self.reports:
            return None
        path = Path(directory) / REPORT_NAME
        write_json(path, self.reports[-1].to_dict())
        return path
