"""Language codes: which strings name a language at all.

Recipes and commands take ISO 639-1 codes (``en``, ``de``, ``zh``). A code outside the standard
(``xx``, ``english``, ``EN``) is refused before any work, since every tool further down (NER,
alignment tokenisation, gender detection, sacrebleu's tokenizer) would otherwise treat it as
"some other language" and quietly do less. Which tools support a given real language is for
those tools to say; this module only knows the standard.
"""

from __future__ import annotations

import difflib

from ..errors import InputError

# ISO 639-1 (the two-letter codes), typed in from the standard's table.
ISO_639_1 = frozenset("""
aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr cs cu cv cy da de dv dz
ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii
ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi
mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw
sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk
ur uz ve vi vo wa wo xh yi yo za zh zu
""".split())


def is_language_code(code: str) -> bool:
    return code in ISO_639_1


def check_language_code(code: str, where: str, path=None, error: type[InputError] = InputError) -> None:
    """Raise an :class:`InputError` naming ``where`` unless ``code`` is an ISO 639-1 code."""
    if is_language_code(code):
        return
    near = nearest_language(code)
    hint = f"did you mean '{near}'?" if near else "use a two-letter ISO 639-1 code such as en, de, fr, es, ru, zh"
    raise error(f"{where} = {code!r} is not an ISO 639-1 language code", path=path, hint=hint)


# what people write for a language instead of its ISO 639-1 code: country codes and ISO 639-2/3
# codes (B and T forms) of the languages the package has tools for
_MISTAKEN = {"sp": "es", "spa": "es", "esp": "es", "ger": "de", "deu": "de", "ge": "de", "fre": "fr", "fra": "fr",
             "ita": "it", "rus": "ru", "ukr": "uk", "ua": "uk", "cz": "cs", "cze": "cs", "ces": "cs", "pol": "pl",
             "chi": "zh", "zho": "zh", "cn": "zh", "jp": "ja", "jpn": "ja", "eng": "en", "dk": "da", "se": "sv",
             "por": "pt", "dut": "nl", "nld": "nl", "gr": "el", "gre": "el", "ell": "el", "tur": "tr"}


def nearest_language(code: str, among: "list[str] | None" = None) -> str | None:
    """The language code a user most likely meant by ``code`` (``sp`` → ``es``), restricted to
    ``among`` when given; None when nothing is close. A country or three-letter code is looked
    up first: edit distance would take ``sp`` for ``sq`` (Albanian)."""
    text = code.strip().lower()
    choices = sorted(among) if among is not None else sorted(ISO_639_1)
    mapped = _MISTAKEN.get(text, text)
    if mapped in choices and mapped != code:
        return mapped
    close = difflib.get_close_matches(text, choices, n=1)
    return close[0] if close and close[0] != code else None


# NLLB-200 names languages by ISO 639-3 code and script (``deu_Latn``); users give ISO 639-1.
NLLB_CODES = {
    "ar": "arb_Arab", "bg": "bul_Cyrl", "cs": "ces_Latn", "da": "dan_Latn", "de": "deu_Latn", "el": "ell_Grek",
    "en": "eng_Latn", "es": "spa_Latn", "fi": "fin_Latn", "fr": "fra_Latn", "he": "heb_Hebr", "hi": "hin_Deva",
    "hu": "hun_Latn", "it": "ita_Latn", "ja": "jpn_Jpan", "ko": "kor_Hang", "nl": "nld_Latn", "pl": "pol_Latn",
    "pt": "por_Latn", "ro": "ron_Latn", "ru": "rus_Cyrl", "sk": "slk_Latn", "sv": "swe_Latn", "tr": "tur_Latn",
    "uk": "ukr_Cyrl", "zh": "zho_Hans",
}


# English names of the languages prompts and probes name most often (an LLM is asked to
# translate "into German", not "into de"); any other code is named by itself.
LANGUAGE_NAMES = {
    "ar": "Arabic", "be": "Belarusian", "bg": "Bulgarian", "ca": "Catalan", "cs": "Czech", "da": "Danish",
    "de": "German", "el": "Greek", "en": "English", "es": "Spanish", "et": "Estonian", "fa": "Persian",
    "fi": "Finnish", "fr": "French", "ga": "Irish", "he": "Hebrew", "hi": "Hindi", "hr": "Croatian",
    "hu": "Hungarian", "id": "Indonesian", "it": "Italian", "ja": "Japanese", "ko": "Korean", "lt": "Lithuanian",
    "lv": "Latvian", "nl": "Dutch", "no": "Norwegian", "pl": "Polish", "pt": "Portuguese", "ro": "Romanian",
    "ru": "Russian", "sk": "Slovak", "sl": "Slovenian", "sr": "Serbian", "sv": "Swedish", "th": "Thai",
    "tr": "Turkish", "uk": "Ukrainian", "vi": "Vietnamese", "zh": "Chinese",
}


def language_name(code: str) -> str:
    """``de`` → ``German``; a code without a name here is returned as it is."""
    return LANGUAGE_NAMES.get(code, code)
