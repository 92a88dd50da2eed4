"""NER back-ends behind one interface: spaCy (en, fr, cs) and natasha (ru).

Models are Python packages installed in the environment (never downloaded at run time). Only
the components NER needs are kept: tagging, parsing and lemmatising would triple the cost.
"""

from __future__ import annotations

import importlib
from typing import Iterable, Protocol, Sequence

from ..errors import InputError
from ..lang.languages import LANGUAGES, langs_with
from .entities import Entity, normalise_label

# language → (package with a load() function, description); natasha is handled separately.
SPACY_MODELS = {code: LANGUAGES[code].ner.removeprefix("spacy:") for code in langs_with("ner")
                if LANGUAGES[code].ner.startswith("spacy:")}
NATASHA_LANGS = tuple(code for code in langs_with("ner") if LANGUAGES[code].ner == "natasha")
NER_LANGS = langs_with("ner")


class Tagger(Protocol):
    lang: str
    name: str

    def tag(self, texts: Sequence[str], batch_size: int = 256,
            n_process: int = 1) -> list[list[Entity]]: ...


def _entities(spans: Iterable[tuple[str, int, int, str]]) -> list[Entity]:
    out = []
    for text, start, end, label in spans:
        kind = normalise_label(label)
        if kind is not None:
            out.append(Entity(text, start, end, kind))
    return out


class SpacyTagger:
    def __init__(self, lang: str, package: str):
        self.lang = lang
        self.name = package
        try:
            module = importlib.import_module(package)
        except ImportError:
            raise InputError(f"spaCy model package '{package}' for '{lang}' is not installed",
                             hint="pip install 'mtdebias[ner]' (models are pip packages)") from None
        full = module.load()
        keep = {"ner"}
        # Some models (e.g. the Czech one) let NER listen to a shared tok2vec component.
        tok2vec = full.get_pipe_config("ner").get("model", {}).get("tok2vec", {})
        if "Listener" in str(tok2vec.get("@architectures", "")):
            keep.add("tok2vec")
        self.nlp = module.load(exclude=[p for p in full.pipe_names if p not in keep])
        self.version = full.meta.get("version", "?")

    gazetteer = None  # a NameGazetteer run after the model (see with_gazetteer)

    def tag(self, texts: Sequence[str], batch_size: int = 256,
            n_process: int = 1) -> list[list[Entity]]:
        docs = self.nlp.pipe(texts, batch_size=batch_size, n_process=n_process)
        out = []
        for doc in docs:
            gaz = self.gazetteer
            spans = [(e.text, e.start_char, e.end_char,
                      "PERSON" if gaz is not None and gaz.relabel(e) else e.label_) for e in doc.ents]
            if gaz is not None:
                taken = [k for e in doc.ents for k in range(e.start, e.end)]
                spans += [(doc.text[a:b], a, b, "PERSON") for a, b in self.gazetteer.spans(doc, taken)]
                spans.sort(key=lambda s: s[1])
            out.append(_entities(spans))
        return out


class NatashaTagger:
    """Russian NER with natasha's bundled slovnet model (runs in-process; n_process is ignored)."""

    def __init__(self, lang: str = "ru"):
        from natasha import NewsEmbedding, NewsNERTagger, Segmenter

        self.lang = lang
        self.name = "natasha"
        self.version = importlib.import_module("natasha").__dict__.get("__version__", "1.6")
        self._segmenter = Segmenter()
        self._ner = NewsNERTagger(NewsEmbedding())

    def tag(self, texts: Sequence[str], batch_size: int = 256,
            n_process: int = 1) -> list[list[Entity]]:
        from natasha import Doc

        out = []
        for text in texts:
            doc = Doc(text)
            doc.segment(self._segmenter)
            doc.tag_ner(self._ner)
            out.append(_entities((s.text, s.start, s.stop, s.type) for s in doc.spans))
        return out


_CACHE: dict[str, Tagger] = {}


def load_tagger(lang: str, gazetteer: bool = False) -> Tagger | None:
    """The NER tagger for ``lang``, or None when none is available (→ one-sided annotation).

    ``gazetteer=True`` (English only) adds the name-gazetteer pass of :mod:`.gazetteer`.
    """
    if gazetteer:
        if lang != "en":
            return load_tagger(lang)
        key = "en+gazetteer"
        if key not in _CACHE:
            from .gazetteer import english_gazetteer

            tagger = SpacyTagger(lang, SPACY_MODELS[lang])
            tagger.gazetteer = english_gazetteer()
            tagger.name += "+gazetteer"
            _CACHE[key] = tagger
        return _CACHE[key]
    if lang in _CACHE:
        return _CACHE[lang]
    if lang in SPACY_MODELS:
        tagger: Tagger = SpacyTagger(lang, SPACY_MODELS[lang])
    elif lang in NATASHA_LANGS:
        tagger = NatashaTagger(lang)
    else:
        return None
    _CACHE[lang] = tagger
    return tagger
