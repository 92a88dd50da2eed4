"""OSIS verse markup → the plain sentence a translation model trains on.

What is kept and why:
* the words inside ``<w>`` (Strong's numbers), ``<transChange>`` (words the translators added,
  printed in italics), ``<divineName>``, ``<q>``, ``<seg>``, ``<foreign>``: they are the text;
* ``<title canonical="true">`` (a psalm's superscription, "A Psalm of David…"): canonical text
  that other translations (Reina-Valera) print inside verse 1;

what is dropped:
* ``<note>…</note>`` (footnotes, with their content) and non-canonical ``<title>`` (section
  headings, the epistles' subscriptions "Written to the Romans from Corinthus…"), which the
  other side of a verse pair usually lacks;
* empty milestones (``<chapter/>``, ``<div/>``, ``<lb/>``, ``<l/>``…) and the pilcrow ``¶``.
"""

from __future__ import annotations

import html
import re

_DROP_WITH_CONTENT = re.compile(r"<note\b[^>]*?(?<!/)>.*?</note>", re.S)
_TITLE = re.compile(r"<title\b([^>]*?)(?<!/)>(.*?)</title>", re.S)
_TAG = re.compile(r"<[^>]*>")
_JOIN = "\x00"     # a tag boundary inside a run of letters
_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_PUNCT = re.compile(r"\s+([,.;:!?»)\]])")


def _title(match: re.Match) -> str:
    return f" {match.group(2)} " if 'canonical="true"' in match.group(1) else " "


def osis_to_text(markup: str) -> str:
    """Plain text of one verse's OSIS markup (see the module docstring for what is kept)."""
    text = _DROP_WITH_CONTENT.sub(" ", markup)
    text = _TITLE.sub(_title, text)
    # Reina-Valera's "<transChange>" spans sometimes touch the words around them
    # ("de la<transChange>que fué mujer</transChange>de Urías"): a tag between two letters is
    # a word boundary there, while a <w> tag never splits a word
    text = re.sub(r"</?transChange\b[^>]*>", _JOIN, text)
    text = _TAG.sub("", text)
    text = re.sub(rf"(?<=\w){_JOIN}(?=\w)", " ", text).replace(_JOIN, "")
    text = html.unescape(text).replace("¶", " ")
    text = _SPACES.sub(" ", text).strip()
    return _SPACE_BEFORE_PUNCT.sub(r"\1", text)


_EDGE = "¡¿\"'«(),.;:!?»"


def undo_drop_caps(text: str, proper_nouns: frozenset[str] | set[str] = frozenset()) -> str:
    """Reina-Valera sets the first word of a chapter in capitals ("EN el principio", "Y FUERON
    acabados", "¡OH Jehová"), after a psalm's superscription when there is one ("Salmo de David.
    JEHOVÁ es mi pastor"): a typographic drop cap, not a spelling. Rewrite the first all-capital
    word that starts a sentence in sentence case — lower case after a one-letter capital word
    ("Y fueron", "A ti") unless it is a proper noun elsewhere in the module (``proper_nouns``,
    capitalised forms: "Y Jesús"). Nothing after that word changes."""
    tokens = text.split(" ")
    for i, token in enumerate(tokens):
        core = token.strip(_EDGE)
        if not (len(core) >= 2 and core.isalpha() and core.isupper()):
            continue
        previous = tokens[i - 1] if i else ""
        after_letter = len(previous.strip(_EDGE)) == 1 and previous.strip(_EDGE).isupper()
        before = tokens[i - 2] if i >= 2 else ""
        starts = (i == 0 or previous[-1:] in ".:;!?" or token[:1] in "¡¿"
                  or (after_letter and (i == 1 or before[-1:] in ".:;!?")))
        if not starts:
            return text                      # the first capital word is not a drop cap
        cased = core.capitalize()
        if after_letter and cased not in proper_nouns:
            cased = core.lower()
        tokens[i] = token.replace(core, cased, 1)
        return " ".join(tokens)
    return text


_ONE_LETTER_ACCENTED = re.compile(r"(?<!\w)([áéóúÁÉÓÚ])(?!\w)")


def modernise_1909(text: str) -> str:
    """The 1909 orthography accents the one-letter words "á", "é", "ó" ("engendró á Salomón");
    the 1959 reform dropped those accents, and every modern Spanish text (the probes' templates,
    WinoMT-es) writes "a", "e", "o". Nothing else is changed (``fué`` etc. stay)."""
    return _ONE_LETTER_ACCENTED.sub(lambda m: {"á": "a", "é": "e", "ó": "o", "ú": "u", "Á": "A",
                                               "É": "E", "Ó": "O", "Ú": "U"}[m.group(1)], text)
