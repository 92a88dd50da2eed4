
from mtdebias.probes.name_gender.probe import load_gender_templates
from mtdebias.synth.export import TEMPLATE_DIR, synth_template_table


def test_shipped_synth_templates_match_the_generator_and_load():
    for lang in ("de", "fr", "es"):
        path = TEMPLATE_DIR / f"name_gender_synth_{lang}.tsv"
        assert path.read_text(encoding="utf-8") == synth_template_table(lang)
        templates = load_gender_templates(path)
        assert len(templates) >= 40
        first = templates[0]
        assert "[PERSON]" in first.template and set(first.forms()) >= {"male", "female"}


def test_shipped_synth_winomt_items_match_the_generator_and_load():
    from mtdebias.probes.winomt.probe import load_winomt
    from mtdebias.synth.export import synth_winomt_items

    path = TEMPLATE_DIR / "winomt_synth_en.txt"
    assert path.read_text(encoding="utf-8") == synth_winomt_items()
    items = load_winomt(path)
    assert len(items) == 90
    assert {item.gold for item in items} == {"male", "female"}


def test_shipped_synth_winomt_references_match_the_generator_and_cover_every_item():
    """Each he/she item has the corpus's own translation as the correct reference and the other
    gender of the profession as the incorrect one; they differ in the profession only."""
    from mtdebias.probes.ambiguity.probe import load_references
    from mtdebias.probes.winomt.probe import load_winomt
    from mtdebias.synth.export import synth_winomt_references

    items = load_winomt(TEMPLATE_DIR / "winomt_synth_en.txt")
    for lang in ("de", "fr", "es"):
        path = TEMPLATE_DIR / f"winomt_synth_refs_{lang}.tsv"
        assert path.read_text(encoding="utf-8") == synth_winomt_references(lang)
        refs = load_references(path)
        assert set(refs) == {item.sentence for item in items}
        for correct, wrong in refs.values():
            differing = [(a, b) for a, b in zip(correct.split(), wrong.split()) if a != b]
            assert len(differing) == 1, (correct, wrong)
    refs = load_references(TEMPLATE_DIR / "winomt_synth_refs_de.tsv")
    assert refs["She loves her job as a developer."] == ("Sie liebt ihre Arbeit als Entwicklerin.",
                                                          "Sie liebt ihre Arbeit als Entwickler.")
