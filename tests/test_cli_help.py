"""Help that says what the code does: every option of every verb has help text, the verbs that
list components list the registries' (not a hand-written copy), and ``--out`` names what a verb
writes — a folder or one file — in every verb (augment's two-file prefix is ``--out-prefix``)."""

from __future__ import annotations

import argparse

from mtdebias.cli import build_parser, main
from mtdebias.probes.registry import DEBIAS_METHODS, PROBES


def _parsers(parser: argparse.ArgumentParser, name: str = "mtdebias"):
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for verb, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {verb}")


def test_every_option_and_argument_has_help():
    missing = [f"{name} {action.option_strings or action.dest}" for name, parser in _parsers(build_parser())
               for action in parser._actions
               if not action.help and not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))]
    assert not missing, missing


def test_lists_of_components_come_from_the_registries(capsys):
    parsers = dict(_parsers(build_parser()))
    debias = parsers["mtdebias debias"].format_help()
    assert all(name in debias for name in DEBIAS_METHODS.entries)
    assert "iterative nullspace" not in debias  # no description of a fixed set of methods
    assert all(name in parsers["mtdebias eval"].format_help() for name in PROBES.entries)
    translate = parsers["mtdebias translate"].format_help()
    assert "hub" in translate and "spec" in translate and "apertium" in translate


def test_augment_writes_two_files_under_out_prefix_and_the_old_spelling_still_works(tmp_path, capsys):
    from mtdebias.augment import annotate_corpus

    (tmp_path / "c.en").write_text("Anna met Peter in Paris.\nPeter saw Anna.\n", encoding="utf-8")
    (tmp_path / "c.de").write_text("Anna traf Peter in Paris.\nPeter sah Anna.\n", encoding="utf-8")
    annotate_corpus(tmp_path / "c.en", tmp_path / "c.de", tmp_path / "ann", "en", "de", two_sided=False)
    assert main(["augment", str(tmp_path / "ann"), "--epoch", "0", "--out-prefix", str(tmp_path / "new")]) == 0
    assert (tmp_path / "new.src").is_file() and (tmp_path / "new.tgt").is_file()
    assert "deprecated" not in capsys.readouterr().err
    assert main(["augment", str(tmp_path / "ann"), "--epoch", "0", "--out", str(tmp_path / "old")]) == 0
    assert (tmp_path / "old.src").read_text(encoding="utf-8") == (tmp_path / "new.src").read_text(encoding="utf-8")
    assert f"--out {tmp_path / 'old'} as a prefix of two files is deprecated: write --out-prefix" \
        in capsys.readouterr().err
    assert main(["augment", str(tmp_path / "ann"), "--epoch", "0", "--joint", "--out", str(tmp_path / "joint.txt")]) == 0
    assert " ||| " in (tmp_path / "joint.txt").read_text(encoding="utf-8")
    assert main(["augment", str(tmp_path / "ann"), "--epoch", "0"]) == 2
    assert "--out-prefix is required" in capsys.readouterr().err
