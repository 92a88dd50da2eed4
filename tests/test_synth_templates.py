
from mtdebias.probes.name_gender import load_gender_templates
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
    from mtdebias.probes.winomt import load_winomt
    from mtdebias.synth.export import synth_winomt_items

    path = TEMPLATE_DIR / "winomt_synth_en.txt"
    assert path.read_text(encoding="utf-8") == synth_winomt_items()
    items = load_winomt(path)
    assert len(items) == 90
    assert {item.gold for item in items} == {"male", "female"}
