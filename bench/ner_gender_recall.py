"""NER recall of person mentions by gender, with and without the name-gazetteer pass.

On the synthetic corpus (`mtdebias data synth`, whose generator records every person mention
and its gender), a gold mention counts as found when a PERSON entity covers its characters
exactly or contains it. Precision = entities that are a gold mention (or contain one) / all
PERSON entities. Prints one JSON object with a signature.

Usage: python bench/ner_gender_recall.py [--size 2000] [--tgt-lang de] [--seed 1]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def gold_mentions(pair) -> list[tuple[int, int, str]]:
    """(start, end, gender) of each person name in the source, in order of appearance."""
    out, pos = [], 0
    for name, gender in pair.persons:
        m = re.search(r"\b" + re.escape(name) + r"\b", pair.source[pos:])
        if m is None:
            m = re.search(r"\b" + re.escape(name) + r"\b", pair.source)
            if m is None:
                continue
            start = m.start()
        else:
            start = pos + m.start()
        out.append((start, start + len(name), gender))
        pos = start + len(name)
    return out


def score(sources, golds, tagger) -> dict:
    found = {"female": 0, "male": 0}
    total = {"female": 0, "male": 0}
    entities = correct = 0
    for ents, gold in zip(tagger.tag(sources), golds):
        persons = [e for e in ents if e.type == "PERSON"]
        entities += len(persons)
        for e in persons:
            correct += any(e.start <= a and b <= e.end for a, b, _ in gold)
        for a, b, gender in gold:
            total[gender] += 1
            found[gender] += any(e.start <= a and b <= e.end for e in persons)
    return {"recall_female": round(found["female"] / max(1, total["female"]), 3),
            "recall_male": round(found["male"] / max(1, total["male"]), 3),
            "mentions_female": total["female"], "mentions_male": total["male"],
            "precision": round(correct / max(1, entities), 3), "person_entities": entities}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--tgt-lang", default="de", choices=("de", "fr", "es"))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    from mtdebias.ner import load_tagger
    from mtdebias.signature import Signature, hash_json
    from mtdebias.synth import generate

    corpus = generate(args.tgt_lang, args.size, args.seed, dev_size=10, test_size=10)
    pairs = corpus.splits["train"]
    sources = [p.source for p in pairs]
    golds = [gold_mentions(p) for p in pairs]
    results = {"spacy": score(sources, golds, load_tagger("en")),
               "spacy+gazetteer": score(sources, golds, load_tagger("en", gazetteer=True))}
    for r in results.values():
        r["gap_male_minus_female"] = round(r["recall_male"] - r["recall_female"], 3)
    results["signature"] = str(Signature("ner-gender-recall", data=hash_json(sources),
                                         model=load_tagger("en").name,
                                         settings={"synth": f"en-{args.tgt_lang}",
                                                   "size": args.size}, seed=args.seed))
    print(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
