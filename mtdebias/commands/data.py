"""`mtdebias data …`: rebuild the shipped name data, the profession tables, generate the
synthetic biased corpus, and build the Bible corpus from installed SWORD modules."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..corpora.bible import DEFAULT_DEV_BOOKS, DEFAULT_TEST_BOOKS


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("data", help="build data files: name lists, professions, synthetic corpus")
    verbs = parser.add_subparsers(dest="data_command",
                                  metavar="{names,name-locales,synth,professions,candidates,bible,wsd-check}")
    verbs.required = True

    names = verbs.add_parser("names", help="rebuild the SSA name-gender lexicon and the probe name lists")
    names.add_argument("--out", type=Path, default=Path("mtdebias/data/names"), help="output folder (default mtdebias/data/names)")
    names.add_argument("--seed", type=int, default=13, help="seed of the list sampling (default 13)")
    names.add_argument("--ratio", type=float, default=3.0,
                       help="a name is gendered when one gender's count is > RATIO x the other's (default 3)")
    names.add_argument("--min-difference", type=int, default=100,
                       help="... and exceeds it by more than this (default 100)")
    names.add_argument("--top-k", type=int, default=1000,
                       help="lists sample from the top-K gendered names of each gender (default 1000)")
    names.set_defaults(func=run)

    locales = verbs.add_parser("name-locales", help="rebuild the per-locale given-name/surname tables "
                                                    "(faker, pymorphy3; see data/names/README.md)")
    locales.add_argument("--out", type=Path, default=Path("data/names/locale"),
                         help="output folder (default data/names/locale)")
    locales.add_argument("--locale", action="append", default=None,
                         help="rebuild only this locale (repeatable; default all)")
    locales.add_argument("--wgnd", action="store_true",
                         help="also rebuild data/names/wgnd_fallback.tsv (WGND 2.0 answers for the "
                              "names of SSA and all faker countries; slow: reads 4 M rows)")
    locales.set_defaults(func=run)

    candidates = verbs.add_parser("candidates", help="write a SwitchEntity candidate list of names outside the "
                                                     "probe lists (for augment.candidates)")
    candidates.add_argument("--per-gender", type=int, default=300, help="names of each gender (default 300)")
    candidates.add_argument("--seed", type=int, default=13, help="seed of the sampling (default 13)")
    candidates.add_argument("--out", type=Path, default=Path("mtdebias/data/names/switch_candidates.tsv"),
                            help="the TSV file to write (default mtdebias/data/names/switch_candidates.tsv)")
    candidates.set_defaults(func=run)

    synth = verbs.add_parser("synth", help="generate the synthetic biased en→X corpus (train/dev/test + synth.json)")
    synth.add_argument("--tgt-lang", required=True, choices=["de", "fr", "es"], help="target language")
    synth.add_argument("--size", type=int, required=True, help="number of training pairs")
    synth.add_argument("--seed", type=int, default=1, help="seed of the generator (default 1)")
    synth.add_argument("--out", type=Path, required=True,
                       help="output folder: train/dev/test.{en,<lang>}, their .meta.jsonl and synth.json")
    synth.add_argument("--dev-size", type=int, default=500, help="dev pairs (default 500)")
    synth.add_argument("--test-size", type=int, default=500, help="test pairs (default 500)")
    synth.add_argument("--n-female", type=int, default=30, help="number of female names (default 30)")
    synth.add_argument("--n-male", type=int, default=60, help="number of male names (default 60)")
    synth.add_argument("--female-share", type=float, default=0.2,
                       help="expected share of person mentions that are female (default 0.2)")
    synth.add_argument("--zipf-exponent", type=float, default=1.2,
                       help="name frequency ∝ rank^-EXPONENT within each gender (default 1.2)")
    synth.add_argument("--filler-share", type=float, default=0.2,
                       help="share of sentences without a person (default 0.2)")
    synth.set_defaults(func=run)

    professions = verbs.add_parser("professions",
                                   help="write professions_<lang>.tsv (english, masculine, feminine)")
    professions.add_argument("--out", type=Path, default=Path("mtdebias/data/synth"),
                             help="output folder of the profession tables (default mtdebias/data/synth)")
    professions.add_argument("--templates-out", type=Path, default=Path("mtdebias/data/templates"),
                             help="where name_gender_synth_<lang>.tsv (quickstart templates) go")
    professions.set_defaults(func=run)

    bible = verbs.add_parser("bible", help="align two installed SWORD Bible modules verse by verse and split "
                                           "them by book into train/dev/test (e.g. KJV → Reina-Valera 1909)")
    bible.add_argument("--src-module", default="KJV", help="source module: name, abbreviation or alias (KJV)")
    bible.add_argument("--tgt-module", default="SpaRV", help="target module (SpaRV = Reina-Valera 1909)")
    bible.add_argument("--out", type=Path, required=True, help="output folder")
    bible.add_argument("--test-books", default=",".join(DEFAULT_TEST_BOOKS),
                       help="comma-separated OSIS book ids held out for test (default %(default)s)")
    bible.add_argument("--dev-books", default=",".join(DEFAULT_DEV_BOOKS),
                       help="comma-separated OSIS book ids held out for dev (default %(default)s)")
    bible.add_argument("--max-words", type=int, default=None,
                       help="leave out verse pairs whose source has more words (all splits; default: keep all)")
    bible.add_argument("--sword-path", type=Path, default=None,
                       help="a SWORD library folder (holding mods.d/); default $SWORD_PATH, ~/.sword, "
                            "/usr/share/sword")
    bible.set_defaults(func=run)

    wsd = verbs.add_parser("wsd-check", help="check word-sense items against FreeDict and WordNet 3.0; "
                                             "exit 1 on a flag not resolved in the resolutions file")
    wsd.add_argument("--items", type=Path, default=None, help="items.jsonl (default: the shipped items)")
    wsd.add_argument("--resolutions", type=Path, default=None,
                     help="hand decisions per flag (default: resolutions.tsv beside the shipped items)")
    wsd.add_argument("--all", action="store_true", help="print resolved flags too, with their decision")
    wsd.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    _check_outputs(args)
    if args.data_command == "names":
        from ..names.build import build_names

        manifest = build_names(args.out, seed=args.seed, ratio=args.ratio,
                               min_difference=args.min_difference, top_k=args.top_k)
        lex = manifest["lexicon"]
        print(f"wrote {args.out}: {lex['rows']} names ({lex['female']} female, {lex['male']} male, "
              f"{lex['unknown']} unknown); 4 lists of {manifest['lists']['size']} (seed {args.seed})")
        return 0
    if args.data_command == "synth":
        from ..synth import generate

        corpus = generate(args.tgt_lang, args.size, args.seed, dev_size=args.dev_size,
                          test_size=args.test_size, n_female=args.n_female, n_male=args.n_male,
                          female_share=args.female_share, zipf_exponent=args.zipf_exponent,
                          filler_share=args.filler_share, progress=True)
        manifest = corpus.write(args.out)
        sizes = manifest["sizes"]
        print(f"wrote {args.out}: train {sizes['train']}, dev {sizes['dev']}, test {sizes['test']} "
              f"(en-{args.tgt_lang}, female share {manifest['female_share']['train']:.3f}, "
              f"data {manifest['data_hash']})")
        return 0
    if args.data_command == "name-locales":
        from ..names.locale_build import FAKER_LOCALES, build_locales
        from ..errors import InputError

        chosen = tuple(args.locale or FAKER_LOCALES)
        unknown = [loc for loc in chosen if loc not in FAKER_LOCALES]
        if unknown:
            raise InputError(f"no sources for locale(s) {', '.join(unknown)}",
                             hint=f"choose among {', '.join(FAKER_LOCALES)}")
        if args.wgnd:
            from ..names.locale_build import build_wgnd_fallback

            print(f"wgnd_fallback.tsv: {build_wgnd_fallback()}")
        manifest = build_locales(args.out, chosen)
        for loc in chosen:
            c = manifest["locales"][loc]
            print(f"{loc}: {c['given']} given names ({c['male']} male, {c['female']} female, "
                  f"{c['unknown']} unknown), {c['surnames']} surnames")
        return 0
    if args.data_command == "candidates":
        from ..names.build import write_switch_candidates

        print(f"wrote {write_switch_candidates(args.out, args.per_gender, args.seed)}")
        return 0
    if args.data_command == "professions":
        from ..synth.export import write_profession_tables, write_synth_templates, write_synth_winomt

        for path in [*write_profession_tables(args.out), *write_synth_templates(args.templates_out),
                     *write_synth_winomt(args.templates_out)]:
            print(f"wrote {path}")
        return 0
    if args.data_command == "bible":
        from ..corpora.bible import build_bible

        summary = build_bible(args.src_module, args.tgt_module, args.out,
                              test_books=[b for b in args.test_books.split(",") if b.strip()],
                              dev_books=[b for b in args.dev_books.split(",") if b.strip()],
                              sword_path=args.sword_path, max_words=args.max_words)
        sizes, missing = summary["sizes"], summary["missing"]
        mods = summary["modules"]
        print(f"wrote {args.out}: {mods['src']['module']} ({summary['src_lang']}) → {mods['tgt']['module']} "
              f"({summary['tgt_lang']}), {summary['aligned_pairs']} verse pairs of {summary['verse_slots']}: "
              f"train {sizes['train']}, dev {sizes['dev']}, test {sizes['test']}; "
              f"missing in source only {missing['src']}, in target only {missing['tgt']}, "
              f"in both {missing['both']}; {summary['dropped_pairs']} pairs of {len(summary['dropped_chapters'])} "
              f"misaligned chapters and {sum(summary['too_long'].values())} longer than --max-words left out "
              f"(data {summary['data_hash']})")
        return 0
    if args.data_command == "wsd-check":
        return _wsd_check(args)
    raise ValueError(args.data_command)


def _check_outputs(args: argparse.Namespace) -> None:
    """Before any work: --out is never a run, its files, a file where a folder goes (or the
    reverse), nor a file this command did not write (mtdebias/store/outputs.py)."""
    from ..store.outputs import check_output_file, check_output_folder

    if args.data_command == "candidates":
        check_output_file(args.out, "--out", role="the candidate list", ours=_is_candidate_list,
                          example="switch_candidates.tsv")
    elif args.data_command == "synth":
        from ..synth.generate import SPLITS

        names = [f"{split}{suffix}" for split in SPLITS for suffix in (".en", f".{args.tgt_lang}", ".meta.jsonl")]
        check_output_folder(args.out, "--out", names=[*names, "synth.json"], role="the corpus folder",
                            ours=_in_synth_manifest)
    elif args.data_command in ("names", "name-locales", "professions", "bible"):
        check_output_folder(args.out, "--out", names=())
        if args.data_command == "professions":
            check_output_folder(args.templates_out, "--templates-out", names=())


def _is_candidate_list(path: Path) -> bool:
    from ..names.build import CANDIDATES_HEADER

    try:
        with open(path, encoding="utf-8") as handle:
            return handle.readline().startswith(CANDIDATES_HEADER)
    except (OSError, ValueError):
        return False


def _in_synth_manifest(path: Path) -> bool:
    """A file an earlier `data synth` wrote into this folder: synth.json itself, or one it lists."""
    import json

    try:
        manifest = json.loads((path.parent / "synth.json").read_text(encoding="utf-8"))
        return path.name == "synth.json" or path.name in manifest["files"]
    except (OSError, ValueError, TypeError, KeyError):
        return False


def _wsd_check(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..lang.wordnet import load_wordnet
    from ..probes.wsd.probe import DEFAULT_ITEMS
    from ..probes.wsd.check import check_items, load_resolutions, missing_dictionaries
    from ..probes.wsd.items import load_items

    missing = missing_dictionaries()
    if missing:
        raise InputError(f"FreeDict dictionaries not installed: {', '.join(missing)}",
                         hint="make freedict (Debian: apt-get install " +
                              " ".join(f"dict-freedict-{m}" for m in missing) + ")")
    items_path = args.items or DEFAULT_ITEMS
    resolutions_path = args.resolutions or DEFAULT_ITEMS.with_name("resolutions.tsv")
    resolutions = load_resolutions(resolutions_path)
    result = check_items(load_items(items_path, wordnet=False), resolutions, load_wordnet())
    print("kind\tword\tlang\tlemma\titems\tdetail\tdecision")
    for flag in result.flags:
        resolution = resolutions.get(flag.key)
        if resolution is None or args.all:
            decision = f"{resolution.decision}: {resolution.reason}" if resolution else "UNRESOLVED"
            print("\t".join([flag.kind, flag.word, flag.lang, flag.lemma, ",".join(flag.items), flag.detail,
                             decision]))
    for stale in result.stale:
        print(f"{resolutions_path}:{stale.line}: resolution matches no flag any more: {stale.key}")
    kinds = {k: sum(f.kind == k for f in result.flags) for k in ("unattested", "cross-sense", "generic", "gloss")}
    print(f"{items_path}: {len(result.flags)} flags ({', '.join(f'{v} {k}' for k, v in kinds.items())}), "
          f"{len(result.unresolved)} unresolved, {len(result.stale)} stale resolutions; "
          f"{len(result.uncovered)} (word, language, lemma) not covered by any installed dictionary")
    return 1 if result.unresolved or result.stale else 0
