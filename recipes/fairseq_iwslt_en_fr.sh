#!/usr/bin/env bash
# Raw IWSLT17 en–fr files → a fairseq transformer trained with SwitchEntity → `mtdebias eval`
# on every checkpoint → an HTML report. Needs `make install-fairseq` first.
#
#   DATA=../data/real/iwslt17-en-fr bash recipes/fairseq_iwslt_en_fr.sh
#
# DATA holds train.en/train.fr, dev.en/dev.fr, test.en/test.fr (one sentence per line).
# Every step can be rerun: annotate resumes, augment keeps up-to-date shards, fairseq-train
# restarts from checkpoint_last.pt, eval skips stored results.
# Knobs (environment): EPOCHS, SEED, VOCAB, WORK, FAIRSEQ_ARCH (fairseq-train model arguments),
# FAIRSEQ_TRAIN (other fairseq-train arguments), SUITE.
set -euo pipefail

DATA=${DATA:-../data/real/iwslt17-en-fr}
WORK=${WORK:-runs/fairseq-iwslt-en-fr}
EPOCHS=${EPOCHS:-30}
SEED=${SEED:-1}
VOCAB=${VOCAB:-16000}
SUITE=${SUITE:-eval/quick.toml}
# transformer_iwslt_de_en: 6+6 layers, 512 dims, 4 heads (fairseq's IWSLT example)
FAIRSEQ_ARCH=${FAIRSEQ_ARCH:---arch transformer_iwslt_de_en --share-all-embeddings --dropout 0.3}
FAIRSEQ_TRAIN=${FAIRSEQ_TRAIN:---optimizer adam --adam-betas (0.9,0.98) --lr 5e-4 --lr-scheduler inverse_sqrt \
  --warmup-updates 4000 --clip-norm 0.0 --weight-decay 0.0001 --criterion label_smoothed_cross_entropy \
  --label-smoothing 0.1 --max-tokens 4096}
PY=${PYTHON:-python}

# 1. entity pairs and candidate lists, once (French has NER: two-sided)
mtdebias annotate --src "$DATA/train.en" --tgt "$DATA/train.fr" --src-lang en --tgt-lang fr \
  --out "$WORK/annotated"

# 2. one switched, SentencePiece-encoded, binarised shard per epoch; prints DIR/epoch1:DIR/epoch2:…
SHARDS=$(mtdebias augment "$WORK/annotated" --format fairseq --epochs "1-$EPOCHS" --seed "$SEED" \
  --spm-vocab "$VOCAB" --valid-src "$DATA/dev.en" --valid-tgt "$DATA/dev.fr" --out "$WORK/data-bin" | tail -1)

# 3. fairseq trains epoch k on shard k (python -m: the fairseq of this Python)
# shellcheck disable=SC2086  # the knobs are word lists on purpose
"$PY" -m fairseq_cli.train "$SHARDS" $FAIRSEQ_ARCH $FAIRSEQ_TRAIN --max-epoch "$EPOCHS" --seed "$SEED" \
  --save-dir "$WORK/checkpoints" --no-progress-bar --log-format simple

# 4. tell mtdebias where the parts are (paths relative to this file), then score every checkpoint
cat > "$WORK/checkpoints/fairseq.toml" <<EOF
data = "../data-bin/epoch1"
sentencepiece = "../data-bin/spm.model"
results = "../eval-run"
EOF
mtdebias eval "$WORK/checkpoints" --suite "$SUITE" --set src_lang=en --set tgt_lang=fr --set data_dir="$DATA"
mtdebias report "$WORK/eval-run" --out "$WORK/report.html"
