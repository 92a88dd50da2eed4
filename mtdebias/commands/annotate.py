"""``mtdebias annotate``: find entity pairs and candidate lists for SwitchEntity (run once)."""

from __future__ import annotations

import argparse
import json

from ..probes.registry import ALIGNERS


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "annotate", help="annotate a parallel corpus with entity pairs for SwitchEntity",
        description="NER + word alignment → accepted entity pairs, candidate lists and a summary. "
                    "Resumable: re-running with the same --out continues where it stopped.")
    parser.add_argument("--src", required=True, help="source side, one sentence per line")
    parser.add_argument("--tgt", required=True, help="target side, sentence-aligned with --src")
    parser.add_argument("--src-lang", required=True, help="source language code (en, fr, cs, ru)")
    parser.add_argument("--tgt-lang", required=True, help="target language code")
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--aligner", default="fast_align", choices=ALIGNERS.names(),
                        help="word aligner (fast_align is reproducible; default)")
    parser.add_argument("--types", default="PERSON",
                        help="comma-separated entity types among PERSON,ORG,GPE,LOC (default PERSON)")
    sided = parser.add_mutually_exclusive_group()
    sided.add_argument("--two-sided", dest="two_sided", action="store_true", default=None,
                       help="require a same-type target entity (default when the target has NER)")
    sided.add_argument("--one-sided", dest="two_sided", action="store_false",
                       help="trust the alignment alone on the target side")
    parser.add_argument("--candidates", default=None, metavar="USERFILE",
                        help="extra candidates: candidates.json or TSV TYPE GENDER SRC TGT [COUNT]")
    parser.add_argument("--name-locale", default=None, metavar="LOCALE",
                        help="locale of the given-name gender table (en, fr, de, es, it, pt, nl, "
                             "ru, uk, cs, pl); default: the pair's non-English language")
    parser.add_argument("--no-target-evidence", dest="target_evidence", action="store_false",
                        help="do not check target-side agreement against the name's gender")
    parser.add_argument("--gazetteer", action="store_true",
                        help="English source: also tag given names from the name tables that NER "
                             "missed or mislabelled (off by default: hurts precision on real text, "
                             "see README)")
    parser.add_argument("--no-corpus-gender", dest="corpus_gender", action="store_false",
                        help="English source: do not let the corpus's own evidence (pronouns, 'X the "
                             "son of') settle, contest or fail to support the name table "
                             "(mtdebias/names/corpus_rule.py)")
    parser.add_argument("--shard-size", type=int, default=10000, help="pairs per shard (default 10000)")
    parser.add_argument("--processes", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--max-chars", type=int, default=2000,
                        help="pairs with a side longer than this many characters are skipped and counted "
                             "(default 2000)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..store.atomic import check_writable
    from ..augment.annotate import annotate_corpus
    from ..lang.codes import check_language_code

    check_language_code(args.src_lang, "--src-lang")
    check_language_code(args.tgt_lang, "--tgt-lang")
    from ..store.outputs import check_output_folder

    # a rerun resumes in its own folder; it is never a run, an input or a file
    check_output_folder(args.out, "--out", names=(), role="the annotation folder",
                        inputs=[args.src, args.tgt, args.candidates])
    check_writable(args.out, "--out")
    summary = annotate_corpus(
        args.src, args.tgt, args.out, args.src_lang, args.tgt_lang, aligner=args.aligner,
        types=tuple(t.strip().upper() for t in args.types.split(",") if t.strip()),
        two_sided=args.two_sided, candidates=args.candidates, shard_size=args.shard_size,
        n_process=args.processes, max_chars=args.max_chars, progress=True,
        name_locale=args.name_locale, target_evidence=args.target_evidence, gazetteer=args.gazetteer,
        corpus_gender=args.corpus_gender)
    accepted, rejected = sum(summary["accepted"].values()), sum(summary["rejected"].values())
    print(f"{summary['pairs']} pairs, {accepted} entities accepted, {rejected} rejected "
          f"({json.dumps(summary['rejected'], sort_keys=True)}) → {args.out}")
    if not summary["two_sided"]:
        print(f"one-sided: no NER model for '{args.tgt_lang}', the alignment alone places target entities")
    skipped = {k: v for k, v in summary.get("skipped", {}).items() if v["count"]}
    if skipped:
        print("skipped: " + ", ".join(f"{v['count']} {k} (first lines {', '.join(map(str, v['first_lines']))})"
                                      for k, v in skipped.items()))
    cov = summary["coverage"]
    print(f"name locale {summary['name_locale']}: {cov['with_gender']}/{cov['person_mentions']} "
          f"person mentions with a gender ({cov['pct']}%), {summary['gender_conflict']} gender "
          "conflicts")
    corpus = summary["corpus_gender"]
    if isinstance(corpus, dict):
        print(f"corpus gender: {corpus['names_with_evidence']} names with evidence; names by outcome "
              f"{json.dumps(corpus['names_by_outcome'], sort_keys=True)}; accepted mentions relabelled "
              f"{json.dumps(corpus['relabelled_mentions'], ensure_ascii=False, sort_keys=True)}")
    return 0
