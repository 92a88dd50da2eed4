"""Token-based batching that is a pure function of (pairs, seed, epoch).

Because batches depend only on those, a resumed run rebuilds exactly the batches it would
have seen and skips the ones already done — resume is exact without saving a data loader.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Sequence

import torch


@dataclass
class Encoded:
    src: list[list[int]]
    tgt: list[list[int]]
    dropped_too_long: int
    first_dropped: tuple[int, ...] = ()  # positions (0-based) of the first pairs dropped
    # a decoder-only model reads one sequence, the prompt (src) followed by the reply (tgt)
    joined: bool = False

    def widths(self) -> list[int]:
        """Each pair's padded length: its longer side, or (joined) prompt and reply together."""
        if self.joined:
            return [len(s) + len(t) for s, t in zip(self.src, self.tgt)]
        return [max(len(s), len(t)) for s, t in zip(self.src, self.tgt)]


def encode_pairs(tokenizer, sources: Sequence[str], targets: Sequence[str], max_len: int) -> Encoded:
    src_ids = tokenizer(list(sources))["input_ids"]
    tgt_ids = tokenizer(text_target=list(targets))["input_ids"]
    return Encoded(*_keep_fitting(src_ids, tgt_ids, lambda s, t: len(s) <= max_len and len(t) <= max_len))


def joined_pairs(prompts: Sequence[list[int]], replies: Sequence[list[int]], max_len: int) -> Encoded:
    """A decoder-only model's pairs (prompt and reply ids, rendered by the translator that will
    score it); pairs whose prompt and reply together exceed ``max_len`` tokens are dropped and counted."""
    return Encoded(*_keep_fitting(prompts, replies, lambda p, r: len(p) + len(r) <= max_len), joined=True)


def _keep_fitting(firsts: Sequence[list[int]], seconds: Sequence[list[int]], fits) -> tuple:
    """The pairs that ``fits``, how many did not, and the positions of the first five of those."""
    keep_a, keep_b, dropped, first = [], [], 0, []
    for position, (a, b) in enumerate(zip(firsts, seconds)):
        if not fits(a, b):
            dropped += 1
            if len(first) < 5:
                first.append(position)
            continue
        keep_a.append(a)
        keep_b.append(b)
    return keep_a, keep_b, dropped, tuple(first)


def make_batches(encoded: Encoded, max_tokens: int, seed: int, epoch: int) -> list[list[int]]:
    """Group pairs of similar length so that batch size × longest side ≤ ``max_tokens``.

    Pairs are shuffled, then sorted by length inside pools of 100 batches' worth (so batches
    differ between epochs but padding stays low); batch order is shuffled too.
    """
    rng = random.Random(seed * 1_000_003 + epoch)
    order = list(range(len(encoded.src)))
    rng.shuffle(order)
    longest = encoded.widths()
    pool = max(1, 100 * max_tokens // max(1, (sum(longest) // max(1, len(longest)))))
    batches: list[list[int]] = []
    for start in range(0, len(order), pool):
        chunk = sorted(order[start:start + pool], key=lambda i: longest[i])
        batch: list[int] = []
        width = 0
        for index in chunk:
            new_width = max(width, longest[index])
            if batch and new_width * (len(batch) + 1) > max_tokens:
                batches.append(batch)
                batch, new_width = [], longest[index]
            batch.append(index)
            width = new_width
        if batch:
            batches.append(batch)
    rng.shuffle(batches)
    return batches


def collate(encoded: Encoded, batch: Sequence[int], pad_id: int, start_id: int | None = None) -> dict[str, torch.Tensor]:
    if encoded.joined:
        return collate_joined(encoded, batch, pad_id)
    src = [encoded.src[i] for i in batch]
    tgt = [encoded.tgt[i] for i in batch]
    src_len = max(len(s) for s in src)
    tgt_len = max(len(t) for t in tgt)
    input_ids = torch.full((len(batch), src_len), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), tgt_len), -100, dtype=torch.long)
    for row, (s, t) in enumerate(zip(src, tgt)):
        input_ids[row, :len(s)] = torch.tensor(s)
        labels[row, :len(t)] = torch.tensor(t)
    # decoder input = labels shifted right, starting from the decoder start token (Marian: pad)
    decoder_input_ids = torch.full_like(labels, pad_id)
    decoder_input_ids[:, 0] = pad_id if start_id is None else start_id
    decoder_input_ids[:, 1:] = labels[:, :-1].masked_fill(labels[:, :-1] == -100, pad_id)
    return {"input_ids": input_ids, "attention_mask": (input_ids != pad_id).long(),
            "decoder_input_ids": decoder_input_ids, "labels": labels}


def collate_joined(encoded: Encoded, batch: Sequence[int], pad_id: int) -> dict[str, torch.Tensor]:
    """A decoder-only batch: prompt and reply as one right-padded row, ``labels[i]`` the token
    that position ``i`` predicts (the row shifted by one), -100 wherever that token is part of
    the prompt or padding, so the loss covers the reply and the token that ends it only."""
    rows = [encoded.src[i] + encoded.tgt[i] for i in batch]
    width = max(len(r) for r in rows) - 1  # the last token is predicted, never read
    input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((len(batch), width), dtype=torch.long)  # from lengths: pad may be eos
    labels = torch.full((len(batch), width), -100, dtype=torch.long)
    for row, (index, ids) in enumerate(zip(batch, rows)):
        prompt = len(encoded.src[index])
        input_ids[row, :len(ids) - 1] = torch.tensor(ids[:-1])
        attention_mask[row, :len(ids) - 1] = 1
        labels[row, prompt - 1:len(ids) - 1] = torch.tensor(ids[prompt:])
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
