"""Russian and Ukrainian gender detection (pymorphy3) on hand-checked and real WinoMT text."""

from __future__ import annotations


import pytest

from mtdebias.lang import detect_gender

from lang_helpers import at, winomt_translation


@pytest.mark.parametrize("text, word, gender", [
    ("Врач пришла вовремя.", "Врач", "female"),  # masculine noun, feminine verb
    ("Наш новый врач осмотрел пациента.", "врач", "male"),
    ("Наша врач осмотрела пациента.", "врач", "female"),
    ("Учительница дала подарок.", "Учительница", "female"),
    ("Разработчик спорил с дизайнером.", "Разработчик", "male"),
    ("Судья пришла.", "Судья", "female"),  # common gender, decided by the verb
    ("Судья сказал.", "Судья", "male"),
    ("Коллега работает.", "Коллега", "undetected"),  # common gender, present tense: nothing decides
    ("Заведующая ушла.", "Заведующая", "female"),  # substantivised participle
    ("Эта особа ушла.", "особа", "neutral"),
    ("Он дал подарок экономке.", "экономке", "female"),
])
def test_russian_hand_checked(text, word, gender):
    d = detect_gender("ru", text, at(text, word))
    assert d.gender == gender, d


@pytest.mark.parametrize("text, word, gender", [
    ("Лікарка прийшла.", "Лікарка", "female"),
    ("Вчителька пояснила завдання.", "Вчителька", "female"),
    ("Лікар прийшла.", "Лікар", "female"),
    ("Наш новий лікар прийшов.", "лікар", "male"),
    ("Суддя сказала.", "Суддя", "female"),
    ("Ця людина прийшла.", "людина", "neutral"),
    ("Колега працює.", "Колега", "undetected"),
])
def test_ukrainian_hand_checked(text, word, gender):
    d = detect_gender("uk", text, at(text, word))
    assert d.gender == gender, d


def test_evidence_names_the_agreeing_verb():
    d = detect_gender("ru", "Врач пришла.", (0, 4))
    assert any("пришла" in e and "feminine" in e for e in d.evidence)
    assert d.span == (0, 4)


@pytest.mark.shared
@pytest.mark.parametrize("line, word, gender", [
    (7, "Помощник", "female"),  # «Помощник сканировала»: the verb is feminine
    (8, "Помощник", "male"),
    (6, "экономке", "female"),
    (11, "библиотекарю", "male"),  # masculine default, no agreement (dative object)
])
def test_real_winomt_lines(line, word, gender):
    text = winomt_translation("ru", line)
    assert detect_gender("ru", text, at(text, word)).gender == gender


@pytest.mark.parametrize("lang, text, word, gender", [
    # indefinite pronouns: the default masculine or a plural says nothing, a departing
    # feminine pronoun in a later clause does
    ("ru", "Фармацевт сказал кому-то, что она должна принимать таблетки.", "кому-то", "female"),
    ("ru", "Секретарь попросил кого-то войти, чтобы он мог получить пропуск.", "кого-то", "neutral"),
    ("ru", "Кто-то оставил бармену чаевые, потому что они были щедрыми.", "Кто-то", "neutral"),
    # subject + coordinated clause: the later object pronoun is the other person
    ("ru", "Кто-то позвал врача и спросил его о здоровье.", "Кто-то", "neutral"),
    ("uk", "Фармацевт сказав комусь, що вона має приймати таблетки.", "комусь", "female"),
    # a personal pronoun as the focus word
    ("ru", "Она вырыла яму для ассистента.", "Она", "female"),
    # a masculine noun is not a gender-neutral noun: «специалисту» is male by default
    ("ru", "Пациентка была передана к специалисту.", "специалисту", "male"),
])
def test_indefinites_pronouns_and_neutral_nouns(lang, text, word, gender):
    d = detect_gender(lang, text, at(text, word))
    assert d.gender == gender, d


def test_span_on_a_verb_moves_to_the_one_adjacent_animate_noun():
    # a word aligner one word off: «арестовал» for «officer»
    text = "Офицер арестовал протестующего, несмотря на то, что он не был на дежурстве."
    d = detect_gender("ru", text, at(text, "арестовал"))
    assert d.gender == "male" and "adjacent animate noun 'Офицер'" in d.evidence[0]
    # two candidate nouns around the verb: no guessing
    text = "Врач осмотрел медсестру."
    assert detect_gender("ru", text, at(text, "осмотрел")).gender == "undetected"


def test_feminine_substantive_in_oy_after_a_preposition():
    # «с портной»: instrumental of «портная» (the masculine would be «с портным»)
    text = "Руководитель беседовал с портной и был впечатлен ее талантом."
    assert detect_gender("ru", text, at(text, "портной")).gender == "female"
    text = "Руководитель беседовал с портным и был впечатлен его талантом."
    assert detect_gender("ru", text, at(text, "портным")).gender == "male"
