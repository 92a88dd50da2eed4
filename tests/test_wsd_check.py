"""Issue 25: the word-sense items against FreeDict and WordNet (every flag resolved by hand),
the corrected items scoring the quoted translations GOOD, and DiBiMT's per-POS table by hand."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from mtdebias.lang import freedict
from mtdebias.lang.wordnet import wordnet_available
from mtdebias.probes.wsd.probe import DEFAULT_ITEMS, WSDBiasProbe
from mtdebias.probes.wsd.metrics import metrics_by_pos, pos_table

ROOT = Path(__file__).resolve().parents[1]
DICTS = ("eng-deu", "eng-spa", "eng-ita", "eng-rus", "deu-eng", "spa-eng", "ita-eng")
needs_resources = pytest.mark.skipif(
    not wordnet_available() or not all(freedict.available(d) for d in DICTS),
    reason="FreeDict (make freedict: dict-freedict-*) or WordNet 3.0 (make wordnet) not installed")


# --------------------------------------------------------------------------- FreeDict reader

def test_dictd_numbers_and_entry_text():
    assert freedict.decode_number("A") == 0 and freedict.decode_number("BA") == 64
    assert freedict.decode_number("C6q") == 2 * 64 * 64 + 58 * 64 + 42
    with pytest.raises(ValueError):
        freedict.decode_number("a-b")
    text = ("beat /biːt/ <v>\n1. Schlag <masc>, Schlagen <neut> [mus.]\n2. to pound\n"
            "   Synonym: {whip}\n see: {beats}\n")
    assert freedict.entry_translations(text) == ["Schlag", "Schlagen", "pound"]


@needs_resources
def test_real_dictionaries():
    assert "battere" in freedict.load_dictionary("eng-ita").translations("beat")
    assert "etw. zeichnen" in freedict.load_dictionary("eng-deu").translations("draw")  # filed as «draw sth»
    assert "lift" in freedict.load_dictionary("spa-eng").translations("subir")


# --------------------------------------------------------------------------- the validator

@needs_resources
def test_every_shipped_item_passes_wsd_check():
    """Every flag over every shipped item is resolved by hand in resolutions.tsv (and no
    resolution is left over from an item since changed)."""
    result = subprocess.run([sys.executable, "-m", "mtdebias", "data", "wsd-check"], cwd=ROOT,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 unresolved" in result.stdout


@needs_resources
def test_wsd_check_flags_an_unresolved_lemma(tmp_path):
    """The validator fails on the issue's own example: it «battere» bad for beating eggs."""
    import json

    lines = [json.loads(l) for l in DEFAULT_ITEMS.read_text(encoding="utf-8").splitlines()]
    eggs = next(l for l in lines if l["id"] == "beat.eggs.1")
    win = next(l for l in lines if l["id"] == "beat.win.1")
    eggs["targets"]["it"]["good"].remove("battere")
    eggs["targets"]["it"]["bad"].append({"lemma": "battere", "senses": ["beat%2:33:00::"]})
    eggs["targets"]["es"]["good"] = ["batir", "subir"]  # subir is not given for beat anywhere
    items = tmp_path / "items.jsonl"
    items.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in (eggs, win)) + "\n", encoding="utf-8")
    empty = tmp_path / "resolutions.tsv"
    empty.write_text("# none\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "mtdebias", "data", "wsd-check", "--items", str(items),
                             "--resolutions", str(empty)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 1
    assert "cross-sense\tbeat\tit\tbattere" in result.stdout
    assert "unattested\tbeat\tes\tsubir" in result.stdout


# --------------------------------------------------------------------------- the corrected items

@pytest.mark.parametrize("lang, item_id, translation, expected", [
    ("it", "beat.eggs.1", "Battete le uova con lo zucchero finché il composto diventa chiaro.", "GOOD"),
    ("it", "raise.lift.1", "Tirate su la mano se conoscete la risposta.", "GOOD"),
    ("es", "raise.lift.1", "Suban la mano si saben la respuesta.", "GOOD"),
    ("it", "pen.animals.1", "Il contadino spinse le pecore nell'ovile prima del temporale.", "GOOD"),
    ("ru", "run.manage.1", "Её мать держит небольшую гостиницу у озера.", "GOOD"),
    ("de", "charge.accuse.1", "Die Polizei verlangte von ihm eine Erklärung zum Einbruch.", "MISS"),
    ("ru", "charge.accuse.1", "Полиция взяла его за кражу со взломом.", "MISS"),
    ("it", "charge.accuse.1", "La polizia gli chiese conto del furto.", "MISS"),
])
def test_issue_translations_are_scored_right(lang, item_id, translation, expected):
    probe = WSDBiasProbe.from_options(lang, resamples=0)
    item = next(i for i in probe.items() if i.id == item_id)
    attempt = probe.attempts_from_translations([translation], [item])[0]
    assert attempt["status"] == expected, attempt["matches"]


# the item-list findings of eval/gold/wsd_matcher/README.md (AWS translations), as decided there
@pytest.mark.parametrize("lang, item_id, translation, expected", [
    ("ru", "fan.person.1", "Она с детства верная поклонница этого футбольного клуба.", "GOOD"),
    ("ru", "run.move.1", "Утром дети побежали на пляж.", "GOOD"),
    ("ru", "leave.depart.2", "Мы рано вышли с вечеринки, потому что устали.", "GOOD"),
    ("ru", "pick.choose.2", "Тренер подобрал её в национальную сборную.", "GOOD"),
    ("ru", "pick.gather.1", "Весь день мы подбирали яблоки в саду.", "GOOD"),  # подобрать: both senses
    ("ru", "beat.win.1", "Наша команда побила чемпионов со счётом три–один.", "GOOD"),
    ("ru", "beat.eggs.1", "Побейте яйца с сахаром, пока смесь не посветлеет.", "BAD"),
    ("de", "charge.price.1", "Das Hotel belastete uns mit fünfzig Euro für das Frühstück.", "MISS"),  # decided against
])
def test_aws_findings_are_scored_as_decided(lang, item_id, translation, expected):
    probe = WSDBiasProbe.from_options(lang, resamples=0)
    item = next(i for i in probe.items() if i.id == item_id)
    assert probe.attempts_from_translations([translation], [item])[0]["status"] == expected


def test_lemmas_that_express_both_senses_leave_the_item():
    """it spendere (time) and ru мягкий (a soft sound) can say the item's sense, so they are never
    bad, and with no bad lemma left the language is dropped from those items."""
    it_ids = {i.id for i in WSDBiasProbe.from_options("it", resamples=0).items()}
    ru_ids = {i.id for i in WSDBiasProbe.from_options("ru", resamples=0).items()}
    assert "spend.money.1" in it_ids and not {"spend.time.1", "spend.time.2"} & it_ids
    assert "soft.touch.1" in ru_ids and not {"soft.sound.1", "soft.sound.2"} & ru_ids


def test_sentence_term_is_its_own_sense():
    probe = WSDBiasProbe.from_options("ru", resamples=0)
    item = next(i for i in probe.items() if i.id == "sentence.grammar.1")
    attempt = probe.attempts_from_translations(["Он получил срок в пять лет."], [item])[0]
    assert attempt["status"] == "BAD" and "sentence%1:28:00::" in attempt["matched_senses"]


# --------------------------------------------------------------------------- per part of speech

def _attempt(pos, status, mu, delta, chosen=None):
    return {"pos": pos, "status": status, "mu": mu, "delta": delta, "chosen_mu": chosen, "forced": None}


HAND = [_attempt("NOUN", "GOOD", 1, 3, 1), _attempt("NOUN", "BAD", 2, 3, 1), _attempt("NOUN", "GOOD", 2, 5, 2),
        _attempt("NOUN", "MISS", 1, 5), _attempt("VERB", "BAD", 3, 4, 2), _attempt("VERB", "BAD", 1, 4, 2),
        _attempt("VERB", "GOOD", 1, 6, 1)]


def test_metrics_by_pos_by_hand():
    rows = {r["pos"]: r for r in metrics_by_pos(HAND)}
    assert list(rows) == ["NOUN", "VERB", "ALL"]
    noun, verb, every = rows["NOUN"], rows["VERB"], rows["ALL"]
    # NOUN: 2 GOOD, 1 BAD, 1 MISS; μ groups 1: {G} 2: {B, G}; δ groups 3: {G, B} 5: {G}
    assert (noun["items"], noun["decided"], noun["bad"]) == (4, 3, 1)
    assert noun["accuracy"] == pytest.approx(2 / 3) and noun["miss_rate"] == pytest.approx(1 / 4)
    assert noun["sfii"] == pytest.approx((0 + 1 / 2) / 2) and noun["spdi"] == pytest.approx((1 / 2 + 0) / 2)
    assert noun["mfs"] == 1.0 and noun["mfs_plus"] == 1.0  # the BAD chose μ̂ = 1 < μ = 2
    # VERB: μ groups 3: {B} 1: {B, G}; δ 4: {B, B} 6: {G}; μ̂ = 2, 2 against μ = 3, 1
    assert verb["accuracy"] == pytest.approx(1 / 3) and verb["miss_rate"] == 0
    assert verb["sfii"] == pytest.approx((1 + 1 / 2) / 2) and verb["spdi"] == pytest.approx((1 + 0) / 2)
    assert verb["mfs"] == 0 and verb["mfs_plus"] == pytest.approx(1 / 2)
    # ALL: μ 1: {G, B, G} 2: {B, G} 3: {B}; δ 3: {G, B} 4: {B, B} 5: {G} 6: {G}
    assert every["accuracy"] == pytest.approx(3 / 6) and every["miss_rate"] == pytest.approx(1 / 7)
    assert every["sfii"] == pytest.approx((1 / 3 + 1 / 2 + 1) / 3)
    assert every["spdi"] == pytest.approx((1 / 2 + 1 + 0 + 0) / 4)
    assert every["mfs"] == pytest.approx(1 / 3) and every["mfs_plus"] == pytest.approx(2 / 3)


def test_pos_table_prints_percent_and_dashes():
    table = pos_table([_attempt("ADJ", "MISS", 1, 2)] + HAND[:2])
    lines = table.splitlines()
    assert lines[2].startswith("| NOUN | 2 | 50.0 | 0.0 | 50.0 | 50.0 | 100.0 | 100.0 |")
    assert lines[3] == "| ADJ | 1 | – | 100.0 | – | – | – | – |"
    assert math.isnan(metrics_by_pos([_attempt("ADJ", "MISS", 1, 2)])[0]["accuracy"])


# --------------------------------------------------------------------------- matcher on real MT output

def _score_matcher():
    import importlib.util

    spec = importlib.util.spec_from_file_location("score_wsd_matcher", ROOT / "eval/gold/score_matcher.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wilson_interval_by_hand():
    low, high = _score_matcher().wilson(8, 10)  # textbook value: [0.490, 0.943]
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert _score_matcher().wilson(10, 10)[1] == pytest.approx(1.0)


def test_matcher_agrees_with_labels_of_apertium_output():
    """Apertium eng-spa translations of every Spanish item, labelled by hand (README.md there)."""
    result = _score_matcher().agreement("wsd_matcher/apertium_es.tsv")
    assert result["n"] == 225
    low, high = result["wilson"]
    assert result["agreement"] >= 0.95 and low <= result["agreement"] <= high
    # the matcher never turns a labelled GOOD into BAD or the reverse on this set
    assert not result["confusion"].get(("GOOD", "BAD")) and not result["confusion"].get(("BAD", "GOOD"))


# measured 142/143, 133/137, 154/157 (README.md there, after its item-list findings were applied);
# each floor sits just below, so one more disagreement on any file fails
AWS_FLOORS = {"aws_de.tsv": (143, 0.99), "aws_it.tsv": (137, 0.97), "aws_ru.tsv": (157, 0.98)}


@pytest.mark.parametrize("name", sorted(AWS_FLOORS))
def test_matcher_agrees_with_labels_of_aws_output(name):
    """AWS translations of WinoMT/GEST sentences that use an item's word in its sense, labelled by
    hand; each row is judged with its item's lists on the row's own sentence."""
    rows, floor = AWS_FLOORS[name]
    result = _score_matcher().agreement(f"wsd_matcher/{name}")
    assert result["n"] == rows
    low, high = result["wilson"]
    assert result["agreement"] >= floor, (name, [(r["origin"], r["label"], a["status"]) for r, a in result["wrong"]])
    assert low <= result["agreement"] <= high
    assert not result["confusion"].get(("GOOD", "BAD"))


def test_aws_rows_are_judged_on_their_own_sentence():
    """The row's source and span replace the item's, so an aligner would see the right word; a
    span that cuts a word is refused."""
    module = _score_matcher()
    probe = WSDBiasProbe.from_options("de", resamples=0)
    item = next(i for i in probe.items() if i.id == "fire.job.1")
    row = {"source": "The manager fired the baker.", "span": "12:17"}
    judged = module.item_for_row(item, row, "test")
    assert judged.sentence == row["source"] and judged.word == "fired" and judged.targets == item.targets
    assert module.item_for_row(item, {"source": ""}, "test") is item
    with pytest.raises(SystemExit, match="whole word"):
        module.item_for_row(item, {"source": row["source"], "span": "12:16"}, "test")
