"""Symmetrisation of two directional word alignments (grow-diag-final-and, Koehn et al. 2005).

Directional aligners (IBM models, fast_align, eflomal) let each word of one side link to at most
one word of the other, so one direction alone cannot express "New York" ↔ "Nueva York" cleanly.
grow-diag-final-and starts from the high-precision intersection and grows it towards the union
only next to existing links, then adds union links between still-unaligned words. The loops
below follow the published pseudo-code in a fixed order, so the result is deterministic.
"""

from __future__ import annotations

from typing import Iterable

_NEIGHBOURS = ((-1, 0), (0, -1), (1, 0), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))


def grow_diag_final_and(forward: Iterable[tuple[int, int]], reverse: Iterable[tuple[int, int]],
                        n_src: int, n_tgt: int) -> list[tuple[int, int]]:
    """Symmetrise (src, tgt) link sets from the two directions; returns sorted links."""
    fwd = {(i, j) for i, j in forward if 0 <= i < n_src and 0 <= j < n_tgt}
    rev = {(i, j) for i, j in reverse if 0 <= i < n_src and 0 <= j < n_tgt}
    union = fwd | rev
    links = fwd & rev
    src_aligned = {i for i, _ in links}
    tgt_aligned = {j for _, j in links}

    def add(i: int, j: int) -> None:
        links.add((i, j))
        src_aligned.add(i)
        tgt_aligned.add(j)

    # grow-diag: repeat until no link is added
    added = True
    while added:
        added = False
        for i in range(n_src):
            for j in range(n_tgt):
                if (i, j) not in links:
                    continue
                for di, dj in _NEIGHBOURS:
                    ni, nj = i + di, j + dj
                    if ((ni, nj) in union and (ni, nj) not in links
                            and (ni not in src_aligned or nj not in tgt_aligned)):
                        add(ni, nj)
                        added = True

    # final-and, once per direction: only links between two words that are both still unaligned
    for direction in (fwd, rev):
        for i in range(n_src):
            for j in range(n_tgt):
                if (i, j) in direction and i not in src_aligned and j not in tgt_aligned:
                    add(i, j)
    return sorted(links)
