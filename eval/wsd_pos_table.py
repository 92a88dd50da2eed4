"""DiBiMT's Table 6 for the word-sense probe: accuracy, MISS, SFII, SPDI, MFS and MFS+ per part
of speech, from a probe's attempt log or from a TSV of translations (``id``, ``translation``).

    mtdebias eval CHECKPOINT --probe wsd_bias --lang de --attempts de.jsonl
    python eval/wsd_pos_table.py de.jsonl
    python eval/wsd_pos_table.py --lang es --tsv eval/gold/wsd_matcher/apertium_es.tsv
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mtdebias.probes.wsd.probe import WSDBiasProbe  # noqa: E402
from mtdebias.probes.wsd.metrics import pos_table  # noqa: E402


def attempts_from_tsv(path: Path, lang: str) -> list[dict]:
    probe = WSDBiasProbe.from_options(lang, resamples=0)
    items = {item.id: item for item in probe.items()}
    with open(path, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    return probe.attempts_from_translations([r["translation"] for r in rows], [items[r["id"]] for r in rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("attempts", nargs="?", type=Path, help="attempt log (JSON lines) of wsd_bias")
    parser.add_argument("--tsv", type=Path, help="translations: TSV with id and translation columns")
    parser.add_argument("--lang", help="target language of --tsv")
    args = parser.parse_args()
    if args.tsv:
        if not args.lang:
            parser.error("--tsv needs --lang")
        attempts = attempts_from_tsv(args.tsv, args.lang)
    elif args.attempts:
        attempts = [json.loads(line) for line in args.attempts.read_text(encoding="utf-8").splitlines() if line]
    else:
        parser.error("give an attempt log or --tsv")
    print(pos_table(attempts))


if __name__ == "__main__":
    main()
