import pytest

from mtdebias.errors import InputError
from mtdebias.textio import read_lines, read_parallel


def test_parallel_files_of_different_length_name_both(tmp_path):
    src, tgt = tmp_path / "a.en", tmp_path / "a.de"
    src.write_text("one\ntwo\nthree\n")
    tgt.write_text("eins\nzwei\n")
    with pytest.raises(InputError) as info:
        read_parallel(src, tgt)
    message = str(info.value)
    assert str(src) in message and str(tgt) in message
    assert "3 lines" in message and "2 lines" in message


def test_invalid_utf8_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_bytes("fine\nalso fine\n".encode() + b"caf\xe9\n")
    with pytest.raises(InputError) as info:
        read_lines(bad)
    assert info.value.line == 3 and info.value.path == str(bad)
    assert "UTF-8" in str(info.value)


def test_empty_lines_skipped_on_both_sides_and_counted(tmp_path):
    src, tgt = tmp_path / "s", tmp_path / "t"
    src.write_text("a\n\nc\n   \ne\n")
    tgt.write_text("A\nB\n\nD\nE\n")
    corpus = read_parallel(src, tgt)
    assert corpus.sources == ["a", "e"] and corpus.targets == ["A", "E"]
    assert corpus.skipped_empty == 3
    assert corpus.line_numbers == [1, 5]


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="file not found"):
        read_lines(tmp_path / "nope.txt")


BOM = "\ufeff"


def test_a_byte_order_mark_is_not_part_of_the_first_sentence(tmp_path):
    """Windows editors start UTF-8 files with a BOM; it stayed in the first source sentence
    ("\\ufeffJohn went home."), so the first line's entity was missed."""
    (tmp_path / "c.en").write_text(BOM + "John went home.\nMary sleeps.\n", encoding="utf-8")
    (tmp_path / "c.de").write_text(BOM + "John ging nach Hause.\nMary schläft.\n", encoding="utf-8")
    corpus = read_parallel(tmp_path / "c.en", tmp_path / "c.de")
    assert corpus.sources[0] == "John went home." and corpus.targets[0] == "John ging nach Hause."
    from mtdebias.ner import load_tagger

    entities = load_tagger("en").tag(corpus.sources[:1])[0]
    assert [e.text for e in entities] == ["John"]


def test_a_byte_order_mark_is_dropped_from_suites_recipes_templates_and_items(tmp_path):
    from mtdebias.probes.name_gender.probe import load_gender_templates
    from mtdebias.probes.winomt.probe import load_winomt
    from mtdebias.evaluation.suite import load_suite

    suite = tmp_path / "s.toml"
    suite.write_text(BOM + '[suite]\nname = "x"\n[[probe]]\ntype = "quality"\nsrc = "a"\nref = "b"\n', encoding="utf-8")
    assert load_suite(suite).name == "x"
    templates = tmp_path / "t.tsv"
    templates.write_text(BOM + "id\ttemplate\tmale\tfemale\nw\t[PERSON] is a writer.\tAutor\tAutorin\n", encoding="utf-8")
    assert load_gender_templates(templates)[0].id == "w"
    items = tmp_path / "en.txt"
    items.write_text(BOM + "female\t1\tThe nurse said she was late.\tnurse\n", encoding="utf-8")
    assert load_winomt(items)[0].gold == "female"


def test_a_byte_order_mark_is_dropped_from_hand_edited_tables_and_model_files(tmp_path):
    """The readers that bypassed textio: an ablation recipe, a fairseq.toml, the WinoMT and name
    gold sets, the word-sense resolutions. With a BOM the first key, header or word was not itself."""
    from mtdebias.experiments.ablation import Variant, validate_variants
    from mtdebias.lang.agreement import load_gold
    from mtdebias.names.gold import read_gold
    from mtdebias.probes.wsd.check import load_resolutions
    from mtdebias.translators.source import load_spec_file

    (tmp_path / "t.en").write_text("a\n", encoding="utf-8")
    (tmp_path / "t.de").write_text("b\n", encoding="utf-8")
    recipe = tmp_path / "abl.toml"
    recipe.write_text(BOM + f'[run]\nname = "abl"\ndir = "{tmp_path / "runs"}"\n[data]\ntrain_src = "t.en"\n'
                      'train_tgt = "t.de"\nsrc_lang = "en"\ntgt_lang = "de"\n', encoding="utf-8")
    assert [r.run.name for r in validate_variants(recipe, [Variant("v", (), 1)])] == ["abl-v-seed1"]

    (tmp_path / "checkpoint1.pt").write_bytes(b"")
    (tmp_path / "fairseq.toml").write_text(BOM + 'checkpoints = "checkpoint1.pt"\n', encoding="utf-8")
    assert load_spec_file(tmp_path / "fairseq.toml").checkpoints == [tmp_path / "checkpoint1.pt"]

    gold = tmp_path / "winomt"
    (gold / "items").mkdir(parents=True)
    (gold / "labels").mkdir()
    (gold / "items" / "xx.tsv").write_text(
        BOM + "line\tsplit\tstratum\twino_gold\tstereotype\tprofession\tsource\ttranslation\taligned\n"
        "1\tdev\tpro-male\tmale\tpro\tdoctor\tThe doctor came.\tDer Arzt kam.\t-\n", encoding="utf-8")
    (gold / "labels" / "xx.tsv").write_text(BOM + "line\ttarget\tlabel\tnote\n1\tArzt\tmale\t\n", encoding="utf-8")
    assert [(g.target, g.label) for g in load_gold(gold, "xx")] == [("Arzt", "male")]

    names = tmp_path / "names.tsv"
    names.write_text(BOM + "word\tlabel\tnote\nRose\tboth\t\n", encoding="utf-8")
    assert read_gold(names) == [("Rose", "unisex")]

    resolutions = tmp_path / "resolutions.tsv"
    resolutions.write_text(BOM + "bank\tde\tBank\tmissing\tkeep\tmoney sense\n", encoding="utf-8")
    assert list(load_resolutions(resolutions)) == [("bank", "de", "Bank", "missing")]
