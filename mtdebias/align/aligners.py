"""Word alignment of parallel sentences: fast_align (systran-align) or eflomal.

Both aligners are unsupervised: they are trained on the very pairs they align (plus optional
extra pairs that only serve as training data), so small inputs align badly — callers that align
a handful of sentences should pass a few hundred extra pairs.

Tokens are lower-cased for the aligner only (sentence-initial capitals would otherwise split
the counts of one word in two); offsets always refer to the original text.

Guarded input: the aligners are C extensions that crash the whole process (a segmentation fault,
no message) on a NUL byte and on a sentence of 200,000 words, and slow down quadratically on
very long ones. :func:`align_pairs` therefore refuses a sentence holding a control character
and one of more than :data:`MAX_ALIGN_WORDS` tokens, naming the item, before any aligner runs;
``too_long="skip"`` leaves long pairs unaligned instead (``Alignment.too_long``, to be counted).
Extra training pairs with either problem are simply not used. Readers of text files refuse
control characters with file and line already (:mod:`mtdebias.textio`); this is the last check.
And fast_align runs in child processes (training and, for :func:`align_pairs`, decoding), so an
input that still crashes it ends in an error naming the signal, not in the command dying.

Determinism: fast_align's EM has no randomness, so the same input gives the same links.
eflomal is a Gibbs sampler seeded from /dev/urandom with no seed option, so its links can
differ between runs; use it for quality, fast_align when runs must be reproducible.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from ..errors import InputError, MtdebiasError
from ..plugins.registry import Registry
from ..textio import CONTROL, check_control
from .symmetrize import grow_diag_final_and
from .tokenize import Token, tokenize

# The aligners by name, one line each; mtdebias.probes.registry lists this table with the others. It is
# here, naming this module's own functions, because align_pairs dispatches on it: were it in the
# registry, this module would import the registry that names it (a loop).
ALIGNERS = Registry("aligner", {
    "fast_align.v1": "mtdebias.align.aligners:run_fast_align",
    "eflomal.v1": "mtdebias.align.aligners:run_eflomal",
})
METHODS = ALIGNERS.names()  # fast_align.v1, eflomal.v1 and their unversioned aliases
# far beyond any sentence (WinoMT's longest is ~40 words); fast_align crashed at 200,000 and
# took minutes at 30,000
MAX_ALIGN_WORDS = 1000


@dataclass
class Alignment:
    src: list[Token]
    tgt: list[Token]
    links: list[tuple[int, int]] = field(default_factory=list)  # (src idx, tgt idx), sorted
    too_long: bool = False  # left unaligned: a side has more than MAX_ALIGN_WORDS tokens (too_long="skip")

    def tgt_indices_of(self, src_start: int, src_end: int) -> list[int]:
        """Sorted target token indices linked to source tokens overlapping [src_start, src_end)."""
        src_idx = {i for i, t in enumerate(self.src) if t.start < src_end and t.end > src_start}
        return sorted({j for i, j in self.links if i in src_idx})

    def tgt_span_of(self, src_start: int, src_end: int) -> tuple[int, int] | None:
        """Char span in the target covered by tokens aligned to the given source chars, or None."""
        idx = self.tgt_indices_of(src_start, src_end)
        if not idx:
            return None
        return self.tgt[idx[0]].start, self.tgt[idx[-1]].end


def aligner_line(tokens: list[Token]) -> str:
    return " ".join(t.text.lower() for t in tokens)


def write_fast_align_corpus(pairs: Iterable[tuple[str, str]], path: Path) -> int:
    """Write aligner lines ("src tokens ||| tgt tokens") to ``path``; returns the line count."""
    n = 0
    with Path(path).open("w", encoding="utf-8") as handle:
        for s, t in pairs:
            handle.write(f"{s} ||| {t}\n")
            n += 1
    return n


class FastAlignModel:
    """A trained pair of fast_align tables (forward src→tgt, reverse tgt→src).

    Training streams the corpus file (fast_align re-reads it every EM iteration), so a model
    can be trained once on a whole corpus and then used shard by shard.
    """

    def __init__(self, forward_probs: str | Path, backward_probs: str | Path):
        import systran_align

        self.forward_probs, self.backward_probs = str(forward_probs), str(backward_probs)
        self._aligner = systran_align.Aligner(self.forward_probs, self.backward_probs)

    @classmethod
    def train(cls, corpus: str | Path, out_dir: str | Path) -> "FastAlignModel":
        return cls(*_train_tables(corpus, out_dir))

    def align_lines(self, src_lines: Sequence[str], tgt_lines: Sequence[str]
                    ) -> list[list[tuple[int, int]]]:
        """Links for space-joined aligner lines (as written by :func:`aligner_line`)."""
        # Aligner.align decodes with the forward (src→tgt) and the reverse (tgt→src) model and
        # returns the symmetrised links; systran-align exposes no directional links, so eflomal
        # (below) is the path on which our own grow_diag_final_and runs. Re-decoding the two
        # tables ourselves and symmetrising with grow_diag_final_and reproduced its links on
        # 95% of 400 generated sentences, the rest differing by one link beside a tie.
        results = self._aligner.align_batch([s.split() for s in src_lines],
                                            [t.split() for t in tgt_lines])
        return [sorted((int(i), int(j)) for i, j in r["alignments"]) for r in results]

    def align_tokens(self, src: Sequence[list[Token]], tgt: Sequence[list[Token]]
                     ) -> list[list[tuple[int, int]]]:
        out: list[list[tuple[int, int]]] = [[] for _ in src]
        keep = [k for k in range(len(src)) if src[k] and tgt[k]]
        links = self.align_lines([aligner_line(src[k]) for k in keep],
                                 [aligner_line(tgt[k]) for k in keep])
        for k, sentence_links in zip(keep, links):
            n_s, n_t = len(src[k]), len(tgt[k])
            out[k] = sorted({(i, j) for i, j in sentence_links if i < n_s and j < n_t})
        return out


def _train_tables(corpus: str | Path, out_dir: str | Path) -> tuple[Path, Path]:
    """The forward and backward tables trained on ``corpus``, written into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    fwd, bwd = out_dir / "forward.probs", out_dir / "backward.probs"
    # Training runs in a child process with one OpenMP thread: with several threads the EM
    # sums come out in a different order from run to run and the probabilities (hence some
    # links) differ; OMP_NUM_THREADS is only read when the OpenMP runtime starts, so it has
    # to be set in a fresh process. The usual fast_align recipe (-d -o -v): favour the
    # diagonal, optimise its tension, and use variational Bayes so rare words (names!) do
    # not become garbage collectors. Tables are written to temporary names and renamed, so
    # an interrupted training never leaves a half-written model that looks finished.
    code = ("import sys, systran_align; systran_align.generate_alignment_probabilities("
            "sys.argv[1], sys.argv[2], sys.argv[3], favor_diagonal=True, "
            "optimize_tension=True, variational_bayes=True, iterations=5)")
    tmp_f, tmp_b = out_dir / ".forward.probs.tmp", out_dir / ".backward.probs.tmp"
    _child("fast_align training", code, corpus, tmp_f, tmp_b)
    os.replace(tmp_b, bwd)
    os.replace(tmp_f, fwd)
    return fwd, bwd


# decoding in a child process too (see run_fast_align): the first N pairs of the corpus file
_ALIGN_IN_CHILD = """
import json, sys, systran_align
forward, backward, corpus, n, out = sys.argv[1:6]
with open(corpus, encoding="utf-8") as handle:
    pairs = [line.rstrip("\\n").partition(" ||| ")[::2] for _, line in zip(range(int(n)), handle)]
results = systran_align.Aligner(forward, backward).align_batch([s.split() for s, _ in pairs],
                                                               [t.split() for _, t in pairs])
with open(out, "w", encoding="utf-8") as handle:
    json.dump([sorted([int(i), int(j)] for i, j in r["alignments"]) for r in results], handle)
"""


def _child(what: str, code: str, *args: str | Path) -> None:
    """Run ``code`` in a fresh Python with one OpenMP thread; a crash of the C extension in it
    (a signal) is an error saying so, not the end of this process."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    done = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env, capture_output=True, text=True)
    if done.returncode < 0:
        import signal

        raise MtdebiasError(f"{what} crashed ({signal.Signals(-done.returncode).name}) on {args[0]}: "
                            f"{done.stderr.strip()[-500:] or 'no message'} (an input it cannot take: please report it "
                            "with the sentences being aligned)")
    if done.returncode != 0:
        raise MtdebiasError(f"{what} failed: {done.stderr.strip()[-2000:]}")


def run_fast_align(src_lines: list[str], tgt_lines: list[str], n_aligned: int,
                workdir: Path) -> list[list[tuple[int, int]]]:
    """Train on all lines, decode the first ``n_aligned``, both in child processes: an input
    that crashes fast_align ends in an error, not in this process dying with no message."""
    corpus = workdir / "corpus.txt"
    write_fast_align_corpus(zip(src_lines, tgt_lines), corpus)
    forward, backward = _train_tables(corpus, workdir)
    out = workdir / "links.json"
    _child("fast_align decoding", _ALIGN_IN_CHILD, forward, backward, corpus, n_aligned, out)
    return [[(i, j) for i, j in links] for links in json.loads(out.read_text(encoding="utf-8"))]


def _read_links(path: Path) -> list[list[tuple[int, int]]]:
    out = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            out.append([tuple(map(int, pair.split("-"))) for pair in line.split()])
    return out


def run_eflomal(src_lines: list[str], tgt_lines: list[str], n_aligned: int,
             workdir: Path) -> list[list[tuple[int, int]]]:
    import eflomal

    fwd, rev = workdir / "fwd.links", workdir / "rev.links"
    eflomal.Aligner().align(src_lines, tgt_lines, links_filename_fwd=str(fwd),
                            links_filename_rev=str(rev), quiet=True)
    forward, reverse = _read_links(fwd), _read_links(rev)
    return [grow_diag_final_and(forward[k], reverse[k], len(src_lines[k].split()),
                                len(tgt_lines[k].split())) for k in range(n_aligned)]


def _aligner(method: str):
    if method not in ALIGNERS:
        raise InputError(f"unknown aligner '{method}'", hint=f"choose one of {', '.join(ALIGNERS.entries)}")
    return ALIGNERS.load(method)


def align_pairs(sources: Sequence[str], targets: Sequence[str], src_lang: str, tgt_lang: str,
                method: str = "fast_align", extra_sources: Sequence[str] = (),
                extra_targets: Sequence[str] = (), too_long: str = "refuse") -> list[Alignment]:
    """Tokenise and word-align each (source, target) pair; extra pairs are training data only.
    A pair with a control character is refused; one with a side longer than
    :data:`MAX_ALIGN_WORDS` tokens is refused too, or with ``too_long="skip"`` left unaligned."""
    run = _aligner(method)
    if too_long not in ("refuse", "skip"):
        raise InputError(f"too_long={too_long!r}", hint="give 'refuse' or 'skip'")
    for k, (s, t) in enumerate(zip(sources, targets)):
        for side, text in (("source", s), ("target", t)):
            try:
                check_control(text, None, None)
            except InputError as exc:
                raise InputError(f"pair {k + 1} to align, {side} {text[:60]!r}: {exc.message}",
                                 hint=exc.hint) from None
    if len(sources) != len(targets):
        raise InputError(f"{len(sources)} sources but {len(targets)} targets",
                         hint="pass sentence-aligned lists of equal length")
    if len(extra_sources) != len(extra_targets):
        raise InputError(f"{len(extra_sources)} extra sources but {len(extra_targets)} extra targets",
                         hint="pass sentence-aligned extra lists of equal length")
    src_tok = [tokenize(s, src_lang) for s in sources]
    tgt_tok = [tokenize(t, tgt_lang) for t in targets]
    alignments = [Alignment(s, t, []) for s, t in zip(src_tok, tgt_tok)]

    # Pairs with an empty side cannot be aligned (and upset fast_align's reader): skip them.
    keep = [k for k in range(len(alignments)) if src_tok[k] and tgt_tok[k]]
    for k in keep:
        words = max(len(src_tok[k]), len(tgt_tok[k]))
        if words > MAX_ALIGN_WORDS:
            if too_long == "refuse":
                raise InputError(f"pair {k + 1} to align has a side of {words} words, more than the aligner takes "
                                 f"({MAX_ALIGN_WORDS})", hint="split or drop the sentence (or skip such pairs: "
                                 "too_long='skip')")
            alignments[k].too_long = True
    keep = [k for k in keep if not alignments[k].too_long]
    src_lines = [aligner_line(src_tok[k]) for k in keep]
    tgt_lines = [aligner_line(tgt_tok[k]) for k in keep]
    n_aligned = len(src_lines)
    for s, t in zip(extra_sources, extra_targets):
        if CONTROL.search(s) or CONTROL.search(t):
            continue  # training data only: a bad pair is left out, not worth stopping for
        s_tok, t_tok = tokenize(s, src_lang), tokenize(t, tgt_lang)
        if max(len(s_tok), len(t_tok)) > MAX_ALIGN_WORDS:
            continue
        s_line, t_line = aligner_line(s_tok), aligner_line(t_tok)
        if s_line and t_line:
            src_lines.append(s_line)
            tgt_lines.append(t_line)
    if n_aligned == 0:
        return alignments

    with tempfile.TemporaryDirectory(prefix="mtdebias-align-") as tmp:
        links = run(src_lines, tgt_lines, n_aligned, Path(tmp))
    for k, sentence_links in zip(keep, links):
        n_s, n_t = len(src_tok[k]), len(tgt_tok[k])
        alignments[k].links = sorted({(i, j) for i, j in sentence_links if i < n_s and j < n_t})
    return alignments
